"""The board: an immutable value. ``play()`` returns a new board; the rules live here."""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

from engine.geometry import Geometry, default_k, geometry, iter_cells

if TYPE_CHECKING:
    import numpy as np

Mark = Literal["X", "O"]
Outcome = Literal["X", "O", "draw"]

_CHARS = {".": 0, "X": 1, "O": 2}


class InvalidBoard(ValueError):
    """A board that cannot arise in a game (bad shape, bad symbols, impossible counts)."""


class IllegalMove(ValueError):
    """A move on an occupied cell, off the board, or after the game has ended."""


@dataclass(frozen=True, slots=True)
class Board:
    """An N×N tic-tac-toe position, k in a row wins, X moves first.

    ``x`` and ``o`` are bitmasks of the cells each side holds (bit ``cell`` set,
    cells row-major). Construct boards with :meth:`new`, :meth:`from_string` or
    :meth:`from_numpy`; every constructor validates, so every Board is reachable.

    Raises:
        InvalidBoard: (a ValueError) for any position that cannot occur in a game.
    """

    size: int
    k: int
    x: int
    o: int

    variant: ClassVar[str] = "classic"
    """The game, for :func:`engine.get_agent`: the variant that makes agents for it."""

    def __post_init__(self) -> None:
        try:
            geo = geometry(self.size, self.k)
        except ValueError as exc:
            raise InvalidBoard(str(exc)) from None
        if (self.x | self.o) & ~geo.full or self.x & self.o:
            raise InvalidBoard("marks lie off the board or two marks share a cell")
        nx, no = self.x.bit_count(), self.o.bit_count()
        if nx not in (no, no + 1):
            raise InvalidBoard(
                f"impossible counts: {nx} X and {no} O (X moves first, so X equals O or O + 1)"
            )
        x_won, o_won = geo.has_win(self.x), geo.has_win(self.o)
        if x_won and o_won:
            raise InvalidBoard("both X and O have a winning line")
        if x_won and nx != no + 1:
            raise InvalidBoard("X has won but O moved after that")
        if o_won and nx != no:
            raise InvalidBoard("O has won but X moved after that")

    # --- constructors -------------------------------------------------------------------

    @classmethod
    def new(cls, size: int = 3, k: int | None = None) -> Board:
        """An empty board. ``k`` defaults to 3 on 3×3, 4 on 4×4 and larger."""
        return cls(size, default_k(size) if k is None else k, 0, 0)

    @classmethod
    def from_string(cls, text: str, k: int | None = None) -> Board:
        """Parse a row-major string of '.', 'X' and 'O' (whitespace ignored).

        The size follows from the length (9 → 3×3, 16 → 4×4, ...).

        Raises:
            InvalidBoard: bad length, bad characters, or an impossible position.
        """
        cells = "".join(text.split())
        size = math.isqrt(len(cells))
        if size * size != len(cells) or size < 2:
            raise InvalidBoard(
                f"a board string needs a square number of cells (9, 16, 25...), got {len(cells)}"
            )
        bad = sorted(set(cells) - set(_CHARS))
        if bad:
            raise InvalidBoard(f"unexpected characters {bad!r}: use '.', 'X' and 'O'")
        x = sum(1 << i for i, ch in enumerate(cells) if ch == "X")
        o = sum(1 << i for i, ch in enumerate(cells) if ch == "O")
        return cls(size, default_k(size) if k is None else k, x, o)

    @classmethod
    def from_numpy(cls, grid: np.ndarray, k: int | None = None) -> Board:
        """Build a board from the seeds' numpy grid: 0 empty, 1 X, 2 O (2-D square or flat).

        Raises:
            InvalidBoard: wrong shape, values other than 0/1/2, or an impossible position.
        """
        import numpy as np

        flat = np.asarray(grid).reshape(-1)
        size = math.isqrt(flat.size)
        if size * size != flat.size or np.ndim(grid) > 2:
            raise InvalidBoard(f"a grid must be square, got shape {np.shape(grid)}")
        if not np.isin(flat, (0, 1, 2)).all():
            raise InvalidBoard("grid values must be 0 (empty), 1 (X) or 2 (O)")
        x = sum(1 << int(i) for i in np.flatnonzero(flat == 1))
        o = sum(1 << int(i) for i in np.flatnonzero(flat == 2))
        return cls(size, default_k(size) if k is None else k, x, o)

    # --- conversions --------------------------------------------------------------------

    def to_string(self) -> str:
        """Row-major string of '.', 'X' and 'O'; round-trips through :meth:`from_string`."""
        return "".join(self[cell] or "." for cell in range(self.size * self.size))

    def to_numpy(self) -> np.ndarray:
        """The seeds' grid: a size×size uint8 array with 0 empty, 1 X, 2 O."""
        import numpy as np

        flat = np.zeros(self.size * self.size, dtype=np.uint8)
        flat[list(iter_cells(self.x))] = 1
        flat[list(iter_cells(self.o))] = 2
        return flat.reshape(self.size, self.size)

    def __getitem__(self, cell: int) -> Mark | None:
        if self.x >> cell & 1:
            return "X"
        if self.o >> cell & 1:
            return "O"
        return None

    def __str__(self) -> str:
        text = self.to_string()
        return "\n".join(text[r * self.size : (r + 1) * self.size] for r in range(self.size))

    # --- rules --------------------------------------------------------------------------

    @property
    def geometry(self) -> Geometry:
        return geometry(self.size, self.k)

    @property
    def to_move(self) -> Mark:
        """The side to move: "X" when both have as many marks, else "O"."""
        return "X" if self.x.bit_count() == self.o.bit_count() else "O"

    @property
    def move_count(self) -> int:
        return (self.x | self.o).bit_count()

    @property
    def cell_count(self) -> int:
        """Cells on the board (as :class:`engine.ultimate.UltimateBoard` has 81)."""
        return self.size * self.size

    def outcome(self) -> Outcome | None:
        """None while the game runs, else "X", "O" or "draw"."""
        geo = self.geometry
        if geo.has_win(self.x):
            return "X"
        if geo.has_win(self.o):
            return "O"
        if self.x | self.o == geo.full:
            return "draw"
        return None

    def is_over(self) -> bool:
        return self.outcome() is not None

    def winning_line(self) -> list[int] | None:
        """The cells of a completed line, ascending, or None."""
        geo = self.geometry
        window = geo.winning_window(self.x) or geo.winning_window(self.o)
        return None if window is None else list(iter_cells(window))

    def legal_moves(self) -> list[int]:
        """Empty cells, ascending; empty once the game is over."""
        if self.is_over():
            return []
        return list(iter_cells(self.geometry.full & ~(self.x | self.o)))

    def play(self, cell: int) -> Board:
        """Return the board after the side to move marks ``cell``.

        Raises:
            IllegalMove: the cell is off the board or taken, or the game is over.
        """
        if isinstance(cell, bool):
            raise IllegalMove(f"a move is a cell number, got {cell!r}")
        try:
            cell = operator.index(cell)
        except TypeError:
            raise IllegalMove(f"a move is a cell number, got {cell!r}") from None
        if not 0 <= cell < self.size * self.size:
            raise IllegalMove(f"cell {cell} is off the board (0..{self.size * self.size - 1})")
        if (self.x | self.o) >> cell & 1:
            raise IllegalMove(f"cell {cell} is already taken")
        if self.is_over():
            raise IllegalMove("the game is over")
        bit = 1 << cell
        if self.to_move == "X":
            return _reached(self.size, self.k, self.x | bit, self.o)
        return _reached(self.size, self.k, self.x, self.o | bit)

    def sides(self) -> tuple[int, int]:
        """``(mover, opponent)`` bitmasks, the form the search functions take."""
        return (self.x, self.o) if self.to_move == "X" else (self.o, self.x)


def _reached(size: int, k: int, x: int, o: int) -> Board:
    """A board one legal move from a valid one, built without :class:`Board`'s checks: it
    is valid by construction (the marks stay apart, the counts alternate, and only the
    mover can have just won). Every move of every game makes one."""
    board = object.__new__(Board)
    for name, value in (("size", size), ("k", k), ("x", x), ("o", o)):
        object.__setattr__(board, name, value)
    return board
