"""5×5 exact values and value-keeping moves, checked against an independent solver."""

from __future__ import annotations

import random

import pytest

from engine import Board, best_moves, book, exact, get_agent, solve

import exact_reference as ref


def adversary_moves(board: Board) -> list[int]:
    """The moves that keep the mover's value, judged by the book where it reaches."""
    values = {}
    for cell in board.legal_moves():
        after = board.play(cell)
        if after.is_over():
            values[cell] = 0 if after.outcome() == "draw" else 1
        else:
            known = book.value(after)
            values[cell] = -(exact.board_value(after) if known is None else known)
    top = max(values.values())
    return [cell for cell, value in values.items() if value == top]


def sampled(marks: int, count: int, seed: int, keeping: bool) -> list[Board]:
    """Running 5×5 positions with ``marks`` marks, reached by random moves or, with
    ``keeping``, by unbeatable against random value-keeping moves (mostly drawn lines,
    the hardest to prove)."""
    rng = random.Random(seed)
    found: list[Board] = []
    while len(found) < count:
        board = Board.new(5)
        bot = get_agent("unbeatable", seed=rng.getrandbits(32))
        side = rng.choice("XO")
        while board.move_count < marks and not board.is_over():
            if not keeping:
                board = board.play(rng.choice(board.legal_moves()))
            elif board.to_move == side:
                board = board.play(bot.choose(board))
            else:
                board = board.play(rng.choice(adversary_moves(board)))
        if not board.is_over() and board not in found:
            found.append(board)
    return found


@pytest.mark.parametrize("keeping", [True, False])
@pytest.mark.parametrize("marks", [6, 7, 8, 9, 10])
def test_solve_and_value_keeping_moves_match_the_reference(marks: int, keeping: bool) -> None:
    for board in sampled(marks, 2, seed=marks, keeping=keeping):
        text = board.to_string()
        value, keep = ref.Solver().keeping(text)
        assert solve(board) == value, text
        assert set(best_moves(board)) == keep, text


@pytest.mark.parametrize("marks", [10, 11, 12, 13, 14])
def test_the_pairing_shortcut_changes_no_answer(marks: int) -> None:
    """Here the reference can run without pairing proofs: the engine and both variants
    of the reference must agree, so neither side's pairing argument hides a mistake."""
    for board in sampled(marks, 4, seed=100 + marks, keeping=True):
        text = board.to_string()
        plain = ref.Solver(pairing=False).keeping(text)
        assert ref.Solver(pairing=True).keeping(text) == plain, text
        assert (solve(board), set(best_moves(board))) == plain, text


# Two positions from issue 15 (O to move) that the old budgeted search lost: X's winning
# double threat lies two cells from every mark, where it never looked.
ISSUE_POSITIONS = ["......X.XO.XOX..O........", "......XXO...O...XX...O..."]


@pytest.mark.parametrize("text", ISSUE_POSITIONS)
def test_the_issue_positions_are_held(text: str) -> None:
    board = Board.from_string(text)
    value, keep = ref.Solver().keeping(text)
    assert (solve(board), set(best_moves(board))) == (value, keep)
    for name in ("hard", "unbeatable"):
        for seed in range(3):
            move = get_agent(name, seed=seed, time_budget=0.5).choose(board)
            assert move in keep, (name, seed, move)
