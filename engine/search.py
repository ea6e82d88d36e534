"""Exact search: negamax with alpha-beta and a transposition table.

Positions are ``(me, opp)`` bitmask pairs, ``me`` being the side to move. Scores are
depth-aware and from the mover's view: a win scores ``1 + empty cells left after the
winning move`` (a faster win scores more), a loss the negation (a slower loss scores
more), a draw 0. ``solve`` reduces a score to its sign: the game value.

Tables are kept per geometry for the life of the process, filled at first use; nothing
is precomputed on disk.

Boards larger than :data:`DEPTH_AWARE_CELLS` (5×5) are too large for depth-aware scores
in Python: :mod:`engine.solver` answers those from the opening book, the sparse table
and :mod:`engine.exact`, which searches the sign alone. This module never consults the
book or the sparse table: they are built by searching, so the search stays below them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.board import Board
from engine.geometry import Geometry, iter_cells

_EXACT, _LOWER, _UPPER = 0, 1, 2
DEPTH_AWARE_CELLS = 16
"""Boards up to this many cells (3×3, 4×4) get depth-aware scores: the fastest win, the
slowest loss. Larger ones get the sign alone."""
MAX_TABLE_ENTRIES = 1_000_000
"""A table past this many entries is emptied and refilled: about 100 MB at most."""


@dataclass
class SearchTables:
    """Memory shared by every exact search on one geometry."""

    geo: Geometry
    tt: dict[int, int] = field(default_factory=dict)
    """position key -> score * 4 + bound flag (a plain int costs far less than a tuple)."""
    root_scores: dict[int, dict[int, int]] = field(default_factory=dict)
    completions: dict[int, int] = field(default_factory=dict)
    """marks -> cells that would complete a window for them (occupied or not)."""


_TABLES: dict[tuple[int, int], SearchTables] = {}
MAX_COMPLETIONS = 1_000_000
"""Marks whose completions a geometry's tables keep; past it they are worked out anew."""


def tables_for(geo: Geometry) -> SearchTables:
    """The process-wide tables of a geometry, created on first use."""
    tables = _TABLES.get((geo.size, geo.k))
    if tables is None:
        tables = _TABLES[(geo.size, geo.k)] = SearchTables(geo)
    return tables


def clear_tables() -> None:
    """Forget every table (for benchmarks that measure a cold start)."""
    _TABLES.clear()


def key_of(geo: Geometry, me: int, opp: int) -> int:
    return me | opp << geo.cells


def winning_cells(tables: SearchTables, marks: int, empty: int) -> int:
    """Mask of the empty cells where ``marks`` would complete a window."""
    found = tables.completions.get(marks)
    if found is None:
        found = 0
        for window in tables.geo.windows:
            missing = window & ~marks
            if missing & (missing - 1) == 0:
                found |= missing
        if len(tables.completions) >= MAX_COMPLETIONS:  # a long puzzle generation, say
            tables.completions.clear()
        tables.completions[marks] = found
    return found & empty


def negamax(tables: SearchTables, me: int, opp: int, alpha: int, beta: int) -> int:
    """Depth-aware score of a running position (no line yet, at least one empty cell).

    Fail-soft alpha-beta: the result is exact when strictly inside ``(alpha, beta)``,
    else a bound on the correct side.
    """
    geo = tables.geo
    empty = geo.full & ~(me | opp)
    after = empty.bit_count() - 1  # empty cells once this move is made
    if winning_cells(tables, me, empty):
        return after + 1
    if after == 0:
        return 0
    threats = winning_cells(tables, opp, empty)
    if threats & (threats - 1):
        return -after  # two threats cannot both be blocked: the opponent wins next move
    # Without an immediate win the best we can hope for is a win on our next move.
    if beta > after - 1:
        beta = after - 1
        if alpha >= beta:
            return beta
    key = me | opp << geo.cells
    entry = tables.tt.get(key)
    if entry is not None:
        value, flag = entry >> 2, entry & 3
        if flag == _EXACT:
            return value
        if flag == _LOWER:
            if value >= beta:
                return value
            alpha = max(alpha, value)
        elif value <= alpha:
            return value
        else:
            beta = min(beta, value)
    start_alpha = alpha
    best = -after - 1
    # A single threat must be blocked: every other move loses at once.
    for cell in iter_cells(threats or empty):
        value = -negamax(tables, opp, me | 1 << cell, -beta, -alpha)
        if value > best:
            best = value
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    if len(tables.tt) >= MAX_TABLE_ENTRIES:
        tables.tt.clear()
    if best <= start_alpha:
        tables.tt[key] = best << 2 | _UPPER
    elif best >= beta:
        tables.tt[key] = best << 2 | _LOWER
    else:
        tables.tt[key] = best << 2 | _EXACT
    return best


def child_score(tables: SearchTables, me: int, opp: int, cell: int) -> int:
    """Exact depth-aware score, for the mover, of playing ``cell``."""
    geo = tables.geo
    mine = me | 1 << cell
    after = geo.full & ~(mine | opp)
    if geo.is_win(mine, cell):
        return after.bit_count() + 1
    if not after:
        return 0
    bound = geo.cells + 1
    return -negamax(tables, opp, mine, -bound, bound)


def move_scores(board: Board) -> dict[int, int]:
    """Exact depth-aware score of every legal move, from the mover's view."""
    tables = tables_for(board.geometry)
    me, opp = board.sides()
    key = key_of(tables.geo, me, opp)
    scores = tables.root_scores.get(key)
    if scores is None:
        # Symmetric moves score alike: search one move of each class.
        reps = tables.geo.representatives(board.x, board.o, tables.geo.full & ~(me | opp))
        by_rep = {rep: child_score(tables, me, opp, rep) for rep in set(reps.values())}
        scores = {cell: by_rep[rep] for cell, rep in reps.items()}
        tables.root_scores[key] = scores
    return scores


@dataclass(frozen=True, slots=True)
class BestMoves:
    """The game value of a running position for the side to move, and its best moves."""

    value: int
    """+1 win, 0 draw, -1 loss under perfect play."""
    moves: tuple[int, ...]
    """Best moves, ascending; never empty. Each is proven."""
    complete: bool
    """True when ``moves`` holds every best move; False when the time ran out first."""


def best_scored(board: Board) -> BestMoves:
    """The game value of a running ``board`` of at most :data:`DEPTH_AWARE_CELLS` cells
    and every move with the best depth-aware score (always complete)."""
    scores = move_scores(board)
    top = max(scores.values())
    best = tuple(cell for cell, score in scores.items() if score == top)
    return BestMoves((top > 0) - (top < 0), best, True)


def score(board: Board) -> int:
    """Depth-aware exact score of the position for the side to move (0 if the game is over
    in a draw; a finished game with a winner scores for the side to move as a loss).
    Practical up to :data:`DEPTH_AWARE_CELLS` cells; use :func:`engine.solver.solve`
    beyond."""
    outcome = board.outcome()
    if outcome == "draw":
        return 0
    if outcome is not None:
        return -((board.geometry.full & ~(board.x | board.o)).bit_count() + 1)
    return max(move_scores(board).values())
