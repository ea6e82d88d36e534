"""Each game's board on the page, by the variant's name: the one place of the web layer
that knows which games exist (as :data:`bot.core.variants.GAME_VARIANTS` is the core's).
:func:`bot.web.game_json.game_json` adds a board's fields to what every game shows."""

from __future__ import annotations

from typing import Any, Protocol

from bot.web import classic_json, ultimate_json


class PageBoard(Protocol):
    """What a game's board looks like on the page (docs/develop/activity-api.md)."""

    def board_json(self, board: Any, locale: str, running: bool) -> dict[str, Any]:
        """The Game fields of its board: ``cells``, ``shape`` and its own."""
        ...

    def square_name(self, board: Any, cell: int) -> str:
        """A square's name as chat's hints and reviews name it ("C3", "E5")."""
        ...

    def won_key(self, k: int) -> str:
        """The catalog key of the status line of a game won on the board (a line of ``k``)."""
        ...

    def page_texts(self, locale: str) -> dict[str, str]:
        """The texts the page needs for it (its name in the start form, its rules)."""
        ...

    def hint_json(self, game: Any, hint: Any, locale: str) -> dict[str, Any]:
        """Its hint (what its variant's hint gives) as the page shows it: ``text``,
        ``parts`` and the ``cells`` to light."""
        ...

    def review_json(self, review: Any, locale: str) -> dict[str, Any]:
        """Its finished game's review: ``steps`` (a text and the board after each) and a
        ``summary``."""
        ...


BOARDS: dict[str, PageBoard] = {"classic": classic_json.PAGE, "ultimate": ultimate_json.PAGE}


def board_of(variant: str) -> PageBoard:
    """The page board of a game's ``variant``.

    Raises:
        KeyError: no game the bot plays.
    """
    return BOARDS[variant]
