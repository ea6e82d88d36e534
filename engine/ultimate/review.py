"""A finished game of ultimate tic-tac-toe, reviewed: where each side's chances fell most.

Every position of the game is evaluated by the engine's tree search (the expected score of
the side to move, 0 lost to 1 won, and the move it prefers); a move's cost is what its
player expected before it less what they can expect after it. The review lists the
costliest moves with the move the engine preferred, for the chat's and the page's review.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from engine.board import Mark
from engine.ultimate import mcts
from engine.ultimate.board import UltimateBoard
from engine.ultimate.fast import Position

REVIEW_SECONDS = 0.2
"""Search time per position: a 60-move game is reviewed in about 12 s."""


@dataclass(frozen=True, slots=True)
class Evaluation:
    value: float
    """The side to move's expected score: 1 a win, 0.5 a draw, 0 a loss (proved or estimated)."""
    best: int | None
    """The move the engine prefers (None once the game is over)."""


@dataclass(frozen=True, slots=True)
class ReviewedMove:
    ply: int
    """The move's index in the game (0 is X's first move)."""
    player: Mark
    move: int
    preferred: int
    before: float
    """The player's expected score before the move."""
    after: float
    """The player's expected score after it."""

    @property
    def drop(self) -> float:
        return self.before - self.after


def evaluate(
    board: UltimateBoard,
    seconds: float = REVIEW_SECONDS,
    iterations: int | None = None,
    seed: int | None = 0,
) -> Evaluation:
    """The engine's view of ``board``: searched for ``seconds`` (or ``iterations``
    playouts when given)."""
    outcome = board.outcome()
    if outcome is not None:
        mover = board.to_move
        return Evaluation(0.5 if outcome == "draw" else float(outcome == mover), None)
    tree = mcts.make_tree(Position.of(board))
    tree.search(
        seconds if iterations is None else None, iterations, random.Random(seed).getrandbits(64)
    )
    best = tree.best_moves()[0]
    stats = tree.child_stats(best)
    if stats is None:
        return Evaluation(0.5, best)
    visits, wins, proven = stats
    return Evaluation((proven + 1) / 2 if proven is not None else wins / visits, best)


def review_game(
    moves: Sequence[int],
    *,
    top: int = 3,
    seconds: float = REVIEW_SECONDS,
    iterations: int | None = None,
    seed: int | None = 0,
) -> list[ReviewedMove]:
    """The ``top`` moves of a game (from the empty board) after which their player's
    expected score fell most, largest fall first; only moves other than the engine's
    choice that lost something.

    Raises:
        IllegalMove: ``moves`` is not a legal game.
    """
    boards = [UltimateBoard.new()]
    for cell in moves:
        boards.append(boards[-1].play(cell))
    evaluations = [evaluate(b, seconds, iterations, seed) for b in boards]
    reviewed = []
    for ply, cell in enumerate(moves):
        before, after = evaluations[ply], evaluations[ply + 1]
        if before.best is None or before.best == cell:
            continue
        mover_after = 1.0 - after.value  # ``after`` is the opponent's view
        if before.value > mover_after:
            reviewed.append(
                ReviewedMove(ply, boards[ply].to_move, cell, before.best, before.value, mover_after)
            )
    reviewed.sort(key=lambda r: (-r.drop, r.ply))
    return reviewed[:top]
