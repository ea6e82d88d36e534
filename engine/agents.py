"""The ladder of opponents: random, easy, medium, hard, unbeatable.

Each agent names the set of moves it considers equally good (``candidates``) and picks
one with its own seedable RNG, so games are reproducible and the never-lose tests can
walk every tie-break an agent may take.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal, overload

from engine import book, exact, expectimax, solver
from engine.agent import BaseAgent
from engine.board import Board
from engine.heuristics import N_STEP, ONE_STEP, lookahead_scores, one_step_scores
from engine.ultimate.agents import UltimateAgent, make_agent
from engine.ultimate.board import UltimateBoard

MEDIUM_DEPTH = 3
"""Plies the medium agent looks ahead: its move, the reply, its next move."""
EXPECTIMAX_CELLS = 9
"""Boards up to this size get the exact expectimax tie-break (3×3)."""
EXACT_CELLS = 16
"""Boards up to this size are solved with depth-aware scores (4×4 takes about 0.2 s cold);
larger ones (5×5) by the exact sign search of :mod:`engine.exact` and the opening book."""
DEFAULT_THINK_TIME = 2.0
"""Seconds hard and unbeatable are given per move on 5×5. The book and the exact search
answer well inside it (milliseconds past the book); a search is never cut short, since
an unproved move could lose."""


def _argmax(scores: Mapping[int, float]) -> list[int]:
    top = max(scores.values())
    return sorted(cell for cell, value in scores.items() if value == top)


class Agent(BaseAgent[Board]):
    """An agent for the k-in-a-row boards (:class:`engine.Board`)."""


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
    """Perfect play on every board. Where the board is small enough (3×3, 4×4) that means
    the fastest win, else a draw, else the slowest loss, by depth-aware alpha-beta; among
    equally perfect moves it prefers the ones the windows heuristic likes best, so it
    presses where that is safe. On 5×5 it plays, among the moves that keep the exact game
    value, the ones the heuristic likes best: the heuristic orders the moves and the
    exact search (:mod:`engine.exact`) proves them in that order.

    ``time_budget`` and ``max_depth`` are accepted for the callers that pass them: the
    exact search runs to the end, because a move it has not proved could lose."""

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
        """Every value-keeping move (depth-aware best on boards up to EXACT_CELLS)."""
        if board.size * board.size <= EXACT_CELLS:
            return solver.best_moves(board)
        return exact.keeping_moves(board)

    def _shuffled(self, groups: list[list[int]]) -> list[list[int]]:
        """Each group in an order of the agent's RNG: which of equally rated moves the
        exact search proves first, and so plays, is the agent's seeded choice."""
        for group in groups:
            self.rng.shuffle(group)
        return groups

    def search(self, board: Board) -> list[int]:
        if board.size * board.size > EXACT_CELLS:
            booked = book.lookup(board)
            if booked is not None:
                return [booked]
            liked = {cell: (score,) for cell, score in one_step_scores(board, ONE_STEP).items()}
            return [exact.first_keeping(board, self._shuffled(expectimax.ranked(liked)))]
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
    leaves the most replies losing (solved exactly on 4×4; on 5×5 an unstoppable win
    next move, the moves ranked by that count and proved in that order)."""

    name = "unbeatable"

    def search(self, board: Board) -> list[int]:
        if board.size * board.size > EXACT_CELLS:
            booked = book.lookup(board)
            if booked is not None:
                return [booked]
            return [exact.first_keeping(board, self._shuffled(expectimax.trap_ranking(board)))]
        perfect = self.perfect_moves(board)
        if board.size * board.size <= EXPECTIMAX_CELLS:
            return sorted(expectimax.likeliest_wins(board, perfect))
        return _argmax(expectimax.trap_counts(board, perfect, exact=True))


AGENTS: dict[str, Callable[..., Agent]] = {
    cls.name: cls for cls in (RandomAgent, EasyAgent, MediumAgent, HardAgent, UnbeatableAgent)
}
LADDER: tuple[str, ...] = tuple(AGENTS)
"""Agent names from weakest to strongest."""


VARIANTS: tuple[str, ...] = ("classic", "ultimate")
"""The games an agent is made for: N×N k-in-a-row boards (:class:`engine.Board`) and
ultimate tic-tac-toe (:class:`engine.ultimate.UltimateBoard`)."""


def start_board(
    variant: str = "classic", size: int = 3, k: int | None = None
) -> Board | UltimateBoard:
    """The empty board of a game: ``size`` and ``k`` are the classic boards' (ultimate's
    grid is fixed).

    Raises:
        ValueError: an unknown variant, or a bad size for the classic boards.
    """
    if variant == "ultimate":
        return UltimateBoard.new()
    if variant != "classic":
        raise ValueError(f"unknown variant {variant!r}: choose one of {', '.join(VARIANTS)}")
    return Board.new(size, k)


@overload
def get_agent(
    name: str,
    seed: int | None = ...,
    time_budget: float | None = ...,
    max_depth: int | None = ...,
    variant: Literal["classic"] = ...,
) -> Agent: ...
@overload
def get_agent(
    name: str,
    seed: int | None = ...,
    time_budget: float | None = ...,
    max_depth: int | None = ...,
    *,
    variant: Literal["ultimate"],
) -> UltimateAgent: ...
@overload
def get_agent(
    name: str,
    seed: int | None = ...,
    time_budget: float | None = ...,
    max_depth: int | None = ...,
    *,
    variant: str,
) -> Agent | UltimateAgent: ...
def get_agent(
    name: str,
    seed: int | None = None,
    time_budget: float | None = None,
    max_depth: int | None = None,
    variant: str = "classic",
) -> Agent | UltimateAgent:
    """Make an agent by name for a game: ``variant`` is "classic" (k-in-a-row boards) or
    "ultimate". ``time_budget`` (seconds) and ``max_depth`` (plies) bound hard's and
    unbeatable's search on boards too large to solve, and the think time of ultimate's;
    others ignore them.

    Raises:
        ValueError: for an unknown name or variant; the message lists the valid ones.
    """
    if variant == "ultimate":
        return make_agent(name, seed, time_budget, max_depth)
    if variant != "classic":
        raise ValueError(f"unknown variant {variant!r}: choose one of {', '.join(VARIANTS)}")
    factory = AGENTS.get(name)
    if factory is None:
        raise ValueError(f"unknown agent {name!r}: choose one of {', '.join(LADDER)}")
    if issubclass(factory, HardAgent):  # type: ignore[arg-type]
        budget = DEFAULT_THINK_TIME if time_budget is None else time_budget
        return factory(seed=seed, time_budget=budget, max_depth=max_depth)
    return factory(seed=seed)
