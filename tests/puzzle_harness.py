"""What the puzzle tests share: members, a fake clock on a daily's day, the shipped
daily of a number, and a daily solved along its stored line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from engine.puzzles import FIRST_DAY, Puzzle, daily

from core_harness import GUILD, Core, FakeClock

ALICE, BOB, CAROL = 101, 102, 103


def day_clock(number: int, hour: int = 12) -> FakeClock:
    """A clock at ``hour`` UTC on daily #``number``'s day."""
    day = FIRST_DAY + timedelta(days=number - 1)
    return FakeClock(datetime(day.year, day.month, day.day, hour, tzinfo=UTC).timestamp())


def puzzle_of(number: int) -> Puzzle:
    """Daily #``number`` of the shipped schedule."""
    return daily(FIRST_DAY + timedelta(days=number - 1))


async def solve_daily(core: Core, user: int, guild: int | None = GUILD) -> None:
    """Open today's daily and play its stored line to the win."""
    attempt = (await core.puzzles.open(user, guild)).attempt
    line = puzzle_of(attempt.daily or 0).line
    for ply in range(0, len(line), 2):
        view = await core.puzzles.move(user, attempt.id, ply, line[ply])
    assert view.attempt.status == "solved"
