"""Post-game review: every move with the engine's exact verdict. Pure: no I/O."""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.models import Game
from engine import Board, best_moves, solve, to_rowcol

REVIEWABLE_CELLS = 9
"""Exact verdicts are instant on 3×3; larger boards need issue 5's budgeted search."""


@dataclass(frozen=True, slots=True)
class MoveVerdict:
    number: int
    mark: str
    cell: int
    before: int
    """Game value for the mover before the move: +1 won, 0 drawn, -1 lost (perfect play)."""
    after: int
    """The same value once the move is made."""
    best: tuple[int, ...]
    """The moves that kept the most (fastest win, else draw, else slowest loss)."""

    @property
    def mistake(self) -> bool:
        return self.after < self.before


def reviewable(game: Game) -> bool:
    return game.size * game.size <= REVIEWABLE_CELLS


def review(game: Game) -> list[MoveVerdict]:
    """Judge every move of ``game`` with :func:`engine.solve`.

    Raises:
        ValueError: the board is too large to solve exactly (see :func:`reviewable`).
    """
    if not reviewable(game):
        raise ValueError(f"exact review covers boards up to {REVIEWABLE_CELLS} cells")
    board = Board.new(game.size, game.k)
    verdicts = []
    for number, cell in enumerate(game.moves, start=1):
        before = solve(board)
        best = tuple(best_moves(board))
        after_board = board.play(cell)
        after = _value_for_mover(after_board, board.to_move)
        verdicts.append(MoveVerdict(number, board.to_move, cell, before, after, best))
        board = after_board
    return verdicts


def _value_for_mover(board: Board, mover: str) -> int:
    outcome = board.outcome()
    if outcome == "draw":
        return 0
    if outcome is not None:
        return 1 if outcome == mover else -1
    return -solve(board)  # the opponent is to move now


def cell_name(cell: int, size: int) -> str:
    """Chess-like square names: columns A.., rows 1.. from the top (A1 is top left)."""
    row, col = to_rowcol(cell, size)
    return f"{chr(ord('A') + col)}{row + 1}"
