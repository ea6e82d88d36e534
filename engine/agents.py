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
from engine.heuristics import N_STEP, ONE_STEP, lookahead_scores, one_step_scores

MEDIUM_DEPTH = 3
"""Plies the medium agent looks ahead: its move, the reply, its next move."""


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
    """Perfect play by alpha-beta: the fastest win, else a draw, else the slowest loss.
    Among equally perfect moves it prefers the ones medium's lookahead likes best, so it
    presses like medium where that is safe, and never loses."""

    name = "hard"

    def search(self, board: Board) -> list[int]:
        perfect = search.best_moves(board)
        if len(perfect) == 1:
            return perfect
        style = lookahead_scores(board, MEDIUM_DEPTH, N_STEP)
        return _argmax({cell: style[cell] for cell in perfect})


class UnbeatableAgent(SearchAgent):
    """Perfect play that, among value-keeping moves, maximises the chance that a fallible
    (uniformly random) opponent goes wrong: expectimax as the tie-break."""

    name = "unbeatable"

    def search(self, board: Board) -> list[int]:
        return sorted(expectimax.likeliest_wins(board, search.best_moves(board)))


AGENTS: dict[str, Callable[..., Agent]] = {
    cls.name: cls for cls in (RandomAgent, EasyAgent, MediumAgent, HardAgent, UnbeatableAgent)
}
LADDER: tuple[str, ...] = tuple(AGENTS)
"""Agent names from weakest to strongest."""


def get_agent(name: str, seed: int | None = None) -> Agent:
    """Make an agent by name.

    Raises:
        ValueError: for an unknown name; the message lists the valid ones.
    """
    factory = AGENTS.get(name)
    if factory is None:
        raise ValueError(f"unknown agent {name!r}: choose one of {', '.join(LADDER)}")
    return factory(seed=seed)
