"""What the bot needs of a game, whichever it is (STYLE.md rule 15): its shape, why it
refuses a move, the choice of small board a mover may have, and which engine calls give
its hints and reviews. Each variant implements :class:`GameVariant` in a module of its own
(:mod:`~bot.core.variants.classic`, :mod:`~bot.core.variants.ultimate`); the services
look one up by the game's variant (:func:`bot.core.variants.variant_of`) and ask it,
never which game it is. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from bot.core.engine_advice import EngineHint
from bot.core.hints import Hint
from bot.core.models import Game, Variant
from bot.core.refusals import Refusal
from bot.core.review import MoveVerdict
from engine.ultimate.review import ReviewedMove

T = TypeVar("T")
BoardT_contra = TypeVar("BoardT_contra", contravariant=True)


class Runner(Protocol):
    """Where the engine's work runs: ``fn(*args)``, ``fn`` a module-level function of
    plain values, on the caller's thread (:func:`run_here`) or in a worker process
    (:meth:`engine.EnginePool.run`)."""

    def __call__(self, fn: Callable[..., T], /, *args: Any) -> Awaitable[T]: ...


async def run_here(fn: Callable[..., T], /, *args: Any) -> T:
    """``fn(*args)`` on the caller's own thread: for tests and instant boards only."""
    return fn(*args)


@dataclass(frozen=True, slots=True)
class Review:
    game: Game
    verdicts: list[MoveVerdict]
    judged: list[ReviewedMove] | None = None
    """An ultimate game's review instead of ``verdicts``: the engine's estimate, not a
    proof (see :mod:`bot.core.engine_advice`)."""


class GameVariant(Protocol[BoardT_contra]):
    """A game the bot plays, over its board type (what :attr:`Game.board` builds for it)."""

    @property
    def name(self) -> Variant:
        """The name games, challenges, tournaments and records are stored under."""
        ...

    @property
    def sized(self) -> bool:
        """Whether a game of it is started with a board size (the classic boards); else its
        grid is fixed, and a size given is ignored."""
        ...

    @property
    def keeps_agents(self) -> bool:
        """Whether the bot keeps one agent per difficulty for its boards (tables kept warm,
        a small board's move made inline); else the engine makes an agent each move."""
        ...

    def shape(self, size: int) -> tuple[int, int]:
        """The ``size`` and ``k`` stored for a game of it started with ``size``.

        Raises:
            InvalidBoard: a size it does not have.
        """
        ...

    def label(self, size: int) -> str:
        """A game's board in the log: ``4×4``, ``ultimate``."""
        ...

    def illegal_move(self, board: BoardT_contra, cell: int) -> Refusal:
        """Why ``board`` refused ``cell`` (not one of its legal moves)."""
        ...

    def board_choice(self, board: BoardT_contra) -> list[int] | None:
        """The small boards the side to move may look into before its move, when it has
        that choice (ultimate's free move); None when it has none."""
        ...

    def no_board_choice(self, board: BoardT_contra) -> Refusal:
        """Why a board choice is refused when :meth:`board_choice` offers none: no such
        thing in this game (a stale or foreign click), or the small board the move must
        be in (ultimate: a choice is never shown then, so the click is forged)."""
        ...

    def instant_hint(self, board: BoardT_contra) -> Hint | None:
        """The hint worked out here and now, where that takes microseconds; else None
        (:meth:`hint` then works it out away from the event loop)."""
        ...

    async def hint(self, board: BoardT_contra, run: Runner) -> Hint | EngineHint:
        """The hint for the side to move on a running ``board``, worked out by ``run``.

        Raises:
            ValueError: the game is over. TimeoutError: ``run`` gave up.
        """
        ...

    async def review(self, game: Game, run: Runner) -> Review:
        """A finished game's review, worked out by ``run`` where it takes a while.

        Raises:
            IllegalMove: ``game``'s moves are not a legal game.
        """
        ...
