"""The daily puzzle: the same for everyone, numbered from a first day, append-only.

Daily #1 is :data:`FIRST_DAY` (UTC); daily #N is the day ``N - 1`` days later, and its
puzzle is line N of ``engine/data/puzzle_schedule.txt`` (one puzzle id a line). So the
daily is a pure function of the date: every process and every installation shows the
same one, and nothing in the bot's database decides it.

Rotation: daily #N is set on the board ``ROTATION[(N - 1) % 7]``, a week of 5×5,
ultimate, 4×4, 5×5, ultimate, 5×5, 3×3 (the boards with the most puzzles come most
often; a beginner's 3×3 once a week). When a board has no puzzle left that the schedule
has not used, its day goes to the next board of the week that has one. Within a board
the puzzles come in a seeded shuffle of those not yet used.

The generator only appends (:func:`extend`): a line once written is never changed, and
a regenerated set keeps every puzzle the schedule names.

Past the file's last line the daily never runs out: the days go on by
:func:`continued`, a pure function of the file, the shipped set and the set's seed.
First the puzzles the file never named, as the generator would append them; then, when
every board is used up, rounds of the whole set again, each a shuffle seeded by the
set's seed and the day the round starts. It is computed ahead (:data:`AHEAD` days at a
time) and only ever extends: day N is the same whatever day asks, in every process.
The generator writes the file through the same function, so writing days out changes
none of them.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from datetime import date, timedelta
from functools import cache, lru_cache
from pathlib import Path

from engine.puzzles.records import DATA, Puzzle, by_id, load, set_seed

FIRST_DAY = date(2026, 12, 1)
"""Daily #1 (UTC)."""
ROTATION: tuple[str, ...] = ("5x5", "ultimate", "4x4", "5x5", "ultimate", "5x5", "3x3")
DAYS = 1100
"""How many dailies the generator schedules (about three years), at least."""
SCHEDULE_PATH = DATA / "puzzle_schedule.txt"
AHEAD = 3650
"""Past the file, the days are worked out in blocks of this many (ten years)."""


class NoDailyPuzzle(LookupError):
    """The day is before the first daily or past the end of the schedule."""


def number_of(day: date) -> int:
    """The daily number of a UTC date (#1 on :data:`FIRST_DAY`; 0 or less before it)."""
    return (day - FIRST_DAY).days + 1


def day_of(number: int) -> date:
    """The UTC date of daily #``number``."""
    return FIRST_DAY + timedelta(days=number - 1)


def read_schedule(path: Path) -> list[str]:
    """The puzzle ids of a schedule file, line by line.

    Raises:
        OSError: the file cannot be read.
    """
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line]


def write_schedule(path: Path, lines: Iterable[str]) -> None:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")


@cache
def schedule() -> tuple[str, ...]:
    """The shipped schedule, read once per process."""
    return tuple(read_schedule(SCHEDULE_PATH))


def daily_id(day: date) -> str:
    """The id of the daily puzzle of a UTC date: the file's line, or past it
    :func:`continued`'s day.

    Raises:
        NoDailyPuzzle: before the first daily (or the set and the file are empty).
    """
    number = number_of(day)
    lines = schedule()
    if len(lines) < number:
        lines = _ahead(-(-number // AHEAD) * AHEAD)
    if not 1 <= number <= len(lines):
        raise NoDailyPuzzle(f"no daily puzzle on {day} (#{number}; the schedule has {len(lines)})")
    return lines[number - 1]


@cache
def _ahead(days: int) -> tuple[str, ...]:
    """The shipped schedule continued to ``days`` days (see :func:`continued`)."""
    return tuple(continued(list(schedule()), load(), set_seed(), days))


def coming(number: int, days: int = DAYS) -> frozenset[str]:
    """The puzzles whose first daily is one of the ``days`` from daily #``number`` on
    (#1 when ``number`` is less): what training keeps for its day. A puzzle already shown
    once is not among them, though a later round of :func:`continued` shows it again
    (by then every member could have met it)."""
    start = max(1, number)
    return _coming(start, -(-(start + days - 1) // AHEAD) * AHEAD, days)


@lru_cache(maxsize=4)
def _coming(start: int, ahead: int, days: int) -> frozenset[str]:
    lines = schedule() if len(schedule()) >= start + days - 1 else _ahead(ahead)
    shown = set(lines[: start - 1])
    return frozenset(line for line in lines[start - 1 : start - 1 + days] if line not in shown)


def daily(day: date) -> Puzzle:
    """The daily puzzle of a UTC date (see the module's docstring).

    Raises:
        NoDailyPuzzle: before the first daily (or the set and the file are empty).
    """
    return by_id(daily_id(day))


def extend(lines: list[str], puzzles: Iterable[Puzzle], days: int = DAYS) -> list[str]:
    """The schedule ``lines`` with days appended up to ``days`` lines (never fewer lines
    than given: past lines stay as they are), following :data:`ROTATION`. Stops early
    when no board has an unused puzzle left."""
    used = set(lines)
    pools: dict[str, list[str]] = {kind: [] for kind in ROTATION}
    for puzzle in sorted(puzzles, key=lambda p: p.id):
        if puzzle.id not in used and puzzle.kind in pools:
            used.add(puzzle.id)  # an id given twice is scheduled once
            pools[puzzle.kind].append(puzzle.id)
    for kind, pool in pools.items():
        # Seeded by where the schedule stands, so the same inputs give the same lines.
        random.Random(f"schedule:{kind}:{len(lines)}").shuffle(pool)
        pool.reverse()  # taken from the end
    return _fill(list(lines), pools, days)


def _fill(out: list[str], pools: dict[str, list[str]], days: int) -> list[str]:
    """``out`` with ids appended from ``pools`` (each taken from its end) up to ``days``
    lines, following :data:`ROTATION`; stops early when every pool is empty."""
    while len(out) < days:
        slot = len(out) % len(ROTATION)
        order = ROTATION[slot:] + ROTATION[:slot]
        chosen = next((k for k in order if pools[k]), None)
        if chosen is None:
            break
        out.append(pools[chosen].pop())
    return out


def continued(lines: list[str], puzzles: Iterable[Puzzle], seed: int, days: int) -> list[str]:
    """The schedule ``lines`` continued to ``days`` lines, never running out: first
    :func:`extend` (the puzzles not scheduled yet), then rounds of every puzzle again,
    each shuffled by ``seed`` and the round's first day. A prefix of the same call with
    more days (a later day never changes an earlier one); empty pools give ``lines``."""
    puzzles = list(puzzles)
    out = extend(lines, puzzles, days)
    kinds = {kind: sorted({p.id for p in puzzles if p.kind == kind}) for kind in ROTATION}
    while len(out) < days and any(kinds.values()):
        pools = {}
        for kind, ids in kinds.items():
            pool = list(ids)
            random.Random(f"schedule:{seed}:{kind}:{len(out)}").shuffle(pool)
            pools[kind] = pool[::-1]
        out = _fill(out, pools, days)
    return out
