"""The bench's reference player for ultimate tic-tac-toe: plain UCT.

UCB1 with exploration constant sqrt(2), one node expanded per iteration, uniformly random
playouts to the end of the game, a fixed number of playouts per move, the most visited
move played. Nothing else: no proofs, no tree kept between moves, no tuning. It is written
here from the rules, sharing no code with the engine, so a match against it also checks
the engine's move generation (the match runner plays every move through the engine's
``UltimateBoard``, which refuses an illegal one).

Cells are the engine's: ``board * 9 + square``, both row-major.

Speed (``mode``): a move of 10,000 playouts costs about 2 s in this file's Python
(``"python"``). ``"playouts"`` runs each playout in the engine's compiled module
(``_csearch.playout``: uniformly random, drawing the same numbers from the same
``random`` as :func:`_playout`, so the moves are the same, which a test checks): about
0.3-0.9 s. ``"compiled"`` (the default when the module is built) runs the whole search
as the compiled tree's plain mode (``solver=False``: no proofs, no game-winning moves in
the playouts, UCB1 with sqrt(2), the most visited move), its own random numbers: about
0.03 s. Plain UCT either way; the match runner still checks every move.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from types import ModuleType

_compiled: ModuleType | None
try:
    from engine.ultimate import _csearch as _compiled
except ImportError:  # not built: this file's own playout
    _compiled = None

_LINES = (7, 56, 448, 73, 146, 292, 273, 84)
_WINS = tuple(any(m & line == line for line in _LINES) for m in range(512))
_BITS = tuple(tuple(i for i in range(9) if m >> i & 1) for m in range(512))
_ALL = 511


class _State:
    """Whose turn (0 X, 1 O), marks per player per small board, boards won, decided."""

    __slots__ = ("decided", "forced", "marks", "turn", "winner", "won")

    def __init__(self) -> None:
        self.marks = [[0] * 9, [0] * 9]
        self.won = [0, 0]
        self.decided = 0
        self.forced = -1
        self.turn = 0
        self.winner = -1  # -1 running, 0 X, 1 O, 2 draw

    def clone(self) -> _State:
        c = _State.__new__(_State)
        c.marks = [self.marks[0][:], self.marks[1][:]]
        c.won = self.won[:]
        c.decided, c.forced, c.turn, c.winner = self.decided, self.forced, self.turn, self.winner
        return c

    def legal(self) -> list[int]:
        if self.winner >= 0:
            return []
        x, o = self.marks
        boards = (self.forced,) if self.forced >= 0 else _BITS[_ALL & ~self.decided]
        return [b * 9 + s for b in boards for s in _BITS[_ALL & ~(x[b] | o[b])]]

    def move(self, cell: int) -> None:
        b, s = divmod(cell, 9)
        p = self.turn
        mine = self.marks[p][b] | 1 << s
        self.marks[p][b] = mine
        if _WINS[mine]:
            self.won[p] |= 1 << b
            self.decided |= 1 << b
            if _WINS[self.won[p]]:
                self.winner = p
        elif mine | self.marks[1 - p][b] == _ALL:
            self.decided |= 1 << b
        if self.winner < 0 and self.decided == _ALL:
            self.winner = 2
        self.forced = -1 if self.decided >> s & 1 else s
        self.turn = 1 - p


class _Node:
    __slots__ = ("children", "move", "untried", "visits", "wins")

    def __init__(self, move: int, untried: list[int]) -> None:
        self.move, self.untried = move, untried
        self.children: list[_Node] = []
        self.visits, self.wins = 0, 0.0  # wins: for the player who made ``move``


class ReferencePlayer:
    """Plain UCT with ``playouts`` uniformly random playouts per move."""

    def __init__(
        self, playouts: int = 10_000, seed: int | None = None, mode: str = "compiled"
    ) -> None:
        if _compiled is None:
            mode = "python"
        self.playouts = playouts
        self.mode = mode
        self.playout = _compiled_playout if mode == "playouts" else _playout
        self.rng = random.Random(seed)
        self.name = f"uct{playouts}"

    def choose_from(self, x: int, o: int, last: int) -> int:
        """The move for the side to move in the position (81-bit masks, last cell or -1)."""
        root_state = _State()
        for p, marks in enumerate((x, o)):
            for b in range(9):
                root_state.marks[p][b] = marks >> 9 * b & _ALL
                if _WINS[root_state.marks[p][b]]:
                    root_state.won[p] |= 1 << b
        xs, os = root_state.marks
        for b in range(9):
            if _WINS[xs[b]] or _WINS[os[b]] or xs[b] | os[b] == _ALL:
                root_state.decided |= 1 << b
        root_state.turn = 0 if x.bit_count() == o.bit_count() else 1
        if last >= 0 and not root_state.decided >> last % 9 & 1:
            root_state.forced = last % 9
        if self.mode == "compiled":
            return self._compiled_choice(root_state)
        root = _Node(-1, root_state.legal())
        rand = self.rng.random
        c = math.sqrt(2)
        for _ in range(self.playouts):
            node, state, path = root, root_state.clone(), [root]
            while not node.untried and node.children:
                log_n = math.log(node.visits)
                node = max(
                    node.children,
                    key=lambda ch: ch.wins / ch.visits + c * math.sqrt(log_n / ch.visits),
                )
                state.move(node.move)
                path.append(node)
            if node.untried:
                i = int(rand() * len(node.untried))
                cell = node.untried.pop(i)
                state.move(cell)
                child = _Node(cell, state.legal())
                node.children.append(child)
                path.append(child)
            winner = state.winner if state.winner >= 0 else self.playout(state, rand)
            for n in path:
                n.visits += 1
            _backup(path, winner, root_state.turn)
        best = max(root.children, key=lambda ch: ch.visits)
        return best.move

    def _compiled_choice(self, state: _State) -> int:
        """The most visited move of the compiled tree's plain UCT (lowest cell on ties)."""
        assert _compiled is not None
        p = state.turn
        mine, theirs = state.marks[p], state.marks[1 - p]
        tree = _compiled.Tree(
            mine, theirs, state.won[p], state.won[1 - p], state.decided, state.forced
        )
        seed = self.rng.getrandbits(64)
        tree.search(None, self.playouts, seed, math.sqrt(2), decisive=False, solver=False)
        visits = {cell: s[0] for cell in state.legal() if (s := tree.child_stats(cell))}
        return max(visits, key=lambda cell: visits[cell])


def _playout(state: _State, rand: Callable[[], float]) -> int:
    """Random moves to the end of the game (``state`` is used up); the winner, 2 a draw."""
    marks, won, decided, forced, p = state.marks, state.won, state.decided, state.forced, state.turn
    while True:
        if forced >= 0:
            b = forced
            free = _BITS[_ALL & ~(marks[0][b] | marks[1][b])]
            s = free[int(rand() * len(free))]
        else:
            if decided == _ALL:
                return 2
            x, o = marks
            cells = [
                c * 9 + q for c in _BITS[_ALL & ~decided] for q in _BITS[_ALL & ~(x[c] | o[c])]
            ]
            b, s = divmod(cells[int(rand() * len(cells))], 9)
        mine = marks[p][b] | 1 << s
        marks[p][b] = mine
        if _WINS[mine]:
            won[p] |= 1 << b
            decided |= 1 << b
            if _WINS[won[p]]:
                return p
        elif mine | marks[1 - p][b] == _ALL:
            decided |= 1 << b
        forced = -1 if decided >> s & 1 else s
        p = 1 - p


def _compiled_playout(state: _State, rand: Callable[[], float]) -> int:
    """:func:`_playout` run by the engine's compiled module."""
    assert _compiled is not None
    p = state.turn
    mine, theirs = state.marks[p], state.marks[1 - p]
    done, forced = state.decided, state.forced
    value = _compiled.playout(mine, theirs, state.won[p], state.won[1 - p], done, forced, rand)
    return 2 if value == 0.5 else p if value == 1.0 else 1 - p


def _backup(path: list[_Node], winner: int, root_turn: int) -> None:
    """Add the result to each node below the root, for the player who moved into it: the
    root's side to move made the first move of the path, and the sides alternate."""
    mover = root_turn
    for n in path[1:]:
        n.wins += 1.0 if winner == mover else 0.5 if winner == 2 else 0.0
        mover = 1 - mover
