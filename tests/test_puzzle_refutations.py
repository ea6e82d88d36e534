"""The set's stored refutations (engine/puzzles/refutations.py): every 5×5 puzzle has one
string per solver's move along its line, each answer the one the search gives, and the
file refuses strings that do not fit."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from bot.core.puzzles.engine_calls import judge_move
from engine.puzzles import BadPuzzleFile, Puzzle, Verdict, load
from engine.puzzles.records import PUZZLES_PATH, read, write
from engine.puzzles.refutations import (
    ENDED,
    NONE,
    REFUTED_KINDS,
    decode,
    encode,
    stored,
    with_refutations,
)
from engine.puzzles.regenerate import refute


def positions(puzzle: Puzzle):  # type: ignore[no-untyped-def]
    """(moves so far, board) at each of the solver's moves along the line."""
    board = puzzle.board()
    for i in range(puzzle.n):
        yield puzzle.line[: 2 * i], board
        if i + 1 < puzzle.n:
            board = board.play(puzzle.line[2 * i]).play(puzzle.line[2 * i + 1])


def searched_again(puzzle: Puzzle) -> list[tuple[int, int, tuple[Verdict, int | None] | None]]:
    """Every stored answer beside the search's: (ply, cell, what the search says), for
    each entry where the two differ (empty when all agree)."""
    differ = []
    for moves, board in positions(puzzle):
        for cell in board.legal_moves():
            if cell == puzzle.line[len(moves)]:
                continue
            judged = judge_move(puzzle.kind, puzzle.position, moves, cell, puzzle.n, puzzle.line)
            expected = (
                None if judged.verdict in ("right", "solved")
                else (Verdict(judged.verdict), judged.reply)
            )  # fmt: skip
            if stored(puzzle, moves, cell) != expected:
                differ.append((len(moves), cell, expected))
    return differ


def test_answers_are_written_and_read_back() -> None:
    for verdict, cell in ((Verdict.WRONG, 0), (Verdict.WRONG, 24), (Verdict.SLOW, 7)):
        assert decode(encode(verdict, cell)) == (verdict, cell)
    assert decode(encode(Verdict.WRONG, None)) == (Verdict.WRONG, None) and ENDED == "#"
    assert encode(Verdict.RIGHT, 3) == NONE and decode(NONE) is None
    with pytest.raises(ValueError):
        encode(Verdict.SLOW, None)  # a slow move leaves the game running
    with pytest.raises(ValueError):
        decode("?")


def test_every_5x5_puzzle_stores_a_fitting_answer_for_each_other_move() -> None:
    puzzles = load()
    assert frozenset({"5x5"}) == REFUTED_KINDS
    assert all(not p.refutations for p in puzzles if p.kind != "5x5")
    fives = [p for p in puzzles if p.kind == "5x5"]
    assert len(fives) > 1500
    for puzzle in fives:
        assert len(puzzle.refutations) == puzzle.n, puzzle.id
        for (moves, board), row in zip(positions(puzzle), puzzle.refutations, strict=True):
            free = set(board.legal_moves())
            for cell, char in enumerate(row):
                answer = decode(char)
                if answer is None:
                    continue
                assert cell in free and cell != puzzle.line[len(moves)], (puzzle.id, cell)
                after = board.play(cell)
                _, refutation = answer
                assert (refutation is None) == after.is_over(), (puzzle.id, cell)
                assert refutation is None or refutation in after.legal_moves(), puzzle.id


def test_a_sample_of_answers_is_what_the_search_says() -> None:
    fives = [p for p in load() if p.kind == "5x5"]
    for puzzle in random.Random(54).sample(fives, 4):  # about 250 moves, 1 s
        assert searched_again(puzzle) == [], puzzle.id


@pytest.mark.exhaustive  # a tenth of the 5×5 set, ~11,000 moves: about 40 s of a core
def test_a_tenth_of_the_set_answers_as_the_search_does() -> None:
    fives = [p for p in load() if p.kind == "5x5"]
    for puzzle in fives[::10]:
        assert searched_again(puzzle) == [], puzzle.id


def test_stored_answers_only_on_the_line_at_the_solvers_turn() -> None:
    puzzle = next(p for p in load() if p.kind == "5x5")
    row = puzzle.refutations[0]
    cell = next(c for c, char in enumerate(row) if char != NONE)
    assert stored(puzzle, (), cell) == decode(row[cell])
    assert stored(puzzle, (), puzzle.line[0]) is None  # the line's own move
    assert stored(puzzle, puzzle.line[:1], cell) is None  # the defender's turn
    off = next(c for c in puzzle.board().legal_moves() if c != puzzle.line[0])
    other = next(c for c in puzzle.board().play(off).legal_moves() if c != puzzle.line[1])
    assert stored(puzzle, (off, other), cell) is None  # off the line
    assert stored(replace(puzzle, refutations=()), (), cell) is None


def test_a_set_gains_refutations_without_any_other_change(tmp_path: Path) -> None:
    out = tmp_path / "puzzles.jsonl"
    header, puzzles = read(PUZZLES_PATH)
    target = next(p for p in puzzles if p.kind == "5x5" and p.n == 3)
    bare = [replace(p, refutations=()) if p.id == target.id else p for p in puzzles]
    write(out, header, bare)
    assert out.read_bytes() != PUZZLES_PATH.read_bytes()
    assert refute(["--out", str(out), "--workers", "1"]) == 0
    assert out.read_bytes() == PUZZLES_PATH.read_bytes()
    assert with_refutations(puzzles, 2) == list(puzzles)  # nothing missing: nothing done


def test_refutations_that_do_not_fit_the_line_are_refused() -> None:
    puzzle = next(p for p in load() if p.kind == "5x5")
    first, *rest = puzzle.refutations
    for damaged in (tuple(rest), (first[:-1], *rest), (first[:-1] + "?", *rest)):
        with pytest.raises(BadPuzzleFile, match="refutations"):
            Puzzle.from_json(replace(puzzle, refutations=damaged).to_json())
    assert Puzzle.from_json(puzzle.to_json()) == puzzle
