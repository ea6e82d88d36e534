"""The shipped puzzle set: it reads back, and a sample of it is proven again.

The sample is seeded by the date (a different sample every day, the same all day): the
seed is printed, and ``TTT_PUZZLE_SEED=<seed>`` reruns that sample. ``bench/puzzles.py``
proves them all.
"""

from __future__ import annotations

import os
import random
import shutil
import tomllib
from dataclasses import replace
from datetime import UTC, datetime
from fnmatch import fnmatch
from pathlib import Path

import pytest

from engine import Board
from engine.census import reachable_positions
from engine.puzzles import KINDS, UnknownPuzzle, by_id, load
from engine.puzzles.generate import examine, generate
from engine.puzzles.proof import prover_for
from engine.puzzles.records import PUZZLES_PATH, BadPuzzleFile, Puzzle, dropped, read, write
from engine.puzzles.regenerate import main
from engine.puzzles.schedule import SCHEDULE_PATH
from engine.puzzles.verify import problems
from engine.puzzles.walk import every_position, positions

PER_KIND = 3
"""Puzzles of each kind proven again per run."""


def sample_seed() -> int:
    chosen = os.environ.get("TTT_PUZZLE_SEED")
    return int(chosen) if chosen else int(datetime.now(UTC).strftime("%Y%m%d"))


def test_a_sample_of_the_set_proves_again() -> None:
    seed = sample_seed()
    print(f"puzzle sample seed {seed} (rerun with TTT_PUZZLE_SEED={seed})")
    rng = random.Random(seed)
    puzzles = load()
    for kind in KINDS:
        of_kind = [p for p in puzzles if p.kind == kind]
        for puzzle in rng.sample(of_kind, min(PER_KIND, len(of_kind))):
            found = problems(puzzle)
            assert not found, f"{puzzle.id} (TTT_PUZZLE_SEED={seed}): {found}"


def test_the_reproof_catches_a_wrong_record() -> None:
    puzzle = next(p for p in load() if p.kind == "4x4")
    board = puzzle.board()
    assert problems(puzzle) == []
    other = next(m for m in board.legal_moves() if m != puzzle.first)
    after = board.play(puzzle.first)
    weak = next(r for r in after.legal_moves() if r != puzzle.line[1])
    line = list(puzzle.line)
    wrong = {
        "first": replace(puzzle, first=other, line=(other, *puzzle.line[1:])),
        "reply": replace(puzzle, line=(line[0], weak, *line[2:])),
        "longer": replace(puzzle, n=puzzle.n + 1, line=(*line, *line[-2:])),
        "id": replace(puzzle, id="4x4-0123456789"),
        "medium": replace(puzzle, solved_by=("easy", "medium")),
    }
    for name, record in wrong.items():
        assert problems(record), name


def test_the_set_has_every_board_and_unique_ids() -> None:
    puzzles = load()
    ids = [p.id for p in puzzles]
    assert len(ids) == len(set(ids))
    assert {p.kind for p in puzzles} == set(KINDS)
    positions = [(p.kind, p.position) for p in puzzles]
    assert len(positions) == len(set(positions))
    assert by_id(ids[-1]) is puzzles[-1]
    with pytest.raises(UnknownPuzzle):
        by_id("5x5-0000000000")


def test_the_file_round_trips(tmp_path: Path) -> None:
    header, puzzles = read(PUZZLES_PATH)
    copy = tmp_path / "puzzles.jsonl"
    write(copy, header, reversed(puzzles))  # the writer puts them in the file's order
    assert copy.read_bytes() == PUZZLES_PATH.read_bytes()
    for puzzle in puzzles[:: max(1, len(puzzles) // 50)]:
        assert Puzzle.from_json(puzzle.to_json()) == puzzle
        assert puzzle.board().to_string() == puzzle.position


def test_a_damaged_line_is_refused(tmp_path: Path) -> None:
    _, puzzles = read(PUZZLES_PATH)
    line = puzzles[0].to_json().replace('"n":', '"n":"many","was":')
    bad = tmp_path / "bad.jsonl"
    bad.write_text(PUZZLES_PATH.read_text().splitlines()[0] + "\n" + line + "\n")
    with pytest.raises(BadPuzzleFile):
        read(bad)


def test_the_3x3_set_is_every_one_step_puzzle_and_regenerates_identically() -> None:
    shipped = [p for p in load() if p.kind == "3x3"]
    _, again = generate(budget=0, games={"5x5": 0, "ultimate": 0}, caps={"4x4": 0})
    lines = sorted(p.to_json() for p in again)
    assert lines == sorted(p.to_json() for p in shipped)
    assert 40 <= len(shipped) <= 60  # "about fifty"
    assert all(p.n >= 2 for p in shipped)
    assert all(isinstance(p.board(), Board) for p in shipped)


def test_generation_is_deterministic() -> None:
    games = {"5x5": 1, "ultimate": 8}
    first = generate(seed=7, games=games, caps={"4x4": 0})
    second = generate(seed=7, games=games, caps={"4x4": 0})
    assert first == second
    assert {p.kind for p in first[1]} >= {"3x3", "ultimate"}


def test_the_set_and_its_schedule_are_package_data() -> None:
    # The wheel (and so the Docker image, which installs it) takes engine's package data
    # by these patterns: both files must match one.
    root = Path(__file__).parents[1]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["engine"]
    for path in (PUZZLES_PATH, SCHEDULE_PATH):
        relative = path.relative_to(root / "engine").as_posix()
        assert any(fnmatch(relative, pattern) for pattern in patterns), relative


def test_the_walk_reaches_every_position_once_up_to_symmetry() -> None:
    # 3×3 against the census's every reachable position, each taken to its canonical
    # form independently (the proof search's): 627 still in play
    reference = {
        prover_for(b).game.canonical(b)[0]
        for b in reachable_positions(Board.new(3))
        if not b.is_over()
    }
    walked = list(positions(3, 3))
    assert len(walked) == len(reference) == 627
    assert {prover_for(b).game.canonical(b)[0] for b in walked} == reference
    assert [b.move_count for b in walked] == sorted(b.move_count for b in walked)


@pytest.mark.exhaustive  # walks 1,135,214 positions: 2-4 minutes of CPU, alone in CI
def test_the_4x4_set_is_every_4x4_puzzle_of_the_walk() -> None:
    shipped = sorted(p.to_json() for p in load() if p.kind == "4x4")
    walked, count = every_position("4x4", 10_000, examine)
    assert sorted(p.to_json() for p in walked) == shipped and len(shipped) == 1224
    assert count == 1_135_214 == read(PUZZLES_PATH)[0]["games"]["4x4"]  # type: ignore[index]


def test_a_4x4_puzzle_is_kept_when_easy_fails_it_though_medium_solves_it() -> None:
    # The lead's rule for 4×4 (a casual member, easy, missed the win); 5×5 and
    # ultimate still drop what medium solves.
    kept = [p for p in load() if p.kind == "4x4" and p.solved_by == ("medium",)]
    assert len(kept) > 1000
    puzzle = kept[0]
    assert examine(puzzle.board(), "4x4") == puzzle and problems(puzzle) == []
    assert dropped("4x4", ("easy", "medium")) and not dropped("4x4", ("easy",))
    assert dropped("5x5", ("medium",)) and dropped("ultimate", ("medium",))
    assert not dropped("3x3", ("easy", "medium"))


def test_one_board_regenerates_alone_and_the_others_stay_line_for_line(tmp_path: Path) -> None:
    out, plan = tmp_path / "puzzles.jsonl", tmp_path / "schedule.txt"
    shutil.copy(PUZZLES_PATH, out)
    shutil.copy(SCHEDULE_PATH, plan)
    header, puzzles = read(out)
    write(out, header, [p for p in puzzles if p.kind != "3x3" or p.n > 2])  # 3×3 damaged
    assert main(["--again", "--boards", "3x3", "--out", str(out), "--schedule", str(plan)]) == 0
    assert out.read_bytes() == PUZZLES_PATH.read_bytes()
    assert plan.read_bytes() == SCHEDULE_PATH.read_bytes()
    assert main(["--boards", "9x9", "--out", str(out)]) == 2


def test_the_4x4_walk_is_bounded_by_the_budget_and_replays_its_count() -> None:
    assert every_position("4x4", 10, examine, deadline=0.0) == ([], 0)  # no time: none
    assert every_position("4x4", 10, examine, walk=2000) == ([], 2000)  # a replay's count
    three, count = every_position("3x3", 1000, examine, walk=0, deadline=0.0)
    assert len(three) == 51 and count == 0  # 3×3 is always walked whole
