"""A heuristic for ultimate tic-tac-toe and a depth-limited negamax over it.

The heuristic counts what a player of the game looks at: small boards won (the centre
one most), lines of won boards one board from complete, and two-in-a-rows inside small
boards still open. Negamax with alpha-beta searches it to a fixed depth, deepening one
ply at a time until a deadline, so a wide position (a free move: up to 81 replies) costs
time, not a stall.
"""

from __future__ import annotations

import time

from engine.ultimate.fast import Position, moves
from engine.ultimate.tables import FULL9, SQUARES, TWO_LINES, WINS

WIN_SCORE = 1_000_000
BOARD_WEIGHT = (3, 2, 3, 2, 4, 2, 3, 2, 3)
"""How much a small board is worth by its place: the centre lies on four lines, corners
on three, edges on two."""
WON_BOARD = 40
BIG_THREAT = 120
SMALL_THREAT = 6
CENTRE_SQUARE = 2


class OutOfTime(Exception):
    """The deadline passed inside the search; the last complete depth stands."""


def evaluate(me: list[int], them: list[int], mine_won: int, theirs_won: int, done: int) -> int:
    """The position's worth to the side to move (a game not yet won by either)."""
    score = 0
    for b in SQUARES[mine_won]:
        score += WON_BOARD * BOARD_WEIGHT[b]
    for b in SQUARES[theirs_won]:
        score -= WON_BOARD * BOARD_WEIGHT[b]
    drawn = done & ~(mine_won | theirs_won)
    score += BIG_THREAT * sum(1 for ln in TWO_LINES[mine_won] if not ln & (theirs_won | drawn))
    score -= BIG_THREAT * sum(1 for ln in TWO_LINES[theirs_won] if not ln & (mine_won | drawn))
    for b in SQUARES[FULL9 & ~done]:
        m, t = me[b], them[b]
        weight = BOARD_WEIGHT[b]
        score += SMALL_THREAT * weight * sum(1 for ln in TWO_LINES[m] if not ln & t)
        score -= SMALL_THREAT * weight * sum(1 for ln in TWO_LINES[t] if not ln & m)
        score += CENTRE_SQUARE * ((m >> 4 & 1) - (t >> 4 & 1))
    return score


def negamax(
    p: Position, depth: int, alpha: int, beta: int, ply: int, deadline: float | None
) -> int:
    """The position's negamax value to ``depth`` plies (wins sooner score higher)."""
    if deadline is not None and time.perf_counter() > deadline:
        raise OutOfTime
    cells = moves(p.me, p.them, p.done, p.forced, p.theirs_won)
    if not cells:
        return -(WIN_SCORE - ply) if WINS[p.theirs_won] else 0
    if depth == 0:
        return evaluate(p.me, p.them, p.mine_won, p.theirs_won, p.done)
    best = -WIN_SCORE - 1
    for cell in _ordered(p, cells):
        child = p.copy()
        if child.play(cell):
            return WIN_SCORE - ply - 1
        value = -negamax(child, depth - 1, -beta, -alpha, ply + 1, deadline)
        if value > best:
            best = value
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    return best


def _ordered(p: Position, cells: list[int]) -> list[int]:
    """Moves that win a small board first, then ones that send the opponent to a decided
    board last (a free move is a gift), the rest between."""

    def key(cell: int) -> int:
        b, s = divmod(cell, 9)
        if WINS[p.me[b] | 1 << s]:
            return 0
        return 2 if p.done >> s & 1 else 1

    return sorted(cells, key=key)


def scores(p: Position, depth: int, deadline: float | None = None) -> dict[int, int]:
    """Each legal move's negamax value to ``depth`` plies in all, searched one depth
    after another until ``deadline``: the deepest complete depth's values.

    Raises:
        ValueError: the game is over (no legal move).
    """
    cells = p.moves()
    if not cells:
        raise ValueError("the game is over")
    result: dict[int, int] = {}
    for d in range(1, depth + 1):
        current: dict[int, int] = {}
        try:
            for cell in cells:
                child = p.copy()
                if child.play(cell):
                    current[cell] = WIN_SCORE - 1
                else:
                    current[cell] = -negamax(
                        child, d - 1, -WIN_SCORE - 1, WIN_SCORE + 1, 1, deadline
                    )
        except OutOfTime:
            break
        result = current
    if not result:  # not even one ply in time: the wins, else every move alike
        result = {cell: 0 for cell in cells}
    return result
