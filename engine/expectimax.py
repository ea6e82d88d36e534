"""Expectimax tie-break: among perfect moves, the one a fallible opponent is likeliest to lose to.

The opponent is modelled as uniformly random over its legal moves; the hero plays only
moves that keep the exact game value (so it never loses) and, among those, maximises the
probability of winning. Probabilities are floats; the tests check them exactly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from engine.board import Board
from engine.geometry import iter_cells
from engine.heuristics import shape_scores
from engine.search import (
    SearchTables,
    child_score,
    negamax,
    tables_for,
    winning_cells,
)

TIE_TOLERANCE = 1e-12
# Only the first moves of a game leave symmetries worth the cost of looking for them.
SYMMETRY_MARKS = 2


@dataclass
class ChanceTables:
    hero: dict[int, float] = field(default_factory=dict)
    villain: dict[int, float] = field(default_factory=dict)


_CHANCES: dict[tuple[int, int], ChanceTables] = {}


def clear_tables() -> None:
    _CHANCES.clear()


def _perfect_moves(tables: SearchTables, me: int, opp: int) -> list[int]:
    """Value-keeping moves of a running position where the mover has no immediate win."""
    empty = tables.geo.full & ~(me | opp)
    threats = winning_cells(tables, opp, empty)
    if threats:
        # One threat: blocking is forced. Two: every move loses next turn, so all tie.
        return list(iter_cells(threats if threats & (threats - 1) == 0 else empty))
    scores = {c: child_score(tables, me, opp, c) for c in iter_cells(empty)}
    top = max(scores.values())
    return [c for c, s in scores.items() if s == top]


def _hero_value(tables: SearchTables, chances: ChanceTables, me: int, opp: int) -> float:
    """Win probability for the hero to move at (me, opp), playing on by this policy."""
    geo = tables.geo
    empty = geo.full & ~(me | opp)
    if winning_cells(tables, me, empty):
        return 1.0
    key = me | opp << geo.cells
    value = chances.hero.get(key)
    if value is None:
        value = max(
            _villain_value(tables, chances, me | 1 << c, opp)
            for c in _perfect_moves(tables, me, opp)
        )
        chances.hero[key] = value
    return value


def _villain_value(tables: SearchTables, chances: ChanceTables, hero: int, villain: int) -> float:
    """Win probability for the hero when the random villain is to move (hero has no line)."""
    geo = tables.geo
    empty = geo.full & ~(hero | villain)
    if not empty:
        return 0.0
    key = hero | villain << geo.cells
    value = chances.villain.get(key)
    if value is None:
        wins = winning_cells(tables, villain, empty)
        if (hero | villain).bit_count() <= SYMMETRY_MARKS:
            reps = geo.representatives(hero, villain, empty & ~wins)
            counts: Mapping[int, int] = Counter(reps.values())
        else:
            counts = dict.fromkeys(iter_cells(empty & ~wins), 1)
        total = 0.0
        for cell, count in counts.items():
            if empty & ~(1 << cell):
                total += count * _hero_value(tables, chances, hero, villain | 1 << cell)
        value = total / empty.bit_count()
        chances.villain[key] = value
    return value


def win_chances(board: Board, moves: list[int]) -> dict[int, float]:
    """For each of ``moves``, the mover's win probability against a uniformly random
    opponent when the mover then keeps to value-preserving moves that maximise it."""
    tables = tables_for(board.geometry)
    chances = _CHANCES.setdefault((board.size, board.k), ChanceTables())
    me, opp = board.sides()
    reps = tables.geo.representatives(board.x, board.o, sum(1 << c for c in moves))
    by_rep = {}
    for rep in set(reps.values()):
        mine = me | 1 << rep
        if tables.geo.is_win(mine, rep):
            by_rep[rep] = 1.0
        else:
            by_rep[rep] = _villain_value(tables, chances, mine, opp)
    result = {cell: by_rep[rep] for cell, rep in reps.items()}
    return result


def trap_counts(board: Board, moves: list[int], exact: bool) -> dict[int, int]:
    """For each move, how many of the opponent's replies would leave the mover a win:
    a position solved as won (``exact``), or else an immediate win on the next move."""
    tables = tables_for(board.geometry)
    geo = tables.geo
    me, opp = board.sides()
    counts = {}
    for cell in moves:
        mine = me | 1 << cell
        empty = geo.full & ~(mine | opp)
        if geo.is_win(mine, cell) or not empty:
            counts[cell] = geo.cells  # the game ends here: nothing to set up
            continue
        if winning_cells(tables, opp, empty):
            counts[cell] = 0  # the opponent wins at once: no reply is a mistake
            continue
        traps = 0
        for reply in iter_cells(empty):
            theirs = opp | 1 << reply
            left = empty & ~(1 << reply)
            if not left:
                continue
            if exact:
                traps += negamax_sign(tables, mine, theirs) > 0
            else:
                traps += bool(winning_cells(tables, mine, left))
        counts[cell] = traps
    return counts


def ranked(scores: Mapping[int, tuple[float, ...]]) -> list[list[int]]:
    """The moves grouped by score (compared as tuples), best group first, each ascending."""
    groups: dict[tuple[float, ...], list[int]] = {}
    for cell, value in scores.items():
        groups.setdefault(value, []).append(cell)
    return [sorted(groups[value]) for value in sorted(groups, reverse=True)]


def trap_ranking(board: Board) -> list[list[int]]:
    """Every legal move, grouped by how many replies would leave the mover an
    unstoppable win next move (:func:`trap_counts`, not exact), most first, then by
    :func:`engine.heuristics.shape_scores`: the order in which unbeatable tries moves on
    boards solved by :mod:`engine.exact`."""
    traps = trap_counts(board, board.legal_moves(), exact=False)
    style = shape_scores(board)
    return ranked({cell: (count, style[cell]) for cell, count in traps.items()})


def negamax_sign(tables: SearchTables, me: int, opp: int) -> int:
    """Exact game value (+1, 0, -1) of a running position for the side to move."""
    bound = tables.geo.cells + 1
    value = negamax(tables, me, opp, -bound, bound)
    return (value > 0) - (value < 0)


def likeliest_wins(board: Board, moves: list[int]) -> list[int]:
    """The subset of ``moves`` with the highest win chance (within float tolerance)."""
    chances = win_chances(board, moves)
    top = max(chances.values())
    return [c for c in moves if chances[c] >= top - TIE_TOLERANCE]
