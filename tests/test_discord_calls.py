"""The count of the answers that get an address banned by Discord (bot/discord_calls.py),
on a fake clock: 401, 403 and 429 by status, and a warning once 1,000 came within ten
minutes, repeated at most once a minute while it stays so."""

from __future__ import annotations

import logging

import pytest

from bot.discord_calls import WARN_AT, WARN_EVERY, WINDOW, InvalidAnswers


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_a_warning_at_a_thousand_in_ten_minutes_and_not_at_every_answer_after(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, "bot.discord_calls")
    clock, told = Clock(), []
    invalid = InvalidAnswers(told.append, clock=clock)
    for n in range(WARN_AT - 1):
        clock.now = n * 0.5
        invalid.drew((401, 403, 429)[n % 3])
        invalid.drew(404)  # not one Discord holds against the address
    assert warnings(caplog) == [] and invalid.recent() == WARN_AT - 1
    invalid.drew(429)
    (warned,) = warnings(caplog)
    assert "1000 requests" in warned and "10 minutes" in warned and "10,000" in warned
    for _ in range(500):  # the same minute: no more warnings
        invalid.drew(401)
    assert len(warnings(caplog)) == 1
    clock.now += WARN_EVERY
    invalid.drew(401)
    assert len(warnings(caplog)) == 2  # still past: once more, a minute on
    assert sum(told) == 333 * 401 + 333 * 403 + 334 * 429 + 501 * 401
    assert invalid.total == {401: 834, 403: 333, 429: 334}


def test_the_count_slides_and_a_shared_limits_429_is_not_held_against_the_address() -> None:
    clock = Clock()
    invalid = InvalidAnswers(clock=clock)
    for _ in range(10):
        invalid.drew(403)
    invalid.drew(429, shared=True)
    assert invalid.recent() == 10 and invalid.total[429] == 1
    clock.now = WINDOW - 1
    invalid.drew(401)
    assert invalid.recent() == 11
    clock.now = WINDOW
    assert invalid.recent() == 1  # the first ten were ten minutes ago
