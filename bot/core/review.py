"""Post-game review: every move with the engine's exact verdict. Pure: no I/O."""

from __future__ import annotations

import time
from dataclasses import dataclass

from bot.core.models import Game
from engine import Board, solve, to_rowcol
from engine.solver import best_moves_within

INSTANT_CELLS = 9
"""Boards up to this size are reviewed in microseconds; larger ones (4×4 and 5×5, up
to about a second) away from the event loop (see :class:`bot.core.records.RecordsService`)."""
SECONDS = 0.3
"""Seconds from a 5×5 review's start after which its mistakes get no more best squares
than one each (the values of the moves are always all worked out, however long)."""


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
    """Where the move was a mistake, the moves that kept the value (on 3×3 and 4×4 the
    fastest win, else draw, else slowest loss); empty otherwise: working them out for
    every move of a 5×5 game would take minutes and nobody reads them."""
    complete: bool = True
    """False when other moves may have kept the value too (a 5×5 review lists the best
    moves proven within :data:`SECONDS`)."""

    @property
    def mistake(self) -> bool:
        return self.after < self.before


def reviewable(game: Game) -> bool:
    """Every finished game can be reviewed exactly, on every size the bot offers."""
    return not game.running


def instant(game: Game) -> bool:
    return game.size * game.size <= INSTANT_CELLS


def review(game: Game) -> list[MoveVerdict]:
    """Judge every move of ``game`` with the engine's exact :func:`engine.solve`."""
    return review_moves(game.size, game.k, game.moves)


def review_moves(size: int, k: int, moves: tuple[int, ...]) -> list[MoveVerdict]:
    """The verdicts for a game given by its moves: a plain function of plain values, so
    a process pool can run it."""
    board = Board.new(size, k)
    verdicts = []
    deadline = time.monotonic() + SECONDS
    for number, cell in enumerate(moves, start=1):
        before = solve(board)
        after_board = board.play(cell)
        after = _value_for_mover(after_board, board.to_move)
        best: tuple[int, ...] = ()
        complete = True
        if after < before:
            found = best_moves_within(board, max(0.0, deadline - time.monotonic()))
            best, complete = found.moves, found.complete
        verdicts.append(MoveVerdict(number, board.to_move, cell, before, after, best, complete))
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
