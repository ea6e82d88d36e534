"""The exact search agrees with an independent solver on every reachable 3×3 position."""

from __future__ import annotations

import pytest

from engine import Board, best_moves, solve
from engine.census import reachable_positions
from engine.search import score

import reference_solver as ref

RUNNING = sorted(
    (b for b in reachable_positions(Board.new()) if not b.is_over()), key=Board.to_string
)


def test_the_running_positions_are_the_references() -> None:
    """The engine's census and the reference's own walk find the same running positions."""
    reference = {p for p in ref.positions() if ref.winner(p, 3) is None and "." in p}
    assert {b.to_string() for b in RUNNING} == reference
    assert len(reference) == 4520


def test_solve_matches_the_reference_everywhere() -> None:
    for board in RUNNING:
        assert solve(board) == ref.value(board.to_string())[0], board.to_string()


def test_best_moves_are_exactly_the_fastest_wins_or_slowest_losses() -> None:
    for board in RUNNING:
        assert set(best_moves(board)) == ref.best_cells(board.to_string()), board.to_string()


def test_depth_aware_score_counts_empty_cells_after_the_win() -> None:
    # X to move wins at once on 2: six cells stay empty... after the move: 9 - 5 = 4 empty.
    board = Board.from_string("XX.OO....")
    assert score(board) == 5  # 1 + 4 empty cells left after the winning move
    assert solve(board) == 1
    # O to move, no line of its own, and X threatens 2 and 6 at once: O is lost
    assert solve(Board.from_string("XX.XO...O")) == -1
    assert ref.value("XX.XO...O") == (-1, 2)
    # O to move wins at once on 5, whatever X threatens
    assert solve(Board.from_string("XX.OO..X.")) == 1
    assert best_moves(Board.from_string("XX.OO..X.")) == [5]


@pytest.mark.parametrize("text", ["XXXOO....", "XOXXOOOXX"])
def test_finished_games_have_a_value(text: str) -> None:
    board = Board.from_string(text)
    assert solve(board) == {"draw": 0, "X": -1, "O": -1}[board.outcome()]
