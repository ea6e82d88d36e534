"""The daily puzzle: a pure function of the date, from an append-only schedule."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path

import pytest

from engine.puzzles import FIRST_DAY, ROTATION, NoDailyPuzzle, daily, day_of, load, number_of
from engine.puzzles.records import PUZZLES_PATH, Puzzle, read, set_seed
from engine.puzzles.regenerate import kept_for_schedule, main
from engine.puzzles.schedule import (
    SCHEDULE_PATH,
    coming,
    continued,
    extend,
    read_schedule,
    schedule,
)

FIRST_WEEK = (
    # The shipped schedule's first week (#1 is 2026-12-01): a past daily never changes.
    "5x5-1dd9449752",
    "ultimate-f544f418c8",
    "4x4-2ab889190e",
    "5x5-03b98b06e5",
    "ultimate-02a913b624",
    "5x5-bb6afec60c",
    "3x3-c420726e00",
)


def test_numbers_count_days_from_the_first() -> None:
    assert date(2026, 12, 1) == FIRST_DAY
    assert number_of(FIRST_DAY) == 1
    assert number_of(date(2026, 12, 31)) == 31
    assert number_of(date(2027, 12, 1)) == 366
    for number in (1, 2, 59, 365, 1000):
        assert number_of(day_of(number)) == number
    assert number_of(FIRST_DAY - timedelta(days=1)) == 0


def test_no_daily_before_the_first_day() -> None:
    with pytest.raises(NoDailyPuzzle):
        daily(FIRST_DAY - timedelta(days=1))
    assert daily(day_of(len(schedule()))).id == schedule()[-1]


SHIPPED_SHA256 = "1d4cb603d7bcd0b78e905535d40d31b79b82652a1005390737dd4da3917565ef"
"""The shipped schedule file as released (1,100 lines, to 2029-12-04): only appended to."""


def test_the_daily_never_runs_out_and_its_first_1100_days_stay() -> None:
    assert hashlib.sha256(SCHEDULE_PATH.read_bytes()).hexdigest() == SHIPPED_SHA256
    file = read_schedule(SCHEDULE_PATH)
    assert len(file) == 1100 and day_of(1101) == date(2029, 12, 5)  # the file's end
    known = {p.id for p in load()}
    last = number_of(date(2039, 12, 31))  # ten years past the file's end, and more
    days = [daily(day_of(n)).id for n in range(1, last + 1)]
    assert days[:1100] == file  # a past daily never changes
    assert set(days) <= known and len(days) == last
    # past the file: first the puzzles it never named, then the whole set again
    assert set(days[1100 : len(known)]) == known - set(file)
    assert set(days) == known
    # the same days however far ahead one looked first (the blocks only extend)
    assert continued(file, load(), set_seed(), 4000) == days[:4000]


def test_the_continuation_only_extends_and_follows_the_seed() -> None:
    pool = [fake(kind, i) for kind in dict.fromkeys(ROTATION) for i in range(5)]
    first = continued([], pool, 1, days=30)
    assert len(first) == 30 and first[:20] == extend([], pool, days=20)  # no puzzle twice
    longer = continued([], pool, 1, days=200)
    assert longer[:30] == first and len(longer) == 200
    assert continued(first[:25], pool, 1, days=200)[:25] == first[:25]
    other = continued([], pool, 2, days=200)
    assert other[:20] == longer[:20] and other[20:] != longer[20:]  # rounds: the seed's
    for start in range(20, 200, 20):  # each round holds every puzzle once
        assert sorted(longer[start : start + 20]) == sorted(p.id for p in pool)
    assert continued(["a"], [], 1, days=10) == ["a"]  # nothing to schedule: as it was


def test_the_shipped_schedule_keeps_its_past() -> None:
    lines = schedule()
    assert lines[: len(FIRST_WEEK)] == FIRST_WEEK
    assert len(lines) == len(set(lines)) >= 365
    known = {p.id for p in load()}
    assert set(lines) <= known
    week = [daily(day_of(n)).kind for n in range(1, len(ROTATION) + 1)]
    assert tuple(week) == ROTATION


@pytest.mark.slow  # starts a Python process
def test_daily_is_the_same_in_every_process() -> None:
    days = [FIRST_DAY, date(2027, 2, 28), date(2028, 2, 29)]
    here = [daily(day).id for day in days]
    code = (
        "import datetime, sys; from engine.puzzles import daily; "
        "print(' '.join(daily(datetime.date.fromisoformat(d)).id for d in sys.argv[1:]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *(d.isoformat() for d in days)],
        capture_output=True, text=True, check=True, cwd=Path(__file__).parents[1],
    )  # fmt: skip
    assert out.stdout.split() == here


def fake(kind: str, i: int) -> Puzzle:
    base = next(p for p in load() if p.kind == kind)
    return replace(base, id=f"{kind}-fake{i:04d}")


def test_extending_only_appends() -> None:
    pool = [fake(kind, i) for kind in dict.fromkeys(ROTATION) for i in range(20)]
    first = extend([], pool[:40], days=30)
    assert len(first) == 30
    # More puzzles, fewer puzzles, even none: the past lines stay as they were.
    for later in (pool, pool[20:], [], pool + pool):
        longer = extend(first, later, days=60)
        assert longer[:30] == first
        assert len(set(longer)) == len(longer)
    assert extend(first, pool, days=10) == first  # never shortened


def test_rotation_and_its_fallback() -> None:
    pool = [fake(kind, i) for kind in ("5x5", "ultimate", "4x4", "3x3") for i in range(3)]
    lines = extend([], pool, days=100)
    kinds = [line.split("-")[0] for line in lines]
    assert kinds[:7] == list(ROTATION)
    assert len(lines) == len(pool)  # stops when every board is used up
    # 5x5 has three puzzles and three days a week: its fourth day (#8) goes to the next
    # board of the week with a puzzle left.
    assert kinds[7] == "ultimate"


def test_the_generator_keeps_scheduled_puzzles(tmp_path: Path) -> None:
    lines = list(schedule()[:5])
    _, shipped = read(PUZZLES_PATH)
    kept = kept_for_schedule(lines, shipped, [])
    assert sorted(p.id for p in kept) == sorted(lines)
    with pytest.raises(ValueError, match="no set holds"):
        kept_for_schedule(["5x5-0000000000"], shipped, [])
    # A run that finds other puzzles appends to the schedule and keeps the past ones.
    out, plan = tmp_path / "puzzles.jsonl", tmp_path / "schedule.txt"
    shutil.copy(PUZZLES_PATH, out)
    plan.write_text("".join(f"{line}\n" for line in lines))
    assert main(["--budget", "0", "--out", str(out), "--schedule", str(plan), "--days", "40"]) == 0
    after = read_schedule(plan)
    assert after[:5] == lines and len(after) == 40
    assert set(after) <= {p.id for p in read(out)[1]}
    assert SCHEDULE_PATH.read_text().splitlines()[:5] == lines  # the shipped file untouched


def test_coming_names_the_first_dailies_ahead_and_never_one_already_shown() -> None:
    lines = schedule()
    assert coming(1, 7) == frozenset(FIRST_WEEK)
    assert coming(-5, 7) == coming(1, 7)  # before #1: from #1
    assert coming(2, 6) == frozenset(FIRST_WEEK[1:])
    # Past the file, through the continuation: puzzles the file never named.
    ahead = coming(len(lines) + 1, 30)
    assert len(ahead) == 30 and not ahead & set(lines)
    # A puzzle shown once is not "coming" when a later round brings it back: past the
    # first pass through the set (4,479 days) none is.
    assert len(coming(4479 - 9, 30)) == 10 and coming(4480, 1100) == frozenset()
