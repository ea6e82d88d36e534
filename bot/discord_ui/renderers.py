"""Each game's renderer in chat, by the variant's name: the one place of the Discord
interface that knows which games exist (as :data:`bot.core.variants.GAME_VARIANTS` is
the core's). A renderer draws its game's message, grid, hint and review; what every
board shares is :mod:`~bot.discord_ui.render_common`'s."""

from __future__ import annotations

from typing import Protocol

from bot.core.engine_advice import EngineHint
from bot.core.hints import Hint
from bot.core.models import Game, GameUpdate
from bot.core.policy import Marks
from bot.core.records import Review
from bot.discord_ui import render_classic, render_ultimate
from bot.discord_ui.render_common import GameMessage


class ChatRenderer(Protocol):
    """What a game looks like in Discord."""

    def grid(self, game: Game, marks: Marks) -> str:
        """The board as emoji, in marks that fit a message's text."""
        ...

    def game_message(self, update: GameUpdate, locale: object) -> GameMessage:
        """The game's message: its text and buttons."""
        ...

    def hint_text(self, game: Game, hint: Hint | EngineHint, locale: object, marks: Marks) -> str:
        """The private answer to a Hint click (the hint its core variant works out)."""
        ...

    def review_text(self, review: Review, locale: object, marks: Marks) -> str:
        """A finished game's review (as its core variant works it out)."""
        ...

    def challenge_note(self, locale: object) -> str | None:
        """A line a challenge to this game adds, so the opponent knows what they accept."""
        ...


RENDERERS: dict[str, ChatRenderer] = {
    "classic": render_classic.RENDERER,
    "ultimate": render_ultimate.RENDERER,
}


def renderer_of(variant: str) -> ChatRenderer:
    """The renderer of a game, challenge or tournament's ``variant``.

    Raises:
        KeyError: no game the bot plays.
    """
    return RENDERERS[variant]
