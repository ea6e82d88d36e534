"""Hints kept per position (STYLE.md rule 17: worked out once, handed to whoever asks):
a hint is for one ply of one game, and the position at a ply never changes, so the same
``(game, ply)`` asked again is answered from here, with no engine work, and asked while
it is being worked out waits for that same computation.

It also says which asks are free of the page's budgets: the first ask for the position
in front of its member, once per ply of their own game, is never refused (the issue's
member who asks a hint before each move of a fast game); every other ask (the same ply
again, another ply, a game not theirs) is counted. Kept per process, as the budgets are.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

from bot.core import moves
from bot.core.models import Game
from bot.core.refusals import Refusal

KEPT = 10_000
"""Positions kept (and first asks remembered); past that the oldest are forgotten (their
games moved on long ago, or nearly: a hint is asked for the ply in front of a member)."""

H = TypeVar("H")
Position = tuple[int, int]
"""A game's id and ply."""


class KeptHints(Generic[H]):
    """The hints of the last :data:`KEPT` positions asked, and which were asked."""

    def __init__(self, size: int = KEPT) -> None:
        self._size = size
        self._kept: OrderedDict[Position, H] = OrderedDict()
        self._asked: OrderedDict[Position, None] = OrderedDict()
        self._flights: dict[Position, asyncio.Future[H]] = {}

    def claim(self, game: Game | None, game_id: int, ply: int, user_id: int, *,
              fresh: bool) -> bool | None:  # fmt: skip
        """Whether an ask of ``user_id`` for ``(game_id, ply)`` is free: True for the first
        ask of the position in front of them in their own game against the bot (the
        claim is spent: the next ask of it is not), False if not, None if ``game`` (as
        this process last knew it, unless ``fresh``: just read) cannot tell: unknown
        here, or behind the ply asked (another process may have stored the moves)."""
        if (game_id, ply) in self._asked:
            return False
        if game is None or game.id != game_id:
            return None if not fresh else False
        if game.ply < ply and not fresh:
            return None
        try:
            moves.check_turn(game, ply, user_id)
        except Refusal:
            return False
        if game.bot_side is None:
            return False
        self._asked[(game_id, ply)] = None
        if len(self._asked) > self._size:
            self._asked.popitem(last=False)
        return True

    def get(self, game_id: int, ply: int) -> H | None:
        return self._kept.get((game_id, ply))

    async def work_out(
        self, game_id: int, ply: int, compute: Callable[[], Awaitable[H]],
        joining: Callable[[], Awaitable[None]] | None = None,
    ) -> tuple[H, bool]:  # fmt: skip
        """The hint of ``(game_id, ply)``: kept, or being worked out (waited for, after
        ``joining`` is called), or worked out by ``compute`` now and kept; and whether it
        was kept or joined.

        Raises:
            whatever ``compute`` raises (to its caller, and to those who waited for it).
        """
        position = (game_id, ply)
        kept = self._kept.get(position)
        if kept is not None:
            return kept, True
        flight = self._flights.get(position)
        if flight is not None:
            if joining is not None:
                await joining()
            return await asyncio.shield(flight), True
        flight = self._flights[position] = asyncio.get_running_loop().create_future()
        try:
            hint = await compute()
        except BaseException as error:
            if isinstance(error, Exception):
                flight.set_exception(error)
                flight.exception()  # retrieved: none may have waited for it
            else:
                flight.cancel()
            raise
        finally:
            del self._flights[position]
        self._kept[position] = hint
        if len(self._kept) > self._size:
            self._kept.popitem(last=False)
        flight.set_result(hint)
        return hint, False
