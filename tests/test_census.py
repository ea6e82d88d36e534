from __future__ import annotations

from engine import Board, solve
from engine.census import count_games, reachable_positions


def test_classic_position_counts() -> None:
    positions = reachable_positions(Board.new())
    assert len(positions) == 5478
    assert sum(1 for board in positions if board.is_over()) == 958


def test_classic_game_counts() -> None:
    games = count_games(Board.new())
    assert (games.total, games.x_wins, games.o_wins, games.draws) == (
        255_168,
        131_184,
        77_904,
        46_080,
    )


def test_empty_board_is_a_draw() -> None:
    assert solve(Board.new()) == 0
