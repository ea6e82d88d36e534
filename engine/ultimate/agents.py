"""The ladder for ultimate tic-tac-toe: random, easy, medium, hard, unbeatable.

The same interface as :mod:`engine.agents` (``candidates``/``choose``, a seedable RNG,
``inline`` for the moves cheap enough for an event loop); :func:`engine.get_agent` makes
them with ``variant="ultimate"``. Hard and unbeatable search with Monte Carlo tree search
(:mod:`engine.ultimate.mcts`) until a deadline checked inside the search.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from engine.agent import BaseAgent
from engine.ultimate import lookahead, mcts
from engine.ultimate.board import UltimateBoard
from engine.ultimate.fast import Position
from engine.ultimate.tables import WINS

DEFAULT_THINK_TIME = 2.0
MEDIUM_DEPTH = 2
"""Plies medium searches (its move and the reply), each scored by the heuristic."""
MEDIUM_SECONDS = 0.5
"""At most this long for medium's lookahead (a free move may have 80 replies)."""
HARD_ITERATIONS = 10_000
"""Hard's playouts a move: the bench reference's number, so hard beats it by its search
(proofs, game-winning playouts), not by more playouts. A count rather than a time, so hard
is as strong on a busy machine as on a quiet one, up to the think time, which still stops
it. Measured (60 games each against the 10,000-playout reference): 5,000 scored 0.78,
12,000 0.88. Hard searched a tenth of the think time before (30-60 k iterations), which
left unbeatable 0.806 against it; unbeatable searches the whole think time (~0.5-1 M
iterations on a quiet machine)."""
SAFETY = 0.03
"""Seconds kept back from the think time for what follows the search (choosing, IPC)."""


class UltimateAgent(BaseAgent[UltimateBoard]):
    """An agent for ultimate tic-tac-toe (:class:`UltimateBoard`)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} ultimate>"


class UltimateRandom(UltimateAgent):
    name = "random"
    inline = True

    def candidates(self, board: UltimateBoard) -> list[int]:
        return board.legal_moves()


class UltimateEasy(UltimateAgent):
    """Wins the game when it can, else takes a small board when it can, else any move."""

    name = "easy"
    inline = True

    def candidates(self, board: UltimateBoard) -> list[int]:
        cells = board.legal_moves()
        position = Position.of(board)
        winning = [c for c in cells if position.copy().play(c)]
        if winning:
            return winning
        taking = [c for c in cells if WINS[position.me[c // 9] | 1 << c % 9]]
        return taking or cells


class UltimateMedium(UltimateAgent):
    """Looks ``depth`` plies ahead with the heuristic of :mod:`engine.ultimate.lookahead`."""

    name = "medium"

    def __init__(self, seed: int | None = None, depth: int = MEDIUM_DEPTH) -> None:
        super().__init__(seed)
        self.depth = depth
        self.seconds: float | None = MEDIUM_SECONDS
        """None: always the full depth (tests that must not depend on the machine's load)."""

    def candidates(self, board: UltimateBoard) -> list[int]:
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        values = lookahead.scores(Position.of(board), self.depth, deadline)
        top = max(values.values())
        return sorted(c for c, v in values.items() if v == top)


class UltimateHard(UltimateAgent):
    """Monte Carlo tree search with proofs: ``HARD_ITERATIONS`` playouts a move, stopped
    sooner by the think time on a machine too busy for them."""

    name = "hard"
    playouts: int | None = HARD_ITERATIONS
    """Playouts a move (None: as many as the think time allows)."""
    keep_tree = False

    def __init__(
        self,
        seed: int | None = None,
        time_budget: float = DEFAULT_THINK_TIME,
        max_depth: int | None = None,
    ) -> None:
        super().__init__(seed)
        self.time_budget = time_budget
        self.max_depth = max_depth  # accepted for the factory's callers; MCTS has none
        self.iterations: int | None = self.playouts
        """Playouts a move, or None: until the clock stops the search."""
        self.clock = True
        """Stop at the think time too (False: the playouts only, so a test is reproducible
        however busy the machine)."""
        self.exploration = mcts.EXPLORATION
        self.decisive = True
        """Playouts take a move that wins the game (measured stronger; see mcts)."""
        self.last_search = 0
        """Playouts of the last move (for the bench)."""
        self.last_kept = 0
        """Visits the last move's search started from: a kept tree's, 0 for a new tree."""
        self.compiled = True
        """Search with the compiled tree when it was built (False: the Python one)."""
        self._tree: tuple[UltimateBoard, mcts.Tree] | None = None

    def _root(self, board: UltimateBoard) -> mcts.Tree:
        """The tree of ``board``: the last search's, advanced by our move and the reply,
        when ``board`` follows from it so; else a new one."""
        if self._tree is not None and self.keep_tree:
            before, tree = self._tree
            follows = not (before.x & ~board.x or before.o & ~board.o)
            if follows and board.move_count == before.move_count + 2 and board.last >= 0:
                ours = (board.x | board.o) & ~(before.x | before.o) & ~(1 << board.last)
                if tree.advance(ours.bit_length() - 1) and tree.advance(board.last):
                    return tree
        return mcts.make_tree(Position.of(board), self.compiled)

    def candidates(self, board: UltimateBoard) -> list[int]:
        start = time.perf_counter()
        tree = self._root(board)
        self.last_kept = tree.visits
        seconds = None
        if self.clock or self.iterations is None:
            spent = time.perf_counter() - start
            seconds = max(0.01, self.time_budget - SAFETY - spent)
        seed = self.rng.getrandbits(64)
        self.last_search = tree.search(
            seconds, self.iterations, seed, self.exploration, self.decisive
        )
        self._tree = (board, tree)
        return tree.best_moves()

    @property
    def kept_visits(self) -> int:
        """The root visits of the tree kept for the next move (0: none kept), a bound on
        its nodes: a search adds at most one node an iteration."""
        return self._tree[1].visits if self._tree is not None and self.keep_tree else 0


class UltimateUnbeatable(UltimateHard):
    """Monte Carlo tree search with proofs for the whole think time, keeping the tree
    from one move to the next."""

    name = "unbeatable"
    playouts = None
    keep_tree = True


ULTIMATE_AGENTS: dict[str, Callable[..., UltimateAgent]] = {
    cls.name: cls
    for cls in (UltimateRandom, UltimateEasy, UltimateMedium, UltimateHard, UltimateUnbeatable)
}


def make_agent(
    name: str,
    seed: int | None = None,
    time_budget: float | None = None,
    max_depth: int | None = None,
) -> UltimateAgent:
    """The ultimate agent called ``name``; see :func:`engine.get_agent`.

    Raises:
        ValueError: for an unknown name.
    """
    factory = ULTIMATE_AGENTS.get(name)
    if factory is None:
        raise ValueError(f"unknown agent {name!r}: choose one of {', '.join(ULTIMATE_AGENTS)}")
    if name in ("hard", "unbeatable"):
        budget = DEFAULT_THINK_TIME if time_budget is None else time_budget
        return factory(seed=seed, time_budget=budget, max_depth=max_depth)
    return factory(seed=seed)
