"""The bounded proof search's view of ultimate tic-tac-toe (:class:`UltimateBoard`).

Exhaustive: every legal move of both sides is tried (the puzzles ask for wins within 3
of the solver's moves, five plies). One fact prunes, and it is exact: a move marks one
square, so a win within ``n`` needs a line of small boards whose missing boards can be
won with at most ``n`` marks in all (a board's cost: the fewest marks that complete one
of its lines the opponent has not touched). A position is ``(mine, theirs, mine_won,
theirs_won, done, forced)`` as in :mod:`engine.ultimate.fast`, with tuples for the nine
small boards, so it is its own table key.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache

from engine.geometry import geometry
from engine.ultimate.board import UltimateBoard
from engine.ultimate.fast import Position
from engine.ultimate.tables import COMPLETING, FULL9, LINES, SQUARES, WINS
from engine.ultimate.transition import place

State = tuple[tuple[int, ...], tuple[int, ...], int, int, int, int]
FAR = 10
"""More marks than any bound asked: a board or line that cannot be won."""


@cache
def board_cost(mine: int, theirs: int) -> int:
    """The fewest marks that win a small board holding ``mine`` and ``theirs``."""
    if WINS[mine]:
        return 0
    costs = [(line & ~mine).bit_count() for line in LINES if not line & theirs]
    return min(costs, default=FAR)


class UltimateGame:
    """:class:`engine.puzzles.proof.ProofGame` for ultimate tic-tac-toe."""

    def state(self, board: UltimateBoard) -> State:
        p = Position.of(board)
        return tuple(p.me), tuple(p.them), p.mine_won, p.theirs_won, p.done, p.forced

    def key(self, state: State) -> Hashable:
        return state

    def canonical(self, board: UltimateBoard) -> tuple[Hashable, UltimateBoard]:
        """The image under the 8 symmetries of the 9×9 grid (each maps a small board's
        place and a square's place alike) with the smallest ``(x, o, board sent to)``."""
        forced = -1 if board.forced_board is None else board.forced_board
        best: tuple[tuple[int, int, int], UltimateBoard] | None = None
        for perm in SYMMETRIES:
            x, o = _image(board.x, perm), _image(board.o, perm)
            key = (x, o, -1 if forced < 0 else perm[forced])
            if best is None or key < best[0]:
                best = key, UltimateBoard(x, o, _moved(board.last, perm))
        assert best is not None
        return ("ultimate", *best[0]), best[1]

    def over(self, state: State) -> bool:
        _, _, mine_won, theirs_won, done, _ = state
        return WINS[theirs_won] or WINS[mine_won] or done == FULL9

    def boards(self, state: State) -> tuple[int, ...]:
        """The small boards the side to move may play in."""
        forced, done = state[5], state[4]
        return (forced,) if forced >= 0 else SQUARES[FULL9 & ~done]

    def moves(self, state: State) -> list[int]:
        if self.over(state):
            return []
        me, them = state[0], state[1]
        return [b * 9 + s for b in self.boards(state) for s in SQUARES[FULL9 & ~(me[b] | them[b])]]

    def play(self, state: State, move: int) -> State:
        me, them, mine_won, theirs_won, done, _ = state
        b, s = divmod(move, 9)
        mine, mine_won, done, forced, _ = place(me[b], them[b], mine_won, done, b, s)
        return them, (*me[:b], mine, *me[b + 1 :]), theirs_won, mine_won, done, forced

    def wins_now(self, state: State) -> list[int]:
        if self.over(state):
            return []
        me, them, mine_won = state[0], state[1], state[2]
        closing = COMPLETING[mine_won]
        return [
            b * 9 + s
            for b in self.boards(state)
            if closing >> b & 1
            for s in SQUARES[COMPLETING[me[b]] & ~(me[b] | them[b]) & FULL9]
        ]

    def _reach(self, state: State) -> int:
        """The fewest marks that could make a line of small boards for the side to move."""
        me, them, mine_won, _, done, _ = state
        best = FAR
        for line in LINES:
            if line & (done & ~mine_won):
                continue  # a board of the line is the opponent's or drawn
            cost = sum(board_cost(me[b], them[b]) for b in SQUARES[line & ~mine_won])
            best = min(best, cost)
        return best

    def candidates(self, state: State, n: int) -> list[int]:
        if self._reach(state) > n:
            return []
        me = state[0]
        moves = self.moves(state)
        # Moves that take a small board first.
        return sorted(moves, key=lambda m: (not COMPLETING[me[m // 9]] >> m % 9 & 1, m))

    def replies(self, state: State) -> list[int]:
        # The solver (state[1]) is hurt most by being sent where it has nothing to take.
        me, them, theirs_won, done = state[0], state[1], state[3], state[4]

        def harm(move: int) -> tuple[int, int]:
            target = move % 9
            if done >> target & 1 and move // 9 != target:
                return 2, move  # a free move for the solver
            takes = COMPLETING[them[target]] & ~(me[target] | them[target]) & FULL9
            return (1 if takes and COMPLETING[theirs_won] >> target & 1 else 0), move

        return sorted(self.moves(state), key=harm)


def _moved(cell: int, perm: tuple[int, ...]) -> int:
    """The image of a cell (or of -1, no move) under a symmetry applied at both levels."""
    return cell if cell < 0 else perm[cell // 9] * 9 + perm[cell % 9]


def _image(marks: int, perm: tuple[int, ...]) -> int:
    """The image of an 81-bit mask under a symmetry of the 3×3 grid applied at both levels."""
    image = 0
    while marks:
        low = marks & -marks
        b, s = divmod(low.bit_length() - 1, 9)
        image |= 1 << (perm[b] * 9 + perm[s])
        marks ^= low
    return image


SYMMETRIES = geometry(3, 3).symmetries
GAME = UltimateGame()


def make(board: object) -> tuple[Hashable, UltimateGame]:
    return "ultimate", GAME
