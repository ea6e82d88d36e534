"""The search's own form of a position: ints in two lists, changed in place.

A search position is the side to move's squares per small board (``me``, a list of nine
9-bit masks), the opponent's (``them``), the small boards each has won (``mine_won``,
``theirs_won``, 9-bit masks over the big grid), the boards decided either way or full
(``done``) and the small board the side to move is sent to (``forced``, -1 for any). A
move is applied to ``me`` in place (by :func:`engine.ultimate.transition.place`, the one
move transition) and the two sides swap, so the hot loops allocate no board objects;
:class:`engine.ultimate.UltimateBoard` is the checked value the rest of the program holds.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from engine.ultimate.board import UltimateBoard, decided_boards, small
from engine.ultimate.tables import COMPLETING, FULL9, SQUARES, WINS
from engine.ultimate.transition import place

WIN, LOSS, DRAW, ONGOING = 1, -1, 0, None


@dataclass(slots=True)
class Position:
    """A search position (see the module's docstring), side to move first."""

    me: list[int]
    them: list[int]
    mine_won: int
    theirs_won: int
    done: int
    forced: int

    @classmethod
    def of(cls, board: UltimateBoard) -> Position:
        mover, other = board.sides()
        me = [small(mover, b) for b in range(9)]
        them = [small(other, b) for b in range(9)]
        xw, ow, drawn = decided_boards(board.x, board.o)
        mine_won, theirs_won = (xw, ow) if board.to_move == "X" else (ow, xw)
        forced = -1 if board.last < 0 else board.last % 9
        if forced >= 0 and (xw | ow | drawn) >> forced & 1:
            forced = -1
        return cls(me, them, mine_won, theirs_won, xw | ow | drawn, forced)

    def copy(self) -> Position:
        return Position(
            self.me[:], self.them[:], self.mine_won, self.theirs_won, self.done, self.forced
        )

    def moves(self) -> list[int]:
        """The legal cells (``board * 9 + square``); empty when the game is over."""
        return moves(self.me, self.them, self.done, self.forced, self.theirs_won)

    def play(self, cell: int) -> bool:
        """Play ``cell`` for the side to move, then hand the move over; True when that
        move won the game (the side now to move has lost)."""
        b, s = divmod(cell, 9)
        me = self.me
        me[b], self.mine_won, self.done, self.forced, won_game = place(
            me[b], self.them[b], self.mine_won, self.done, b, s
        )
        self.me, self.them = self.them, self.me
        self.mine_won, self.theirs_won = self.theirs_won, self.mine_won
        return won_game


def moves(me: list[int], them: list[int], done: int, forced: int, theirs_won: int) -> list[int]:
    """Legal cells of a search position; none once the opponent has a line of boards or
    every board is decided."""
    if WINS[theirs_won]:
        return []
    if forced >= 0:
        base = forced * 9
        return [base + s for s in SQUARES[FULL9 & ~(me[forced] | them[forced])]]
    return [b * 9 + s for b in SQUARES[FULL9 & ~done] for s in SQUARES[FULL9 & ~(me[b] | them[b])]]


def perft(position: Position, depth: int) -> int:
    """Positions reached after exactly ``depth`` moves (games that end earlier count none)."""
    if depth == 0:
        return 1
    cells = position.moves()
    if depth == 1:
        return len(cells)
    total = 0
    for cell in cells:
        child = position.copy()
        if not child.play(cell):
            total += perft(child, depth - 1)
    return total


def playout(
    me: list[int],
    them: list[int],
    mine_won: int,
    theirs_won: int,
    done: int,
    forced: int,
    random: Callable[[], float],
    decisive: bool = False,
) -> float:
    """Finish the game with uniformly random moves; 1.0 if the side to move at the start
    wins, 0.0 if it loses, 0.5 for a draw. ``me`` and ``them`` are scratch: changed.
    ``decisive``: a side which can win the game with its move does, so random games end
    as a real player's would, and the result means more."""
    mover = 0
    while True:
        if forced >= 0:
            b = forced
            mine, theirs = me[b], them[b]
            empty = FULL9 & ~(mine | theirs)
            if decisive and COMPLETING[mine_won] >> b & 1 and COMPLETING[mine] & empty:
                return 1.0 if mover == 0 else 0.0
            squares = SQUARES[empty]
            s = squares[int(random() * len(squares))]
        else:
            if done == FULL9:
                return 0.5
            if decisive:
                for c in SQUARES[COMPLETING[mine_won] & ~done]:
                    if COMPLETING[me[c]] & ~them[c]:
                        return 1.0 if mover == 0 else 0.0
            # the k-th legal cell, boards ascending, without listing the cells
            boards = SQUARES[FULL9 & ~done]
            empties = [SQUARES[FULL9 & ~(me[c] | them[c])] for c in boards]
            k, i = int(random() * sum(map(len, empties))), 0
            while k >= len(empties[i]):
                k -= len(empties[i])
                i += 1
            b, s = boards[i], empties[i][k]
            mine, theirs = me[b], them[b]
        me[b], mine_won, done, forced, won_game = place(mine, theirs, mine_won, done, b, s)
        if won_game:
            return 1.0 if mover == 0 else 0.0
        me, them = them, me
        mine_won, theirs_won = theirs_won, mine_won
        mover ^= 1


def random_playout(position: Position, rng: random.Random) -> float:
    """:func:`playout` from ``position`` (left unchanged)."""
    p = position
    return playout(p.me[:], p.them[:], p.mine_won, p.theirs_won, p.done, p.forced, rng.random)
