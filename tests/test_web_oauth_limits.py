"""Discord's rate limits on the sign-in's OAuth2 calls (bot/web/oauth_limits.py), on a
fake clock: a call is allowed only while Discord's last answer allows one, and otherwise
the wait is told at once."""

from __future__ import annotations

import pytest

from bot.web.oauth_limits import TOLD_NOTHING_WAIT, UNKNOWN_WAIT, OAuthLimiter

TOKEN, ME = "POST /oauth2/token", "GET /users/@me"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def limits(limit: int, remaining: int, reset_after: float, bucket: str = "b1") -> dict[str, str]:
    return {"X-RateLimit-Limit": str(limit), "X-RateLimit-Remaining": str(remaining),
            "X-RateLimit-Reset-After": str(reset_after), "X-RateLimit-Bucket": bucket}  # fmt: skip


def test_one_call_until_discord_tells_the_limit_then_as_many_as_it_says() -> None:
    clock = Clock()
    limiter = OAuthLimiter(clock)
    assert limiter.take(TOKEN) == 0.0
    assert limiter.take(TOKEN) == UNKNOWN_WAIT  # the first answer is not in yet
    clock.now += 0.2
    limiter.answered(TOKEN, 400, limits(3, 2, 10.0), {"error": "invalid_grant"})
    assert [limiter.take(TOKEN) for _ in range(2)] == [0.0, 0.0]
    assert limiter.take(TOKEN) == pytest.approx(10.0)  # Remaining 2 spent: until the reset
    clock.now += 4.0
    assert limiter.wait(TOKEN) == pytest.approx(6.0)
    limiter.answered(TOKEN, 400, limits(3, 1, 6.0), None)
    limiter.answered(TOKEN, 400, limits(3, 0, 6.0), None)
    assert limiter.take(TOKEN) == pytest.approx(6.0)
    clock.now += 6.0
    assert [limiter.take(TOKEN) for _ in range(4)] == [0.0, 0.0, 0.0, pytest.approx(UNKNOWN_WAIT)]


def test_remaining_zero_holds_every_call_until_the_reset() -> None:
    clock = Clock()
    limiter = OAuthLimiter(clock)
    assert limiter.take(TOKEN) == 0.0
    limiter.answered(TOKEN, 200, limits(5, 0, 2.5), {})
    assert limiter.take(TOKEN) == pytest.approx(2.5)
    clock.now += 2.4
    assert limiter.take(TOKEN) == pytest.approx(0.1)
    clock.now += 0.1
    assert limiter.take(TOKEN) == 0.0


def test_answers_out_of_order_never_give_back_calls_discord_counted() -> None:
    """Five calls out at once; the answer saying four are left comes last: still none."""
    clock = Clock()
    limiter = OAuthLimiter(clock)
    limiter.take(TOKEN)
    limiter.answered(TOKEN, 200, limits(6, 5, 10.0), {})
    assert [limiter.take(TOKEN) for _ in range(5)] == [0.0] * 5
    for remaining in (0, 1, 2, 3, 4):  # the latest call's answer first
        limiter.answered(TOKEN, 200, limits(6, remaining, 10.0), {})
        assert limiter.take(TOKEN) > 0


def test_a_429_holds_its_route_for_the_longer_of_its_two_waits() -> None:
    clock = Clock()
    limiter = OAuthLimiter(clock)
    limiter.take(TOKEN)
    limiter.answered(TOKEN, 200, limits(10, 9, 1.0), {})
    assert limiter.take(TOKEN) == 0.0
    headers = limits(10, 8, 1.0) | {"Retry-After": "3", "X-RateLimit-Scope": "user"}
    limiter.answered(TOKEN, 429, headers, {"message": "You are being rate limited.",
                                           "retry_after": 3.5, "global": False})  # fmt: skip
    assert limiter.take(TOKEN) == pytest.approx(3.5)  # Remaining said 8: Retry-After rules
    assert limiter.take(ME, "someone") == 0.0  # another route, another caller
    clock.now += 3.4
    assert limiter.take(TOKEN) > 0
    clock.now += 0.1
    assert limiter.take(TOKEN) == 0.0


def test_a_global_429_holds_every_route_of_its_caller_only() -> None:
    clock = Clock()
    limiter = OAuthLimiter(clock)
    assert limiter.take(ME, "alice") == 0.0
    limiter.answered(ME, 429, {"Retry-After": "7", "X-RateLimit-Global": "true"},
                     {"message": "You are being rate limited.", "retry_after": 7.0,
                      "global": True}, "alice")  # fmt: skip
    assert limiter.take(ME, "alice") == pytest.approx(7.0)
    assert limiter.take(TOKEN, "alice") == pytest.approx(7.0)
    assert limiter.take(ME, "bob") == 0.0
    assert limiter.take(TOKEN) == 0.0
    clock.now += 7.0
    assert limiter.take(ME, "alice") == 0.0


def test_a_429_not_from_discords_api_holds_every_call() -> None:
    """A Cloudflare ban: a text body, perhaps no Retry-After at all."""
    clock = Clock()
    limiter = OAuthLimiter(clock)
    limiter.take(TOKEN)
    limiter.answered(TOKEN, 429, {}, "error code: 1015")
    for route, who in ((TOKEN, ""), (ME, "anyone")):
        assert limiter.take(route, who) == pytest.approx(TOLD_NOTHING_WAIT)
    clock.now += TOLD_NOTHING_WAIT
    assert limiter.take(ME, "anyone") == 0.0


def test_routes_in_one_named_bucket_share_its_calls() -> None:
    clock = Clock()
    limiter = OAuthLimiter(clock)
    limiter.take(TOKEN)
    limiter.answered(TOKEN, 200, limits(2, 1, 5.0, bucket="shared"), {})
    limiter.take("POST /oauth2/token/revoke")
    limiter.answered("POST /oauth2/token/revoke", 200, limits(2, 0, 5.0, bucket="shared"), {})
    assert limiter.take(TOKEN) == pytest.approx(5.0)


def test_a_call_without_an_answer_frees_its_place() -> None:
    limiter = OAuthLimiter(Clock())
    assert limiter.take(TOKEN) == 0.0
    limiter.unanswered(TOKEN)
    assert limiter.take(TOKEN) == 0.0
