"""Monte Carlo tree search for ultimate tic-tac-toe, with proofs and a deadline.

UCT (UCB1 on each node's children) over uniformly random playouts, plus an MCTS-solver
in the manner of Winands et al.: a move that wins the game is proved at once, a node
with a winning child is proved lost for the side that moved into it, a node whose every
child is proved is proved with the best of them; proved losses are never selected. The
clock is read every :data:`CHECK_EVERY` iterations, so a search overruns its deadline by
at most one batch (about a millisecond).

:func:`make_tree` gives the search behind one interface, :class:`Tree`: the compiled
search of ``_csearch.c`` (about 40 times as fast) when it was built, else
:class:`PythonTree`, the functions below.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from random import Random
from types import ModuleType
from typing import Protocol

from engine.ultimate.fast import Position, moves, playout
from engine.ultimate.transition import place

_csearch: ModuleType | None
try:
    from engine.ultimate import _csearch
except ImportError:  # not built: the Python search below
    _csearch = None

CHECK_EVERY = 8
EXPLORATION = 0.7
"""UCB1's exploration constant: rewards are in [0, 1]; measured stronger than sqrt(2)."""


class Node:
    """A move in the tree. ``wins`` and ``proven`` are from the view of the side that
    played ``move`` (proven: 1 won, 0 drawn, -1 lost, None not proved)."""

    __slots__ = ("children", "move", "proven", "untried", "visits", "wins")

    def __init__(self, move: int, untried: list[int]) -> None:
        self.move = move
        self.untried = untried
        self.children: list[Node] = []
        self.visits = 0
        self.wins = 0.0
        self.proven: int | None = None

    def child(self, move: int) -> Node | None:
        return next((c for c in self.children if c.move == move), None)

    def value(self) -> float:
        """Expected score of ``move`` for its player: the proof when there is one."""
        if self.proven is not None:
            return (self.proven + 1) / 2
        return self.wins / self.visits if self.visits else 0.5


def new_root(position: Position) -> Node:
    return Node(-1, position.moves())


def search(
    root: Node,
    position: Position,
    deadline: float | None,
    rand: Callable[[], float],
    iterations: int | None = None,
    exploration: float = EXPLORATION,
    decisive: bool = True,
) -> int:
    """Grow ``root`` (the tree of ``position``) until ``deadline`` (a ``time.perf_counter``
    value), ``iterations`` playouts, or a proof of the root; return the iterations run.
    ``rand`` draws the random numbers, in [0, 1)."""
    log, sqrt, clock = math.log, math.sqrt, time.perf_counter
    done_iterations = 0
    while root.proven is None and root.untried + root.children:
        if iterations is not None and done_iterations >= iterations:
            break
        if deadline is not None and done_iterations % CHECK_EVERY == 0 and clock() >= deadline:
            break
        done_iterations += 1
        me, them = position.me[:], position.them[:]
        mine_won, theirs_won, done = position.mine_won, position.theirs_won, position.done
        node, path = root, [root]
        value = 0.5
        while node.proven is None:
            untried = node.untried
            if untried:  # expand one untried move, at random
                cell = untried.pop(int(rand() * len(untried)))  # kept ascending, as in C
                chosen = None
            else:  # select: UCB1 among the children not proved lost
                scale = exploration * sqrt(log(node.visits))
                chosen, best_score = node, -1.0
                for c in node.children:
                    if c.proven == -1:
                        continue
                    score = c.wins / c.visits + scale / sqrt(c.visits)
                    if score > best_score:
                        chosen, best_score = c, score
                cell = chosen.move
            b, s = divmod(cell, 9)
            me[b], mine_won, done, forced, won_game = place(me[b], them[b], mine_won, done, b, s)
            me, them, mine_won, theirs_won = them, me, theirs_won, mine_won
            if chosen is not None:
                node = chosen
                path.append(node)
                continue
            child = Node(cell, [] if won_game else moves(me, them, done, forced, theirs_won))
            if won_game:
                child.proven = 1
            elif not child.untried:
                child.proven = 0
            node.children.insert(0, child)  # newest first, as in C: the tie-break
            path.append(child)
            node = child
            if child.proven is None:
                value = 1.0 - playout(me, them, mine_won, theirs_won, done, forced, rand, decisive)
                break
        else:
            value = (node.proven + 1) / 2
            _prove(path)
        for n in reversed(path):
            n.visits += 1
            n.wins += value
            value = 1.0 - value
    return done_iterations


def _prove(path: list[Node]) -> None:
    """Carry the proof of ``path[-1]`` up the path as far as it settles its parents."""
    for i in range(len(path) - 1, 0, -1):
        node, parent = path[i], path[i - 1]
        if parent.proven is not None:
            return
        if node.proven == 1:
            parent.proven = -1
        elif not parent.untried and all(c.proven is not None for c in parent.children):
            parent.proven = -max(c.proven or 0 for c in parent.children)
        else:
            return


def best_moves(root: Node) -> list[int]:
    """The root's moves to play: a proved win if there is one, else the most visited of
    those not proved lost (all moves when every one is lost), ascending."""
    children = root.children
    if not children:
        return sorted(root.untried)
    wins = [c.move for c in children if c.proven == 1]
    if wins:
        return sorted(wins)
    alive = [c for c in children if c.proven != -1] or children
    most = max(c.visits for c in alive)
    return sorted(c.move for c in alive if c.visits == most)


class Tree(Protocol):
    """A search tree rooted at a position (the compiled one and :class:`PythonTree`)."""

    @property
    def proven(self) -> int | None:
        """The root's proof, from the view of the side that moved into it."""
        ...

    @property
    def visits(self) -> int: ...

    def search(
        self,
        seconds: float | None,
        iterations: int | None,
        seed: int = 1,
        exploration: float = EXPLORATION,
        decisive: bool = True,
        solver: bool = True,
        random: Callable[[], float] | None = None,
    ) -> int:
        """Grow the tree for ``seconds``, ``iterations`` playouts or until the root is
        proved; the iterations run. ``solver`` False: plain UCT (compiled only). ``random``:
        the numbers in [0, 1) to draw instead of the seeded generator's (the same callable
        grows the same tree in both; the compiled search then holds the GIL)."""
        ...

    def nodes(self) -> list[tuple[int, int, int, float, int | None]]:
        """Every node as ``(parent, move, visits, wins, proven)``, parents first (the
        root's parent and move are -1): the whole tree, to compare two."""
        ...

    def best_moves(self) -> list[int]: ...

    def child_stats(self, move: int) -> tuple[int, float, int | None] | None:
        """``(visits, wins, proven)`` of the root's child for ``move``, or None."""
        ...

    def advance(self, move: int) -> bool:
        """Make the root's child for ``move`` the root; False (unchanged) if there is none."""
        ...


class PythonTree:
    """:class:`Tree` in Python: :func:`search` over :class:`Node`."""

    def __init__(self, position: Position) -> None:
        self.position = position.copy()
        self.root = new_root(self.position)

    @property
    def proven(self) -> int | None:
        return self.root.proven

    @property
    def visits(self) -> int:
        return self.root.visits

    def search(
        self,
        seconds: float | None,
        iterations: int | None,
        seed: int = 1,
        exploration: float = EXPLORATION,
        decisive: bool = True,
        solver: bool = True,
        random: Callable[[], float] | None = None,
    ) -> int:
        """:func:`search`; ``solver`` is the compiled tree's only (always on here)."""
        deadline = None if seconds is None else time.perf_counter() + seconds
        draw = Random(seed).random if random is None else random
        return search(self.root, self.position, deadline, draw, iterations, exploration, decisive)

    def nodes(self) -> list[tuple[int, int, int, float, int | None]]:
        order, rows = [self.root], [(-1, -1, self.root.visits, self.root.wins, self.root.proven)]
        for i, node in enumerate(order):  # breadth first: parents before children
            for c in node.children:
                order.append(c)
                rows.append((i, c.move, c.visits, c.wins, c.proven))
        return rows

    def best_moves(self) -> list[int]:
        return best_moves(self.root)

    def child_stats(self, move: int) -> tuple[int, float, int | None] | None:
        child = self.root.child(move)
        return None if child is None else (child.visits, child.wins, child.proven)

    def advance(self, move: int) -> bool:
        child = self.root.child(move)
        if child is None:
            return False
        self.position.play(move)
        self.root = child
        return True


def make_tree(position: Position, compiled: bool = True) -> Tree:
    """A search tree of ``position``: the compiled one when built and ``compiled``."""
    if compiled and _csearch is not None:
        p = position
        tree: Tree = _csearch.Tree(p.me, p.them, p.mine_won, p.theirs_won, p.done, p.forced)
        return tree
    return PythonTree(position)
