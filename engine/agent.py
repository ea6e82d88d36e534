"""What every agent is, for any game: it names the moves it rates best
(``candidates``) and picks one with its own seedable RNG, so games are reproducible.

Each game's ladder subclasses it for its board: :mod:`engine.agents` for the k-in-a-row
boards, :mod:`engine.ultimate.agents` for ultimate tic-tac-toe. This module imports
neither, so both can build on it.
"""

from __future__ import annotations

import random
from typing import Generic, Protocol, TypeVar

from engine.board import IllegalMove


class Playable(Protocol):
    """What an agent needs of a board: whether the game is over."""

    def is_over(self) -> bool: ...


B = TypeVar("B", bound=Playable)


class BaseAgent(Generic[B]):
    """Base agent: ``choose`` picks uniformly among ``candidates`` with a seedable RNG."""

    name = "agent"
    #: True when a move is cheap enough to compute on the event loop itself.
    inline = False

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def candidates(self, board: B) -> list[int]:
        """The moves this agent rates best, ascending. Never empty for a running game."""
        raise NotImplementedError

    def choose(self, board: B) -> int:
        """Pick a move for the side to move.

        Raises:
            IllegalMove: the game is already over.
        """
        if board.is_over():
            raise IllegalMove("the game is over")
        return self.rng.choice(self.candidates(board))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"
