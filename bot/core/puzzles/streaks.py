"""Daily streaks, worked out from the solved daily attempts (pure: no I/O).

A day counts when that day's daily was solved by an attempt started that day (its
``daily`` number is the day's): a Retry started the same day counts, one of an older
daily started later does not. The streak runs back from today, or from yesterday while
today's daily is not solved yet (so it does not read 0 all morning); the best streak is
the longest run ever. Nothing is kept but the attempts, so a forgotten or a replayed
attempt can never leave a count behind.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime

from engine.puzzles import number_of


def day_number(when: float) -> int:
    """The daily number of the UTC day a timestamp falls on."""
    return number_of(utc_day(when))


def utc_day(when: float) -> date:
    return datetime.fromtimestamp(when, UTC).date()


def streaks(solved: Iterable[tuple[int, float]], today: int) -> tuple[int, int]:
    """``(current streak, best streak)`` from ``(daily number, started_at)`` of solved
    daily attempts, on the day numbered ``today``."""
    days = {daily for daily, started in solved if day_number(started) == daily}
    end = today if today in days else today - 1
    current = 0
    while end - current in days:
        current += 1
    best = 0
    for day in days:
        if day - 1 not in days:  # a run starts here
            length = 1
            while day + length in days:
                length += 1
            best = max(best, length)
    return current, max(best, current)
