"""Every reachable position of a small k-in-a-row board, up to symmetry: the generator's
exhaustive walk for 4×4 (:func:`positions`), where seeded games found 20 puzzles in
245,104 games and the walk proves how many there are.

The walk goes level by level (the number of marks), each position kept once under its
smallest image by the board's symmetries (the exact solver's canonical key,
:func:`engine.exact.canonical_key`), a finished game never extended. On 4×4 (k = 4) that
is 1,135,214 positions still in play; the generator examines each (seconds more per
hundred thousand, the proof search and the agents only where the side to move wins).
Deterministic: each level in the order of its keys.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator

from engine.board import Board
from engine.exact import canonical_key, exact_tables
from engine.puzzles.records import Puzzle

WALKED = {"3x3": (3, 3, 1, False), "4x4": (4, 4, 4, True)}
"""The boards whose every position the generator examines: size, k, the fewest marks
tried (on 4×4 a forced win within 6 needs more: the searches there cost the most), and
whether the budget bounds the walk (3×3's 627 positions never wait for it)."""


def positions(size: int, k: int) -> Iterator[Board]:
    """Every position still in play (not won, not full) reachable from the empty
    ``size``×``size`` board (``k`` in a row) by legal play, once up to symmetry, fewest
    marks first."""
    geo = Board.new(size, k).geometry
    tables = exact_tables(geo)
    cells = size * size
    full = (1 << cells) - 1
    level = [0]  # keys: X's cells | O's cells << cells; none of them won
    for marks in range(cells):
        following: set[int] = set()
        for key in level:
            x, o = key & full, key >> cells
            yield Board.from_string(_text(x, o, cells), k)
            empty = ~(x | o) & full
            while empty:
                bit = empty & -empty
                empty ^= bit
                nx, no = (x | bit, o) if marks % 2 == 0 else (x, o | bit)
                if not any((nx if marks % 2 == 0 else no) & w == w for w in geo.windows):
                    following.add(canonical_key(tables, nx | no << cells))
        level = sorted(following)


def _text(x: int, o: int, cells: int) -> str:
    return "".join("X" if x >> c & 1 else "O" if o >> c & 1 else "." for c in range(cells))


def every_position(
    kind: str, cap: int, examine: Callable[[Board, str], Puzzle | None],
    walk: int | None = None, deadline: float = math.inf,
) -> tuple[list[Puzzle], int]:  # fmt: skip
    """A walked board's puzzles, ``examine`` (the generator's) on each position, and how
    many positions were walked: the first ``walk`` (a replay), or those reached before
    ``deadline`` (a ``time.process_time()``), at most ``cap`` puzzles. A board the budget
    does not bound (3×3) walks all, whatever ``walk`` and ``deadline`` say, and counts 0
    (nothing to replay)."""
    size, k, fewest, bounded = WALKED[kind]
    found: dict[str, Puzzle] = {}
    walked = 0
    for board in positions(size, k):
        if len(found) >= cap or (bounded and walk is not None and walked >= walk):
            break
        if bounded and walk is None and time.process_time() >= deadline:
            break
        walked += 1
        if board.move_count >= fewest:
            puzzle = examine(board, kind)
            if puzzle is not None:
                found.setdefault(puzzle.id, puzzle)
    return list(found.values()), walked if bounded else 0
