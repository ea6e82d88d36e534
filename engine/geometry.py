"""Board geometry: cell numbering, winning windows and symmetries for an N×N board, k in a row.

Cells are ints, row-major: cell = row * size + col. A set of cells is an int bitmask
(bit ``cell`` set). Everything here depends only on ``(size, k)`` and is cached.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

MIN_SIZE = 2
MAX_SIZE = 8


def to_rowcol(cell: int, size: int) -> tuple[int, int]:
    """Return ``(row, col)`` of a row-major cell index."""
    return divmod(cell, size)


def from_rowcol(row: int, col: int, size: int) -> int:
    """Return the row-major cell index of ``(row, col)``."""
    return row * size + col


def default_k(size: int) -> int:
    """How many in a row win on a board of this size by default (3→3, 4→4, 5 and up→4)."""
    return min(size, 4)


@dataclass(frozen=True, slots=True)
class Geometry:
    """Static facts about an N×N board with k in a row."""

    size: int
    k: int
    cells: int
    full: int
    windows: tuple[int, ...]
    """Every run of k consecutive cells (rows, columns, diagonals, anti-diagonals) as a mask."""
    windows_through: tuple[tuple[int, ...], ...]
    """For each cell, the windows that contain it: a move can only complete one of these."""
    symmetries: tuple[tuple[int, ...], ...]
    """The 8 symmetries of the square as cell permutations (``perm[cell]`` is its image)."""

    def transform(self, marks: int, perm: tuple[int, ...]) -> int:
        """The image of a cell mask under a symmetry."""
        image = 0
        for cell in iter_cells(marks):
            image |= 1 << perm[cell]
        return image

    def representatives(self, x: int, o: int, moves: int) -> dict[int, int]:
        """Map each cell of ``moves`` to the smallest cell that a symmetry of the position
        ``(x, o)`` makes equivalent to it: moves with one representative are alike."""
        stabilizer = [
            p for p in self.symmetries if self.transform(x, p) == x and self.transform(o, p) == o
        ]
        return {cell: min(perm[cell] for perm in stabilizer) for cell in iter_cells(moves)}

    def is_win(self, marks: int, last: int) -> bool:
        """True if ``marks`` completes a window through cell ``last``."""
        return any(marks & window == window for window in self.windows_through[last])

    def has_win(self, marks: int) -> bool:
        """True if ``marks`` holds any complete window."""
        return self.winning_window(marks) is not None

    def winning_window(self, marks: int) -> int | None:
        """The first complete window in ``marks``, or None. A plain loop: every move of
        every game asks, and it runs twice as fast as ``any`` over a generator."""
        for window in self.windows:
            if marks & window == window:
                return window
        return None


def _windows(size: int, k: int) -> list[int]:
    directions = ((0, 1), (1, 0), (1, 1), (1, -1))
    result = []
    for row in range(size):
        for col in range(size):
            for dr, dc in directions:
                end_r, end_c = row + dr * (k - 1), col + dc * (k - 1)
                if not (0 <= end_r < size and 0 <= end_c < size):
                    continue
                mask = 0
                for step in range(k):
                    mask |= 1 << from_rowcol(row + dr * step, col + dc * step, size)
                result.append(mask)
    return result


def _symmetries(size: int) -> tuple[tuple[int, ...], ...]:
    last = size - 1
    maps: tuple[Callable[[int, int], tuple[int, int]], ...] = (
        lambda r, c: (r, c),
        lambda r, c: (c, last - r),
        lambda r, c: (last - r, last - c),
        lambda r, c: (last - c, r),
        lambda r, c: (r, last - c),
        lambda r, c: (last - r, c),
        lambda r, c: (c, r),
        lambda r, c: (last - c, last - r),
    )
    return tuple(
        tuple(from_rowcol(*fn(*to_rowcol(cell, size)), size) for cell in range(size * size))
        for fn in maps
    )


@cache
def geometry(size: int, k: int) -> Geometry:
    """Return the cached geometry of a ``size``×``size`` board where ``k`` in a row wins.

    Raises:
        ValueError: if size is outside 2..8 or k outside 1..size.
    """
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"board size must be between {MIN_SIZE} and {MAX_SIZE}, got {size}")
    if not 1 <= k <= size:
        raise ValueError(f"k (marks in a row to win) must be between 1 and {size}, got {k}")
    windows = _windows(size, k)
    cells = size * size
    through = tuple(tuple(w for w in windows if w >> cell & 1) for cell in range(cells))
    return Geometry(size, k, cells, (1 << cells) - 1, tuple(windows), through, _symmetries(size))


def iter_cells(mask: int) -> Iterator[int]:
    """Yield the cell indices set in ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low
