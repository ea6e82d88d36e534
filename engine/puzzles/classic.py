"""The bounded proof search's view of the k-in-a-row boards (:class:`engine.Board`).

A position is ``(mover, opponent)``, two cell masks: the side to move first, so X to
move and O to move share entries (the game is the same for both sides). The table key
is the smallest image of the pair under the board's 8 symmetries (the exact search's
chunked tables, :func:`engine.exact.canonical_key`) while the board is sparse, where
mirror images meet; past :data:`engine.exact.CANONICAL_MARKS` marks the pair itself (a
canonical key has as many marks as its position, so the two kinds never collide).

What prunes, each sound for a bounded win:

- a threat (a cell that completes a line) of the opponent must be blocked, two lose;
  a threat of the solver must be blocked by the defender, two win on the next move;
- a win within ``n`` needs a window free of the opponent's marks missing at most ``n``
  of the solver's; a win within 2 needs a move that makes two threats at once;
- a cell in no window still open for either side (a dead cell) is a pass; in a game
  where an extra mark never hurts, any move is at least as good as a pass (the side
  with the other cell can play as if it held the dead one: every line through the
  dead cell is blocked for both, and the board fills as fast), so dead cells are
  never tried unless nothing else is left.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache

from engine.board import Board
from engine.exact import CANONICAL_MARKS, ExactTables, canonical_key, exact_tables, images
from engine.geometry import Geometry, iter_cells
from engine.search import tables_for, winning_cells

State = tuple[int, int]


class ClassicGame:
    """:class:`engine.puzzles.proof.ProofGame` for one ``(size, k)``."""

    def __init__(self, geo: Geometry) -> None:
        self.geo = geo
        self.tables: ExactTables = exact_tables(geo)
        self.search = tables_for(geo)  # the exact search's memo of window completions
        middle = (geo.size - 1) / 2
        self.order = sorted(
            range(geo.cells),
            key=lambda c: (abs(c // geo.size - middle) + abs(c % geo.size - middle), c),
        )

    def state(self, board: Board) -> State:
        return board.sides()

    def canonical(self, board: Board) -> tuple[Hashable, Board]:
        geo = self.geo
        found = images(self.tables, board.x | board.o << geo.cells)
        best = min(range(len(found)), key=found.__getitem__)
        perm = geo.symmetries[best]
        image = Board(geo.size, geo.k, geo.transform(board.x, perm), geo.transform(board.o, perm))
        return ("classic", geo.size, geo.k, found[best]), image

    def key(self, state: State) -> Hashable:
        me, opp = state
        raw = me | opp << self.geo.cells
        if (me | opp).bit_count() > CANONICAL_MARKS:
            return raw  # dense boards rarely meet their mirror images: not worth the cost
        return canonical_key(self.tables, raw)

    def moves(self, state: State) -> list[int]:
        if self.over(state):
            return []
        me, opp = state
        return list(iter_cells(self.geo.full & ~(me | opp)))

    def play(self, state: State, move: int) -> State:
        me, opp = state
        return opp, me | 1 << move

    def over(self, state: State) -> bool:
        me, opp = state
        # Only the side that just moved can have a line: a game ends at its first one.
        return me | opp == self.geo.full or self.geo.has_win(opp)

    def wins(self, marks: int) -> int:
        """Cells (empty or not) that would complete a window for ``marks``."""
        return winning_cells(self.search, marks, self.geo.full)

    def wins_now(self, state: State) -> list[int]:
        me, opp = state
        return list(iter_cells(self.wins(me) & self.geo.full & ~(me | opp)))

    def _double(self, me: int, empty: int, cell: int) -> bool:
        """True if ``cell`` gives the mover two cells that each complete a line."""
        threats = self.wins(me | 1 << cell) & empty & ~(1 << cell)
        return threats & (threats - 1) != 0

    def candidates(self, state: State, n: int) -> list[int]:
        geo = self.geo
        me, opp = state
        empty = geo.full & ~(me | opp)
        theirs = self.wins(opp) & empty
        if theirs:
            if theirs & (theirs - 1):
                return []  # two threats: one of them stays open
            block = theirs.bit_length() - 1
            return [block] if n > 2 or self._double(me, empty, block) else []
        k = geo.k
        need = k + 1
        live = twice = once = my_once = their_once = 0
        for window in geo.windows:
            if not window & opp:
                live |= window
                marks = (window & me).bit_count()
                need = min(need, k - marks)
                if marks == k - 2:
                    free = window & empty
                    twice |= once & free
                    once |= free
                elif marks == k - 3:
                    my_once |= window & empty
            if not window & me:
                live |= window
                if (window & opp).bit_count() >= k - 2:
                    their_once |= window & empty
        if need > n:
            return []  # no line can be finished in time
        if n == 2:
            return [c for c in self.order if twice >> c & 1 and self._double(me, empty, c)]
        live &= empty
        if not live:
            return []
        # Double threats first, then threats, then stops of theirs, then the rest.
        buckets: tuple[list[int], ...] = ([], [], [], [], [])
        for cell in self.order:
            bit = 1 << cell
            if not live & bit:
                continue
            if twice & bit:
                buckets[0].append(cell)
            elif once & bit:
                buckets[1].append(cell)
            elif their_once & bit:
                buckets[2].append(cell)
            elif my_once & bit:
                buckets[3].append(cell)
            else:
                buckets[4].append(cell)
        return buckets[0] + buckets[1] + buckets[2] + buckets[3] + buckets[4]

    def replies(self, state: State) -> list[int]:
        geo = self.geo
        me, opp = state  # me: the defender, opp: the solver
        empty = geo.full & ~(me | opp)
        threats = self.wins(opp) & empty
        if threats:
            if threats & (threats - 1):
                return []  # every reply leaves a threat: the solver wins on the spot
            return [threats.bit_length() - 1]
        live = mine = stops = 0
        k = geo.k
        for window in geo.windows:
            if not window & opp:
                live |= window
                if (window & me).bit_count() >= k - 2:
                    mine |= window  # a reply here makes a threat of ours
            if not window & me:
                live |= window
                if (window & opp).bit_count() >= k - 2:
                    stops |= window
        live &= empty
        if not live:
            return list(iter_cells(empty))[:1]  # every cell is a pass: any one stands for all
        first = [c for c in self.order if (live & stops & mine) >> c & 1]
        second = [c for c in self.order if (live & (stops | mine) & ~(stops & mine)) >> c & 1]
        rest = [c for c in self.order if (live & ~(stops | mine)) >> c & 1]
        return first + second + rest


@cache
def classic_game(size: int, k: int) -> ClassicGame:
    return ClassicGame(Board.new(size, k).geometry)


def make(board: object) -> tuple[Hashable, ClassicGame]:
    assert isinstance(board, Board)
    return ("classic", board.size, board.k), classic_game(board.size, board.k)
