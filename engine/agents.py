"""The ladder of opponents: random, easy, medium, hard, unbeatable.

Each agent names the set of moves it considers equally good (``candidates``) and picks
one with its own seedable RNG, so games are reproducible and the never-lose tests can
walk every tie-break an agent may take.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engine import expectimax, search
from engine.board import Board, IllegalMove
from engine.deepening import deepening_search
from engine.heuristics import N_STEP, ONE_STEP, lookahead_scores, one_step_scores

MEDIUM_DEPTH = 3
"""Plies the medium agent looks ahead: its move, the reply, its next move."""
EXPECTIMAX_CELLS = 9
"""Boards up to this size get the exact expectimax tie-break (3×3)."""
EXACT_CELLS = 16
"""Boards up to this size are solved exactly (4×4 takes about 0.2 s cold)."""
DEFAULT_THINK_TIME = 2.0
"""Seconds hard and unbeatable may think on boards too large to solve."""


def _argmax(scores: dict[int, float]) -> list[int]:
    top = max(scores.values())
    return sorted(cell for cell, value in scores.items() if value == top)


class Agent:
    """Base agent: ``choose`` picks uniformly among ``candidates`` with a seedable RNG."""

    name = "agent"
    #: True when a move is cheap enough to compute on the event loop itself.
    inline = False

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def candidates(self, board: Board) -> list[int]:
        """The moves this agent rates best, ascending. Never empty for a running game."""
        raise NotImplementedError

    def choose(self, board: Board) -> int:
        """Pick a move for the side to move.

        Raises:
            IllegalMove: the game is already over.
        """
        if board.is_over():
            raise IllegalMove("the game is over")
        return self.rng.choice(self.candidates(board))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


class RandomAgent(Agent):
    """Uniform over the legal moves."""

    name = "random"
    inline = True

    def candidates(self, board: Board) -> list[int]:
        return board.legal_moves()


class EasyAgent(Agent):
    """One-step lookahead with seed 001's windows heuristic, every window counted."""

    name = "easy"
    inline = True

    def candidates(self, board: Board) -> list[int]:
        return _argmax(one_step_scores(board, ONE_STEP))


class SearchAgent(Agent):
    """An agent whose candidates take a search: computed once per position, then remembered."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._cache: dict[Board, list[int]] = {}

    def candidates(self, board: Board) -> list[int]:
        moves = self._cache.get(board)
        if moves is None:
            moves = self._cache[board] = self.search(board)
        return moves

    def search(self, board: Board) -> list[int]:
        raise NotImplementedError


class MediumAgent(SearchAgent):
    """Depth-limited minimax over seed 000's heuristic with a real minimising opponent."""

    name = "medium"

    def __init__(self, seed: int | None = None, depth: int = MEDIUM_DEPTH) -> None:
        super().__init__(seed)
        self.depth = depth

    def search(self, board: Board) -> list[int]:
        return _argmax(lookahead_scores(board, self.depth, N_STEP))


class HardAgent(SearchAgent):
    """Perfect play where the board can be solved (3×3, 4×4): the fastest win, else a
    draw, else the slowest loss, by alpha-beta. Among equally perfect moves it prefers
    the ones the windows heuristic likes best, so it presses where that is safe. Larger
    boards get an iterative-deepening search inside ``time_budget`` seconds."""

    name = "hard"

    def __init__(
        self,
        seed: int | None = None,
        time_budget: float = DEFAULT_THINK_TIME,
        max_depth: int | None = None,
    ) -> None:
        super().__init__(seed)
        self.time_budget = time_budget
        self.max_depth = max_depth

    def perfect_moves(self, board: Board) -> list[int]:
        """Value-keeping moves: exact where solvable, else the budgeted search's best."""
        if board.size * board.size <= EXACT_CELLS:
            return search.best_moves(board)
        return deepening_search(board, self.time_budget, self.max_depth).moves

    def search(self, board: Board) -> list[int]:
        perfect = self.perfect_moves(board)
        if len(perfect) == 1:
            return perfect
        if board.size * board.size <= EXPECTIMAX_CELLS:
            style = lookahead_scores(board, MEDIUM_DEPTH, N_STEP)
        else:
            style = one_step_scores(board, ONE_STEP)
        return _argmax({cell: style[cell] for cell in perfect})


class UnbeatableAgent(HardAgent):
    """Perfect play that, among value-keeping moves, maximises the chance that a fallible
    opponent goes wrong. On 3×3 that is exact expectimax against a uniformly random
    opponent; on larger boards, where that expectation is out of reach, the move that
    leaves the most replies losing (solved exactly on 4×4, an unstoppable win next move
    on 5×5)."""

    name = "unbeatable"

    def search(self, board: Board) -> list[int]:
        perfect = self.perfect_moves(board)
        if board.size * board.size <= EXPECTIMAX_CELLS:
            return sorted(expectimax.likeliest_wins(board, perfect))
        exact = board.size * board.size <= EXACT_CELLS
        return _argmax(expectimax.trap_counts(board, perfect, exact=exact))


AGENTS: dict[str, Callable[..., Agent]] = {
    cls.name: cls for cls in (RandomAgent, EasyAgent, MediumAgent, HardAgent, UnbeatableAgent)
}
LADDER: tuple[str, ...] = tuple(AGENTS)
"""Agent names from weakest to strongest."""


def get_agent(
    name: str,
    seed: int | None = None,
    time_budget: float | None = None,
    max_depth: int | None = None,
) -> Agent:
    """Make an agent by name. ``time_budget`` (seconds) and ``max_depth`` (plies) bound
    hard's and unbeatable's search on boards too large to solve; others ignore them.

    Raises:
        ValueError: for an unknown name; the message lists the valid ones.
    """
    factory = AGENTS.get(name)
    if factory is None:
        raise ValueError(f"unknown agent {name!r}: choose one of {', '.join(LADDER)}")
    if issubclass(factory, HardAgent):  # type: ignore[arg-type]
        budget = DEFAULT_THINK_TIME if time_budget is None else time_budget
        return factory(seed=seed, time_budget=budget, max_depth=max_depth)
    return factory(seed=seed)
