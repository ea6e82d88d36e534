"""Budgeted search for boards too large to solve: iterative deepening alpha-beta.

Scores are from the mover's view: ``WIN - ply`` for a win found ``ply`` plies ahead (a
sooner win scores more), its negation for a loss, otherwise a threat-aware windows
evaluation. Every node first looks for an immediate win, a double threat against it
(lost) or a single threat (only the block is searched), so the search never misses a
win or a block however shallow the budget leaves it. The deepest fully searched depth
decides; a deadline stops the deepening.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from engine.board import Board
from engine.geometry import Geometry, iter_cells
from engine.search import MAX_TABLE_ENTRIES, SearchTables, tables_for, winning_cells

WIN = 1_000_000
_EXACT, _LOWER, _UPPER = 0, 1, 2
CHECK_EVERY = 512
"""Nodes between looks at the clock."""


class _OutOfTime(Exception):
    pass


def window_weights(k: int) -> tuple[int, ...]:
    """Points for a window holding n marks of one side and nothing of the other: each
    mark closer to a line is worth eight times more (a k-1 window is a threat)."""
    return tuple(0 if n == 0 else 8 ** (n - 1) for n in range(k + 1))


def evaluate(geo: Geometry, me: int, opp: int, weights: tuple[int, ...]) -> int:
    """Threat-aware static value for the side to move (``me``)."""
    score = 0
    for window in geo.windows:
        mine, theirs = me & window, opp & window
        if not theirs:
            score += weights[mine.bit_count()]
        elif not mine:
            score -= weights[theirs.bit_count()]
    return score


@dataclass
class DeepeningTables:
    geo: Geometry
    exact: SearchTables
    weights: tuple[int, ...]
    neighbours: tuple[int, ...]
    """For each cell, the mask of cells within one step (king moves)."""
    tt: dict[int, tuple[int, int, int, int]] = field(default_factory=dict)
    """key -> (depth, flag, score, best move)."""


_TABLES: dict[tuple[int, int], DeepeningTables] = {}


def _tables(geo: Geometry) -> DeepeningTables:
    tables = _TABLES.get((geo.size, geo.k))
    if tables is None:
        neighbours = []
        for cell in range(geo.cells):
            r, c = divmod(cell, geo.size)
            mask = 0
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    if 0 <= r + dr < geo.size and 0 <= c + dc < geo.size:
                        mask |= 1 << ((r + dr) * geo.size + c + dc)
            neighbours.append(mask)
        tables = DeepeningTables(geo, tables_for(geo), window_weights(geo.k), tuple(neighbours))
        _TABLES[(geo.size, geo.k)] = tables
    return tables


class _Search:
    def __init__(self, tables: DeepeningTables, deadline: float) -> None:
        self.t = tables
        self.deadline = deadline
        self.nodes = 0

    def candidates(self, me: int, opp: int, empty: int) -> list[int]:
        """Empty cells next to a mark (the centre on an empty board), most promising first."""
        geo, t = self.t.geo, self.t
        marks = me | opp
        if not marks:
            centre = geo.size // 2
            return [centre * geo.size + centre]
        near = 0
        for cell in iter_cells(marks):
            near |= t.neighbours[cell]
        near &= empty
        weights = t.weights
        scored = []
        for cell in iter_cells(near):
            value = 0
            for window in geo.windows_through[cell]:
                mine, theirs = me & window, opp & window
                if not theirs:
                    value += weights[mine.bit_count() + 1]  # what playing here builds
                if not mine:
                    value += weights[theirs.bit_count() + 1] // 2  # what it takes away
            scored.append((value, cell))
        scored.sort(reverse=True)
        return [cell for _, cell in scored]

    def negamax(self, me: int, opp: int, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        if self.nodes % CHECK_EVERY == 0 and time.perf_counter() > self.deadline:
            raise _OutOfTime
        t = self.t
        empty = t.geo.full & ~(me | opp)
        if winning_cells(t.exact, me, empty):
            return WIN - ply
        if not empty:
            return 0
        threats = winning_cells(t.exact, opp, empty)
        if threats & (threats - 1):
            return -(WIN - ply - 1)
        if depth <= 0:
            return evaluate(t.geo, me, opp, t.weights)
        key = me | opp << t.geo.cells
        entry = t.tt.get(key)
        first = -1
        if entry is not None:
            stored_depth, flag, value, first = entry
            if stored_depth >= depth:
                if flag == _EXACT:
                    return value
                if flag == _LOWER and value >= beta:
                    return value
                if flag == _UPPER and value <= alpha:
                    return value
        moves = list(iter_cells(threats)) if threats else self.candidates(me, opp, empty)
        if first in moves:
            moves.remove(first)
            moves.insert(0, first)
        start_alpha, best, best_move = alpha, -WIN - 1, moves[0]
        for cell in moves:
            value = -self.negamax(opp, me | 1 << cell, depth - 1, -beta, -alpha, ply + 1)
            if value > best:
                best, best_move = value, cell
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        flag = _UPPER if best <= start_alpha else _LOWER if best >= beta else _EXACT
        if len(t.tt) >= MAX_TABLE_ENTRIES:
            t.tt.clear()
        t.tt[key] = (depth, flag, best, best_move)
        return best


@dataclass(frozen=True, slots=True)
class DeepeningResult:
    moves: list[int]
    """The moves that scored best at the deepest completed depth, ascending."""
    score: int
    depth: int
    nodes: int


def deepening_search(
    board: Board, time_budget: float, max_depth: int | None = None
) -> DeepeningResult:
    """Search ``board`` deeper and deeper until ``time_budget`` seconds pass (or
    ``max_depth`` plies are done) and return the best moves found.

    Raises:
        ValueError: the game is over.
    """
    if board.is_over():
        raise ValueError("the game is over")
    tables = _tables(board.geometry)
    me, opp = board.sides()
    empty = tables.geo.full & ~(me | opp)
    search = _Search(tables, time.perf_counter() + time_budget)
    wins = winning_cells(tables.exact, me, empty)
    if wins:
        return DeepeningResult(sorted(iter_cells(wins)), WIN, 0, 0)
    threats = winning_cells(tables.exact, opp, empty)
    if threats:  # block (two threats: every move loses, so block one of them)
        return DeepeningResult(sorted(iter_cells(threats)), -WIN if threats & (threats - 1) else 0,
                               0, 0)  # fmt: skip
    roots = search.candidates(me, opp, empty)
    best = DeepeningResult(roots[:1], 0, 0, 0)
    limit = max_depth or empty.bit_count()
    for depth in range(1, limit + 1):
        try:
            scores = {}
            alpha = -WIN - 1
            for cell in roots:
                # a window one below the best so far keeps exact ties among the top moves
                value = -search.negamax(opp, me | 1 << cell, depth - 1, -WIN - 1, -(alpha - 1), 1)
                scores[cell] = value
                alpha = max(alpha, value)
        except _OutOfTime:
            break
        top = max(scores.values())
        best = DeepeningResult(sorted(c for c, v in scores.items() if v == top), top, depth,
                               search.nodes)  # fmt: skip
        roots.sort(key=lambda c: -scores[c])  # search the best first next time
        if abs(top) >= WIN - empty.bit_count():
            break  # a forced result: deeper search cannot change it
    return best
