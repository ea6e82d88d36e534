"""Windows heuristics and depth-limited lookahead (the seeds' easy and medium players).

A *window* is a run of k cells. The seeds score a position by counting windows that one
side fills completely (k) or nearly (k - 1 marks, the last cell empty), with weights that
favour the side the evaluation is for. These functions are the corrected versions: every
window counts (seed 001 read the main diagonal twice and missed the anti-diagonal), and
the lookahead's opponent really places its marks (seed 000's minimiser never did).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.board import Board
from engine.geometry import Geometry, iter_cells


@dataclass(frozen=True, slots=True)
class Weights:
    """Points per window: ``own_full`` for a completed window of ours, ``own_open`` for
    k-1 of ours and one empty cell, ``opp_open`` and ``opp_full`` likewise for the opponent
    (usually negative)."""

    own_full: float
    own_open: float
    opp_open: float
    opp_full: float


ONE_STEP = Weights(own_full=1000, own_open=1, opp_open=-100, opp_full=0)
"""Seed 001's weights: +1000 a line, +1 an open two, -100 an opponent's open two."""

N_STEP = Weights(own_full=100_000, own_open=1, opp_open=-100, opp_full=-1000)
"""Seed 000's weights, which also charge -1000 for an opponent's line."""


def evaluate(geo: Geometry, me: int, opp: int, weights: Weights) -> float:
    """Score the position for the side holding ``me``."""
    k = geo.k
    total = 0.0
    for window in geo.windows:
        mine = (me & window).bit_count()
        theirs = (opp & window).bit_count()
        if theirs == 0:
            if mine == k:
                total += weights.own_full
            elif mine == k - 1:
                total += weights.own_open
        elif mine == 0:
            if theirs == k:
                total += weights.opp_full
            elif theirs == k - 1:
                total += weights.opp_open
    return total


def one_step_scores(board: Board, weights: Weights = ONE_STEP) -> dict[int, float]:
    """Seed 001's one-step lookahead: each move scored by the position it leaves."""
    geo = board.geometry
    me, opp = board.sides()
    return {cell: evaluate(geo, me | 1 << cell, opp, weights) for cell in board.legal_moves()}


def lookahead_scores(board: Board, depth: int, weights: Weights = N_STEP) -> dict[int, float]:
    """Seed 000's n-step lookahead, corrected: depth-limited minimax over ``depth`` plies
    (this move included), the heuristic always read for the root player, the opponent
    placing its own marks. Among equal lines, a sooner win counts a little more."""
    if depth < 1:
        raise ValueError(f"lookahead depth must be at least 1, got {depth}")
    geo = board.geometry
    me, opp = board.sides()
    empty = geo.full & ~(me | opp)
    return {
        cell: -_negamax(
            geo,
            opp,
            me | 1 << cell,
            empty & ~(1 << cell),
            cell,
            depth - 1,
            False,
            weights,
            float("-inf"),
            float("inf"),
        )
        for cell in iter_cells(empty)
    }


def _negamax(
    geo: Geometry,
    mover: int,
    last_player: int,
    empty: int,
    last: int,
    depth: int,
    root_to_move: bool,
    weights: Weights,
    alpha: float,
    beta: float,
) -> float:
    """Value for ``mover`` of the heuristic read for the root player (negated when the
    mover is the root's opponent), ``last_player`` having just marked ``last``."""
    root, other = (mover, last_player) if root_to_move else (last_player, mover)
    if geo.is_win(last_player, last) or not empty or depth == 0:
        value = evaluate(geo, root, other, weights)
        if geo.is_win(last_player, last):
            value += depth if not root_to_move else -depth  # prefer sooner wins, later losses
        return value if root_to_move else -value
    best = float("-inf")
    for cell in iter_cells(empty):
        value = -_negamax(
            geo,
            last_player,
            mover | 1 << cell,
            empty & ~(1 << cell),
            cell,
            depth - 1,
            not root_to_move,
            weights,
            -beta,
            -alpha,
        )
        if value > best:
            best = value
            alpha = max(alpha, value)
            if alpha >= beta:
                break
    return best


def shape_scores(board: Board) -> dict[int, int]:
    """Each move scored by the windows it builds and the windows it takes away: a window
    still open for the mover counts 8 ** (its marks), one still open for the opponent
    half that (the centre, in the most windows, leads on an empty board)."""
    geo = board.geometry
    me, opp = board.sides()
    scores = {}
    for cell in board.legal_moves():
        score = 0
        for window in geo.windows_through[cell]:
            if not window & opp:
                score += 2 * 8 ** (window & me).bit_count()
            if not window & me:
                score += 8 ** (window & opp).bit_count()
        scores[cell] = score
    return scores
