"""Hints: the best squares for the member to move against the bot, and why. Pure: no I/O.

The squares are the engine's exact answer: on 3×3 and 4×4 the moves with the best
depth-aware score (the fastest win, else a draw, else the slowest loss), on 5×5 the
moves that keep the game value, as many as are proven within :data:`SECONDS` (every one
whose position the opening book or the sparse table holds, and always at least one:
see :func:`engine.solver.best_moves_within`). A square that wins at once is always
preferred. Each square is then told apart by what it does on the board: it completes
a line, it stops the bot's line, it makes two threats at once, or it simply keeps what
the position is worth.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine import Board
from engine.solver import best_moves_within

Reason = Literal["win", "block", "fork", "value"]
REASONS: tuple[Reason, ...] = ("win", "block", "fork", "value")
"""The reasons a square is given, strongest first: a square gets the first that fits."""

INSTANT_CELLS = 9
"""Boards up to this size are answered on the spot (microseconds); larger ones away
from the event loop (a 4×4 search takes up to a second, an open 5×5 board much longer)."""
SECONDS = 0.4
"""Seconds a 5×5 hint spends proving more best squares once it has one: a member asks
and waits, so a hint answers within a second and says when other squares may be as good."""
TIME_LIMIT = 30.0
"""Seconds a hint's worker may take before the member is told to ask again later (a
worker that died and had to be replaced, say)."""


@dataclass(frozen=True, slots=True)
class Square:
    cell: int
    reason: Reason


@dataclass(frozen=True, slots=True)
class Hint:
    """The best squares of a running position for the side to move."""

    mark: str
    """The side the hint is for."""
    value: int
    """The game value for that side under perfect play: +1 win, 0 draw, -1 loss."""
    squares: tuple[Square, ...]
    """Best squares, ascending by cell; never empty."""
    complete: bool = True
    """False when other squares may be as good (an open 5×5 board: see :data:`SECONDS`)."""

    def cells(self, reason: Reason | None = None) -> tuple[int, ...]:
        """The best squares (with ``reason`` only, when one is given)."""
        return tuple(s.cell for s in self.squares if reason in (None, s.reason))


def hint_for(size: int, k: int, x: int, o: int) -> Hint:
    """The hint for the side to move on a running board given by plain values, so a
    process pool can run it.

    Raises:
        ValueError: the position is not a running game (InvalidBoard, or it is over).
    """
    board = Board(size, k, x, o)
    if board.is_over():
        raise ValueError("a finished game has no best square")
    geo = board.geometry
    me, opp = board.sides()
    legal = board.legal_moves()
    wins = [cell for cell in legal if geo.is_win(me | 1 << cell, cell)]
    if wins:
        value, best, complete = 1, wins, True
    else:
        found = best_moves_within(board, SECONDS)
        value, best, complete = found.value, list(found.moves), found.complete
    blocks = _completions(board, opp)
    squares = []
    for cell in best:
        mine = me | 1 << cell
        if cell in wins:
            reason: Reason = "win"
        elif blocks >> cell & 1:
            reason = "block"
        elif (_completions(board, mine) & ~(1 << cell)).bit_count() >= 2:
            reason = "fork"
        else:
            reason = "value"
        squares.append(Square(cell, reason))
    return Hint(board.to_move, value, tuple(squares), complete)


def _completions(board: Board, marks: int) -> int:
    """The empty cells where ``marks`` would complete a line: its threats."""
    geo = board.geometry
    empty = geo.full & ~(board.x | board.o)
    found = 0
    for window in geo.windows:
        missing = window & ~marks
        if missing & (missing - 1) == 0 and missing & empty:
            found |= missing
    return found
