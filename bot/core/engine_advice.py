"""Hints and reviews for ultimate tic-tac-toe: the engine's tree search, not a proof.

No exact solver reaches ultimate's positions, so a hint is the square the engine's Monte
Carlo tree search prefers after a short search, with its estimate of the member's
chances; a review marks the moves after which that estimate fell most, in the order
played, with the move the engine preferred (:func:`engine.ultimate.review.review_game`).
Both are plain functions of plain values, so a process pool runs them away from the
event loop. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import UltimateBoard
from engine.board import Mark
from engine.ultimate.review import ReviewedMove, evaluate, review_game

HINT_SECONDS = 0.6
"""The search a hint gets: a member asks and waits (the answer is deferred first)."""
REVIEW_TOP = 3
"""The costliest moves a review lists."""


@dataclass(frozen=True, slots=True)
class EngineHint:
    """The square the engine prefers for the side to move, and what it expects."""

    mark: Mark
    cell: int
    chances: float
    """The mover's expected score after the square, as the engine estimates it: 1 a win,
    0.5 a draw, 0 a loss."""
    wins_game: bool = False
    takes_board: bool = False
    """It wins the small board it is played in."""


def engine_hint(x: int, o: int, last: int, seconds: float = HINT_SECONDS) -> EngineHint:
    """The hint for the side to move on a running ultimate board given by its masks and
    last move (see :class:`~engine.UltimateBoard`).

    Raises:
        ValueError: not a running position (InvalidBoard, or the game is over).
    """
    board = UltimateBoard(x, o, last)
    if board.is_over():
        raise ValueError("a finished game has no best square")
    found = evaluate(board, seconds)
    assert found.best is not None  # the game runs
    after = board.play(found.best)
    mark = board.to_move
    return EngineHint(
        mark, found.best, found.value, wins_game=after.outcome() == mark,
        takes_board=after.board_status(found.best // 9) == mark,
    )  # fmt: skip


def engine_review(moves: tuple[int, ...], *, iterations: int | None = None) -> list[ReviewedMove]:
    """The :data:`REVIEW_TOP` moves of a finished ultimate game after which their player's
    chances fell most, in the engine's estimate, with the move it preferred; listed in the
    order played, as the classic boards' review lists every move. ``iterations``: playouts
    a position instead of the search time (a repeatable review, for tests).

    Raises:
        IllegalMove: ``moves`` is not a legal game.
    """
    costliest = review_game(moves, top=REVIEW_TOP, iterations=iterations)
    return sorted(costliest, key=lambda move: move.ply)
