"""Ultimate tic-tac-toe: an immutable position, the rules, and its storage string.

Cell numbering: ``cell = board * 9 + square``, where ``board`` (0-8) is a small board's
place in the big grid and ``square`` (0-8) a square's place in its small board, both
row-major. So the nine cells of a small board are nine consecutive bits of a mask, and
every rule is a 9-bit table lookup (:mod:`engine.ultimate.tables`). :func:`to_rowcol` and
:func:`from_rowcol` convert to and from the 9×9 grid a renderer draws (row-major, 0-8);
:func:`cell_of` and :func:`board_square` to and from ``(board, square)``.

The storage string is the 81 cells in cell order ('.', 'X', 'O'), a colon, and the last
move's cell (``-`` before the first move): the last move says which small board the side
to move is sent to, so the string is the whole state.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import ClassVar

from engine.board import IllegalMove, InvalidBoard, Mark, Outcome
from engine.ultimate.tables import FULL9, LINE_OF, SQUARES, WINS
from engine.ultimate.transition import place

CELLS = 81
FULL = (1 << CELLS) - 1
NO_MOVE = -1

BoardStatus = Mark | Outcome | None
"""A small board's status: "X" or "O" (won), "draw" (full without a line) or None (open)."""


def cell_of(board: int, square: int) -> int:
    """The cell of ``square`` in small board ``board``."""
    return board * 9 + square


def board_square(cell: int) -> tuple[int, int]:
    """``(board, square)`` of a cell."""
    return divmod(cell, 9)


def to_rowcol(cell: int) -> tuple[int, int]:
    """``(row, col)`` of a cell on the 9×9 grid (row-major, 0-8 each)."""
    board, square = divmod(cell, 9)
    return board // 3 * 3 + square // 3, board % 3 * 3 + square % 3


def from_rowcol(row: int, col: int) -> int:
    """The cell at ``(row, col)`` of the 9×9 grid."""
    return (row // 3 * 3 + col // 3) * 9 + row % 3 * 3 + col % 3


def small(marks: int, board: int) -> int:
    """The 9-bit mask of ``marks`` within small board ``board``."""
    return marks >> 9 * board & FULL9


def decided_boards(x: int, o: int) -> tuple[int, int, int]:
    """``(won by X, won by O, full without a line)`` as 9-bit masks over the big grid,
    counted from the marks (:func:`place` keeps them up to date move by move)."""
    xw = ow = drawn = 0
    for b in range(9):
        bx, bo = x >> 9 * b & FULL9, o >> 9 * b & FULL9
        if WINS[bx]:
            xw |= 1 << b
        elif WINS[bo]:
            ow |= 1 << b
        elif bx | bo == FULL9:
            drawn |= 1 << b
    return xw, ow, drawn


@dataclass(frozen=True, slots=True)
class UltimateBoard:
    """A position of ultimate tic-tac-toe, X to move first.

    ``x`` and ``o`` are 81-bit masks of the cells each side holds; ``last`` is the cell of
    the last move (-1 before the first). Every constructor validates, so a board always
    obeys the checks below (:meth:`play` need not: a legal move keeps a board valid, and
    :func:`place` says which small boards it decided). The same interface as
    :class:`engine.Board` (``legal_moves``, ``play``, ``outcome``, ``is_over``, ``to_move``,
    ``to_string``/``from_string``).

    Raises:
        InvalidBoard: (a ValueError) marks off the board or on one cell twice; impossible
            counts; a last move that is not the last mover's mark; a small board or the
            big grid with lines for both sides; a last move into a small board already
            decided, or after the game had ended.
    """

    x: int = 0
    o: int = 0
    last: int = NO_MOVE
    _decided: tuple[int, int, int] = field(default=(0, 0, 0), init=False, repr=False, compare=False)
    """:func:`decided_boards` of the marks: counted once by a constructor, else by :meth:`play`."""

    size: ClassVar[int] = 9
    """The side of the grid a renderer draws (9×9 squares)."""
    cell_count: ClassVar[int] = CELLS
    variant: ClassVar[str] = "ultimate"
    """The game, for :func:`engine.get_agent`: the variant that makes agents for it."""

    def __post_init__(self) -> None:
        x, o, last = self.x, self.o, self.last
        if not all(type(v) is int for v in (x, o, last)):
            raise InvalidBoard("x, o and last must be ints")
        if x < 0 or o < 0 or (x | o) & ~FULL or x & o:
            raise InvalidBoard("marks lie off the board or two marks share a cell")
        nx, no = x.bit_count(), o.bit_count()
        if nx not in (no, no + 1):
            raise InvalidBoard(f"impossible counts: {nx} X and {no} O (X moves first)")
        if nx == 0:
            if last != NO_MOVE:
                raise InvalidBoard("an empty board has no last move")
            return
        x_moved = nx > no
        mover = x if x_moved else o
        if not 0 <= last < CELLS or not mover >> last & 1:
            raise InvalidBoard(f"the last move {last} is not a mark of the side that moved last")
        xw, ow, drawn = decided_boards(x, o)
        for b in range(9):
            if WINS[small(x, b)] and WINS[small(o, b)]:
                raise InvalidBoard(f"small board {b} has lines for both X and O")
        if WINS[xw] and WINS[ow]:
            raise InvalidBoard("both X and O have a line of small boards")
        before = mover & ~(1 << last)
        bx, bo = (before, o) if x_moved else (x, before)
        b = last // 9
        sb_x, sb_o = small(bx, b), small(bo, b)
        if WINS[sb_x] or WINS[sb_o] or sb_x | sb_o == FULL9:
            raise InvalidBoard(f"the last move {last} went into small board {b}, already decided")
        pxw, pow_, _ = decided_boards(bx, bo)
        if WINS[pxw] or WINS[pow_]:
            raise InvalidBoard("a move was made after the game had been won")
        object.__setattr__(self, "_decided", (xw, ow, drawn))

    # --- constructors and the storage string -----------------------------------------------

    @classmethod
    def new(cls) -> UltimateBoard:
        return cls()

    @classmethod
    def from_string(cls, text: str) -> UltimateBoard:
        """Parse :meth:`to_string`'s form: 81 cells of '.', 'X', 'O' in cell order, ':',
        then the last move's cell or '-'. Whitespace is ignored.

        Raises:
            InvalidBoard: a malformed string or an impossible position.
        """
        compact = "".join(text.split())
        cells, colon, last_text = compact.partition(":")
        if not colon or len(cells) != CELLS:
            raise InvalidBoard("an ultimate board string is 81 cells, ':', and the last move")
        bad = sorted(set(cells) - set(".XO"))
        if bad:
            raise InvalidBoard(f"unexpected characters {bad!r}: use '.', 'X' and 'O'")
        if last_text == "-":
            last = NO_MOVE
        elif last_text.isascii() and last_text.isdigit() and len(last_text) <= 2:
            last = int(last_text)
        else:
            raise InvalidBoard(f"the last move must be a cell 0-80 or '-', got {last_text!r}")
        x = sum(1 << i for i, ch in enumerate(cells) if ch == "X")
        o = sum(1 << i for i, ch in enumerate(cells) if ch == "O")
        return cls(x, o, last)

    def to_string(self) -> str:
        """81 cells in cell order, ':', the last move (or '-'); see :meth:`from_string`."""
        cells = "".join(self[cell] or "." for cell in range(CELLS))
        return f"{cells}:{'-' if self.last == NO_MOVE else self.last}"

    def __getitem__(self, cell: int) -> Mark | None:
        if self.x >> cell & 1:
            return "X"
        if self.o >> cell & 1:
            return "O"
        return None

    def __str__(self) -> str:
        """The 9×9 grid as a human sees it, small boards set apart."""
        rows = []
        for row in range(9):
            chars = [self[from_rowcol(row, col)] or "." for col in range(9)]
            rows.append(" ".join("".join(chars[i : i + 3]) for i in (0, 3, 6)))
            if row in (2, 5):
                rows.append("")
        return "\n".join(rows)

    # --- what a renderer asks ---------------------------------------------------------------

    @property
    def to_move(self) -> Mark:
        return "X" if self.x.bit_count() == self.o.bit_count() else "O"

    @property
    def move_count(self) -> int:
        return (self.x | self.o).bit_count()

    @property
    def last_move(self) -> int | None:
        return None if self.last == NO_MOVE else self.last

    def board_status(self, board: int) -> BoardStatus:
        """ "X" or "O" if that side won small board ``board``, "draw" if it is full without
        a line, None while it is open."""
        xw, ow, drawn = self._decided
        if xw >> board & 1:
            return "X"
        if ow >> board & 1:
            return "O"
        return "draw" if drawn >> board & 1 else None

    def board_statuses(self) -> tuple[BoardStatus, ...]:
        """:meth:`board_status` of the nine small boards, in order."""
        return tuple(self.board_status(b) for b in range(9))

    def small_line(self, board: int) -> list[int] | None:
        """The cells of the line that won small board ``board``, or None."""
        line = LINE_OF[small(self.x, board)] or LINE_OF[small(self.o, board)]
        return [cell_of(board, s) for s in SQUARES[line]] if line else None

    @property
    def forced_board(self) -> int | None:
        """The small board the side to move must play in, or None when it may play in any
        open one (the first move, a send to a decided board) or the game is over."""
        if self.last == NO_MOVE or self.is_over():
            return None
        target = self.last % 9
        return target if self.board_status(target) is None else None

    def playable_boards(self) -> list[int]:
        """The small boards holding a legal move (the regions a renderer highlights)."""
        if self.is_over():
            return []
        forced = self.forced_board
        if forced is not None:
            return [forced]
        return [b for b in range(9) if self.board_status(b) is None]

    # --- rules ------------------------------------------------------------------------------

    def outcome(self) -> Outcome | None:
        """None while the game runs, else "X", "O" or "draw" (every small board decided
        without a line of them)."""
        xw, ow, drawn = self._decided
        if WINS[xw]:
            return "X"
        if WINS[ow]:
            return "O"
        return "draw" if xw | ow | drawn == FULL9 else None

    def is_over(self) -> bool:
        return self.outcome() is not None

    def winning_boards(self) -> list[int] | None:
        """The small boards (0-8) of the line that won the game, or None."""
        xw, ow, _ = self._decided
        line = LINE_OF[xw] or LINE_OF[ow]
        return list(SQUARES[line]) if line else None

    def legal_moves(self) -> list[int]:
        """The cells the side to move may play, ascending; empty once the game is over."""
        taken = self.x | self.o
        return [
            cell_of(b, s)
            for b in self.playable_boards()
            for s in SQUARES[FULL9 & ~(taken >> 9 * b)]
        ]

    def play(self, cell: int) -> UltimateBoard:
        """The board after the side to move marks ``cell``.

        Raises:
            IllegalMove: not a cell number, off the board, taken, outside the small board
                the side to move is sent to (or in a decided one), or the game is over.
        """
        if isinstance(cell, bool):
            raise IllegalMove(f"a move is a cell number, got {cell!r}")
        try:
            cell = operator.index(cell)
        except TypeError:
            raise IllegalMove(f"a move is a cell number, got {cell!r}") from None
        if not 0 <= cell < CELLS:
            raise IllegalMove(f"cell {cell} is off the board (0..80)")
        if (self.x | self.o) >> cell & 1:
            raise IllegalMove(f"cell {cell} is already taken")
        if self.is_over():
            raise IllegalMove("the game is over")
        board, square = divmod(cell, 9)
        if board not in self.playable_boards():
            forced = self.forced_board
            where = f"small board {forced}" if forced is not None else "an open small board"
            raise IllegalMove(f"cell {cell} is in small board {board}; the move must be in {where}")
        xw, ow, drawn = self._decided
        x_moves = self.to_move == "X"
        mover, other = self.sides()
        mine, won, done, _, _ = place(
            small(mover, board), small(other, board), xw if x_moves else ow, xw | ow | drawn,
            board, square,
        )  # fmt: skip
        mover |= mine << 9 * board
        if x_moves:
            return self._played(mover, self.o, cell, (won, ow, done & ~(won | ow)))
        return self._played(self.x, mover, cell, (xw, won, done & ~(xw | won)))

    @classmethod
    def _played(cls, x: int, o: int, last: int, decided: tuple[int, int, int]) -> UltimateBoard:
        """The board :meth:`play` made: a legal move from a valid board, so valid without
        the constructor's checks, and ``decided`` carried by :func:`place`, not recounted."""
        board = object.__new__(cls)
        for name, value in (("x", x), ("o", o), ("last", last), ("_decided", decided)):
            object.__setattr__(board, name, value)
        return board

    def sides(self) -> tuple[int, int]:
        """``(mover, opponent)`` 81-bit masks."""
        return (self.x, self.o) if self.to_move == "X" else (self.o, self.x)
