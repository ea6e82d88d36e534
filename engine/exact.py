"""Exact game values on boards too large for the depth-aware search (5×5, four in a row).

Only the sign is searched (+1 win, 0 draw, -1 loss for the side to move), with null-window
alpha-beta over those three values, which cuts far more than depth-aware scores do. Every
node takes an immediate win, sees two open threats as lost and searches only the block of
one; a position where neither side has a window left is a draw; cells that lie in no open
window of either side are never tried (a mark there is a pass, and in a game where an extra
mark never hurts, a pass is never better than a live cell). Most of the speed comes
from pairing proofs: when the question is only "can this side still win?", disjoint
pairs of empty cells, one inside each window it could fill, prove that it cannot (the
other side answers each move into a pair with its partner), so drawn endings are
settled without searching them. Moves are tried forks first, then threats, then blocks.
The table is keyed by the smallest image of the position under the 8 symmetries while
the board is still sparse, where transpositions across symmetries are common.

The empty 5×5 board takes about 35,000 nodes (1.3 s in Python); a position with 9 or
more marks a few milliseconds. ``tests/test_exact_reference.py`` checks the answers
against an independent solver, with and without pairing proofs.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from engine.board import Board
from engine.geometry import Geometry, iter_cells

_EXACT, _LOWER, _UPPER = 0, 1, 2
CANONICAL_MARKS = 10
"""Positions with at most this many marks are stored under their canonical (symmetry-
reduced) key; later ones under their own key, which is cheaper to compute."""
MAX_ENTRIES = 2_000_000
"""A table past this many entries is emptied and refilled (about 250 MB at most)."""
CHUNK = 10
"""Bits per lookup when mapping a position through a symmetry."""
CLOCK_EVERY = 1024
"""Nodes between looks at the clock when a search has a deadline (about 40 ms)."""


class OutOfTime(Exception):
    """A search given a deadline passed it (what it had proven stays in the table)."""


@dataclass
class ExactTables:
    """Per-geometry memory of the exact search, shared by every call in a process."""

    geo: Geometry
    sym_chunks: tuple[tuple[tuple[int, ...], ...], ...]
    """For each symmetry and each CHUNK-bit slice of the key, the slice's image."""
    order: tuple[int, ...]
    """Cells from the centre outwards: the order moves are tried in when scores tie."""
    window_pairs: tuple[tuple[int, ...], ...]
    """For each window, the masks of its two-cell subsets, the ones shared by the most
    windows first (a pair in the middle of a line blocks every window through both)."""
    sparse_empty: int
    """Positions with at least this many empty cells are stored under their canonical key."""
    tt: dict[int, int] = field(default_factory=dict)
    """key -> (best move + 1) << 4 | bound flag << 2 | (value + 1)."""
    completions: dict[int, int] = field(default_factory=dict)
    nodes: int = 0
    deadline: float = math.inf
    """``time.monotonic()`` past which a search raises :class:`OutOfTime`."""


_TABLES: dict[tuple[int, int], ExactTables] = {}


def exact_tables(geo: Geometry) -> ExactTables:
    tables = _TABLES.get((geo.size, geo.k))
    if tables is None:
        tables = _TABLES[(geo.size, geo.k)] = _build(geo)
    return tables


def _build(geo: Geometry) -> ExactTables:
    bits = 2 * geo.cells
    chunks = []
    for perm in geo.symmetries:
        per_slice = []
        for start in range(0, bits, CHUNK):
            images = []
            for value in range(1 << CHUNK):
                image = 0
                for bit in iter_cells(value):
                    pos = start + bit
                    if pos >= bits:
                        break
                    side, cell = divmod(pos, geo.cells)
                    image |= 1 << (side * geo.cells + perm[cell])
                images.append(image)
            per_slice.append(tuple(images))
        chunks.append(tuple(per_slice))
    middle = (geo.size - 1) / 2
    order = sorted(
        range(geo.cells),
        key=lambda c: (abs(c // geo.size - middle) + abs(c % geo.size - middle), c),
    )
    pairs = []
    for window in geo.windows:
        cells = list(iter_cells(window))
        subsets = [1 << a | 1 << b for i, a in enumerate(cells) for b in cells[i + 1 :]]
        subsets.sort(key=lambda p: -sum(1 for w in geo.windows if w & p == p))
        pairs.append(tuple(subsets))
    return ExactTables(geo, tuple(chunks), tuple(order), tuple(pairs), geo.cells - CANONICAL_MARKS)


def canonical_key(tables: ExactTables, key: int) -> int:
    """The smallest image of ``me | opp << cells`` under the board's symmetries."""
    return min(images(tables, key))


def images(tables: ExactTables, key: int) -> list[int]:
    """The images of a key ``a | b << cells`` under each of the board's symmetries, in
    the order of ``geo.symmetries``."""
    mask = (1 << CHUNK) - 1
    slices = [key >> start & mask for start in range(0, 2 * tables.geo.cells, CHUNK)]
    return [
        sum(table[s] for table, s in zip(per_slice, slices, strict=True))
        for per_slice in tables.sym_chunks
    ]


def _wins(tables: ExactTables, marks: int) -> int:
    """Cells (taken or not) that would complete a window for ``marks``."""
    found = tables.completions.get(marks)
    if found is None:
        found = 0
        for window in tables.geo.windows:
            missing = window & ~marks
            if missing & (missing - 1) == 0:
                found |= missing
        if len(tables.completions) >= MAX_ENTRIES:
            tables.completions.clear()
        tables.completions[marks] = found
    return found


def negamax(tables: ExactTables, me: int, opp: int, alpha: int, beta: int) -> int:
    """Game value (-1, 0, +1) for the mover of a running position: exact when strictly
    inside ``(alpha, beta)``, else a bound on the side it crossed."""
    tables.nodes += 1
    if not tables.nodes % CLOCK_EVERY and time.monotonic() > tables.deadline:
        raise OutOfTime
    geo = tables.geo
    empty = geo.full & ~(me | opp)
    if _wins(tables, me) & empty:
        return 1
    if empty & (empty - 1) == 0:
        return 0  # the last cell does not win
    threats = _wins(tables, opp) & empty
    if threats & (threats - 1):
        return -1
    raw = me | opp << geo.cells
    key = canonical_key(tables, raw) if empty.bit_count() >= tables.sparse_empty else raw
    entry = tables.tt.get(key)
    first = -1
    if entry is not None:
        value, flag, first = (entry & 3) - 1, entry >> 2 & 3, (entry >> 4) - 1
        if flag == _EXACT:
            return value
        if flag == _LOWER:
            if value >= beta:
                return value
            alpha = max(alpha, value)
        else:
            if value <= alpha:
                return value
            beta = min(beta, value)
        if key != raw:
            first = -1  # stored for another orientation of the position
    two = geo.k - 2
    mine_open = theirs_open = my_once = my_twice = their_once = their_twice = 0
    for window in geo.windows:
        if not window & opp:
            mine_open |= window
            if (window & me).bit_count() == two:
                free = window & empty
                my_twice |= my_once & free
                my_once |= free
        if not window & me:
            theirs_open |= window
            if (window & opp).bit_count() == two:
                free = window & empty
                their_twice |= their_once & free
                their_once |= free
    if not theirs_open:
        if not mine_open:
            return 0
        if beta <= 0:
            return 0  # nothing can lose: at least a draw
        alpha = max(alpha, 0)
    elif not mine_open:
        if alpha >= 0:
            return 0  # nothing can win: at most a draw
        beta = min(beta, 0)
    if alpha >= 0:
        if _paired_off(tables, me, opp, empty):
            return 0  # the opponent can answer every move in a pair: no win for us
    elif beta <= 0 and _paired_off(tables, opp, me, empty):
        return 0  # we can answer every move of theirs in a pair: no loss for us
    if threats:
        moves: list[int] = [threats.bit_length() - 1]
    else:
        live = empty & (mine_open | theirs_open)
        # Forks first (two threats at once), then threats, then moves that stop theirs.
        buckets: tuple[list[int], ...] = ([], [], [], [], [])
        for cell in tables.order:
            bit = 1 << cell
            if not live & bit:
                continue
            if my_twice & bit:
                buckets[0].append(cell)
            elif their_twice & bit:
                buckets[1].append(cell)
            elif my_once & bit:
                buckets[2].append(cell)
            elif their_once & bit:
                buckets[3].append(cell)
            else:
                buckets[4].append(cell)
        moves = buckets[0] + buckets[1] + buckets[2] + buckets[3] + buckets[4]
        if first >= 0 and live >> first & 1:
            moves.remove(first)
            moves.insert(0, first)
    start_alpha, best, best_move = alpha, -2, moves[0]
    for cell in moves:
        value = -negamax(tables, opp, me | 1 << cell, -beta, -alpha)
        if value > best:
            best, best_move = value, cell
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    flag = _UPPER if best <= start_alpha else _LOWER if best >= beta else _EXACT
    if len(tables.tt) >= MAX_ENTRIES:
        tables.tt.clear()
    tables.tt[key] = (best_move + 1) << 4 | flag << 2 | (best + 1)
    return best


def _paired_off(tables: ExactTables, attacker: int, defender: int, empty: int) -> bool:
    """True if disjoint pairs of empty cells can be found, one inside every window the
    attacker could still fill: the defender then takes the other cell of any pair the
    attacker enters, so the attacker never completes a window. Greedy, so a False may
    be a pairing it missed; a True is always a proof."""
    geo = tables.geo
    todo = []
    for index, window in enumerate(geo.windows):
        if not window & defender:
            free = window & empty
            if free & (free - 1) == 0:
                return False  # one cell from a line (or already a line): no pair fits
            todo.append((free.bit_count(), index, window))
    if not todo:
        return True
    todo.sort()
    used = 0
    chosen: list[int] = []
    for _, index, window in todo:
        if any(pair & window == pair for pair in chosen):
            continue
        for pair in tables.window_pairs[index]:
            if pair & empty == pair and not pair & used:
                chosen.append(pair)
                used |= pair
                break
        else:
            return False
    return True


def board_value(board: Board) -> int:
    """Exact value (-1, 0, +1) of ``board`` for the side to move; a finished game is 0
    for a draw, else -1 (the side to move has lost)."""
    outcome = board.outcome()
    if outcome is not None:
        return 0 if outcome == "draw" else -1
    me, opp = board.sides()
    return negamax(exact_tables(board.geometry), me, opp, -1, 1)


def keeps(board: Board, cell: int, target: int, deadline: float | None = None) -> bool:
    """True if playing ``cell`` leaves the mover a value of at least ``target`` (a
    null-window test: cheaper than the child's exact value).

    Raises:
        OutOfTime: ``deadline`` (a ``time.monotonic()`` value) passed first.
    """
    geo = board.geometry
    me, opp = board.sides()
    mine = me | 1 << cell
    if geo.is_win(mine, cell):
        return True
    if mine | opp == geo.full:
        return target <= 0
    # value >= target  <=>  the opponent's value <= -target
    tables = exact_tables(geo)
    tables.deadline = math.inf if deadline is None else deadline
    try:
        return -negamax(tables, opp, mine, -target, -target + 1) >= target
    finally:
        tables.deadline = math.inf


def keeping_moves(board: Board, value: int | None = None) -> list[int]:
    """Every move that keeps the game value of a running ``board``, ascending (``value``:
    that value, when the caller knows it already)."""
    target = board_value(board) if value is None else value
    return [cell for cell in board.legal_moves() if keeps(board, cell, target)]


def best_move(board: Board) -> tuple[int, int]:
    """The exact value of a running ``board`` for the side to move and one move that
    keeps it, in about the time of :func:`board_value` (the search at the root, keeping
    the move that set the value)."""
    geo = board.geometry
    me, opp = board.sides()
    tables = exact_tables(geo)
    empty = geo.full & ~(me | opp)
    wins = _wins(tables, me) & empty
    if wins:
        return 1, wins.bit_length() - 1
    threats = _wins(tables, opp) & empty
    moves = [cell for cell in tables.order if (threats or empty) >> cell & 1]
    best, chosen = -2, moves[0]
    for cell in moves:
        mine = me | 1 << cell
        full = mine | opp == geo.full
        value = 0 if full else -negamax(tables, opp, mine, -1, -max(best, -1))
        if value > best:
            best, chosen = value, cell
            if best == 1:
                break
    return best, chosen


def first_keeping(board: Board, preference: list[list[int]]) -> int:
    """The first value-keeping move of a running ``board`` in ``preference`` (groups of
    moves, best first, tried in the order given; every legal move in some group). Each
    try is a null-window test, so a good order makes this much cheaper than
    :func:`keeping_moves`."""
    target = board_value(board)
    for group in preference:
        for cell in group:
            if keeps(board, cell, target):
                return cell
    raise AssertionError("a running position always has a value-keeping move")


def clear_tables() -> None:
    """Forget every table (for benchmarks that measure a cold start)."""
    _TABLES.clear()
