"""A hint and a review as the page shows them: the same catalog texts as in chat,
without Discord's markdown, and the squares to light (each text as letters and in parts:
:func:`bot.web.page_text.texts`). Each game's board words its own (its page board in
:mod:`bot.web.boards`): the classic boards' are proofs, ultimate's the engine's
judgement, said in the chat's words."""

from __future__ import annotations

from typing import Any

from bot.core.engine_advice import EngineHint
from bot.core.hints import Hint
from bot.core.models import Game
from bot.core.variants import Review
from bot.web.boards import board_of


def hint_json(game: Game, hint: Hint | EngineHint, locale: str) -> dict[str, Any]:
    """The hint for ``game`` (what its variant's hint gave), as the page shows it."""
    return board_of(game.variant).hint_json(game, hint, locale)


def review_json(review: Review, locale: str) -> dict[str, Any]:
    """The review of a finished game, its moves to step through."""
    return board_of(review.game.variant).review_json(review, locale)
