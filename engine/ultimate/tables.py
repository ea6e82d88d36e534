"""Precomputed facts about one 3×3 grid, as tuples indexed by a 9-bit mask.

Both levels of ultimate tic-tac-toe are 3×3 grids (a small board's squares, the big
grid's small boards), so one set of tables serves both: bit ``i`` of a mask is square
(or small board) ``i``, row-major. The hot loops index these tuples with ints instead of
testing lines, so a rule costs one lookup.
"""

from __future__ import annotations

FULL9 = 0b111_111_111
"""All nine squares (or small boards)."""

LINES: tuple[int, ...] = (
    0b000_000_111, 0b000_111_000, 0b111_000_000,  # rows
    0b001_001_001, 0b010_010_010, 0b100_100_100,  # columns
    0b100_010_001, 0b001_010_100,  # diagonals
)  # fmt: skip
"""The eight lines of a 3×3 grid as masks."""

WINS: tuple[bool, ...] = tuple(any(m & line == line for line in LINES) for m in range(512))
"""``WINS[mask]``: the mask holds a complete line."""

LINE_OF: tuple[int, ...] = tuple(
    next((line for line in LINES if m & line == line), 0) for m in range(512)
)
"""``LINE_OF[mask]``: the first complete line in the mask (0 when there is none)."""

SQUARES: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i in range(9) if m >> i & 1) for m in range(512)
)
"""``SQUARES[mask]``: the set bits of a 9-bit mask, ascending."""

TWO_LINES: tuple[tuple[int, ...], ...] = tuple(
    tuple(line for line in LINES if (m & line).bit_count() == 2) for m in range(512)
)
"""``TWO_LINES[mask]``: the lines holding exactly two of the mask's squares; those the
opponent has not touched are threats."""

COMPLETING: tuple[int, ...] = tuple(
    FULL9 & sum({line & ~m for line in TWO_LINES[m]}) for m in range(512)
)
"""``COMPLETING[mask]``: the squares that would complete a line with the mask's squares
(``& empty`` keeps the playable ones)."""
