"""Exhaustive enumeration of a game: positions and games, by outcome.

Reproduces the classic 3×3 facts: 5,478 reachable positions (the empty board included),
958 of them terminal, and 255,168 possible games.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.board import Board


@dataclass(frozen=True, slots=True)
class GameCount:
    total: int
    x_wins: int
    o_wins: int
    draws: int

    def __add__(self, other: GameCount) -> GameCount:
        return GameCount(
            self.total + other.total,
            self.x_wins + other.x_wins,
            self.o_wins + other.o_wins,
            self.draws + other.draws,
        )


def reachable_positions(start: Board) -> set[Board]:
    """Every position reachable from ``start`` by legal play, ``start`` included."""
    seen = {start}
    frontier = [start]
    while frontier:
        board = frontier.pop()
        for cell in board.legal_moves():
            child = board.play(cell)
            if child not in seen:
                seen.add(child)
                frontier.append(child)
    return seen


def count_games(start: Board) -> GameCount:
    """Number of distinct move sequences from ``start`` to the end of the game, by result."""
    memo: dict[Board, GameCount] = {}

    def count(board: Board) -> GameCount:
        cached = memo.get(board)
        if cached is not None:
            return cached
        outcome = board.outcome()
        if outcome is None:
            result = GameCount(0, 0, 0, 0)
            for cell in board.legal_moves():
                result = result + count(board.play(cell))
        else:
            result = GameCount(1, int(outcome == "X"), int(outcome == "O"), int(outcome == "draw"))
        memo[board] = result
        return result

    return count(start)
