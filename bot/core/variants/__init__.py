"""The games the bot plays, by the name they are stored under: the one place that knows
which exist. A service asks the game's variant (:func:`variant_of`) what it needs to know
(see :class:`~bot.core.variants.protocol.GameVariant`); adding a game is a module beside
``classic.py`` and a line in :data:`GAME_VARIANTS` (and one in each interface layer's
registry: :data:`bot.discord_ui.renderers.RENDERERS`, :data:`bot.web.boards.BOARDS`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from bot.core.engine_advice import EngineHint
from bot.core.hints import Hint
from bot.core.models import GameBoard
from bot.core.variants.classic import CLASSIC
from bot.core.variants.protocol import GameVariant, Review, Runner, run_here
from bot.core.variants.ultimate import ULTIMATE

GAME_VARIANTS: dict[str, GameVariant[Any]] = {"classic": CLASSIC, "ultimate": ULTIMATE}


def variant_of(name: str) -> GameVariant[Any]:
    """The variant a game, challenge, tournament or board names (its ``variant``).

    Raises:
        KeyError: no game the bot plays (storage only holds those it does).
    """
    return GAME_VARIANTS[name]


Advisor = Callable[[GameBoard], Awaitable[Hint | EngineHint]]
"""Works out a hint away from the event loop (see :meth:`GameVariant.instant_hint`): the
exact one on the k-in-a-row boards, the engine's estimate on ultimate's."""


async def advise_here(board: GameBoard) -> Hint | EngineHint:
    """The hint on the caller's own thread: for tests and instant boards only."""
    return await variant_of(board.variant).hint(board, run_here)


__all__ = [
    "GAME_VARIANTS",
    "Advisor",
    "GameVariant",
    "Review",
    "Runner",
    "advise_here",
    "run_here",
    "variant_of",
]
