"""A new game's board, stored a little later: by the first click on it, or on its own.

A start posts the game's board after the game is stored, so the board's message id
comes last, and writing it alone was a round trip of its own on every start (on
PostgreSQL the bot plus its server paid about a tenth more per interaction for it). The
first click on the board stores it with the move instead: a click proves which message
is the game's board, so the click's UPDATE takes the clicked message where none is
stored (``game_queries.save_game``). A board nobody clicks within :data:`DELAY` seconds
is written on its own, and every one left is written when the store closes.

Until then, games this process reads show the board it knows; another process reads
none for that second, as it would after a crash between posting and storing (it then
links the channel instead of the board). A write never replaces a board stored in the
meantime: one posted again elsewhere (``/ttt board``) stays the live one.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import overload

from bot.core.models import Game

log = logging.getLogger(__name__)

DELAY = 1.0
"""Seconds a board waits for a click to store it."""

Write = Callable[[int, int], Awaitable[bool]]
"""Stores a game's message id unless one is stored already: ``(game_id, message_id)``."""


class BoardWrites:
    def __init__(self, write: Write) -> None:
        self._write = write
        self.delay = DELAY  # read when made, so a test may set the module's first
        self._due: dict[int, tuple[int, float]] = {}
        """Game id → (its board's message id, when to write it)."""
        self._writer: asyncio.Task[None] | None = None

    def note(self, game_id: int, message_id: int) -> None:
        """``message_id`` is the board just posted for the game: write it soon."""
        loop = asyncio.get_running_loop()
        self._due[game_id] = (message_id, loop.time() + self.delay)
        if self._writer is None or self._writer.done():
            self._writer = loop.create_task(self._write_when_due())

    def board_of(self, game_id: int) -> int | None:
        """The board posted for the game and not stored yet, if any."""
        due = self._due.get(game_id)
        return None if due is None else due[0]

    @overload
    def known(self, games: Game) -> Game: ...
    @overload
    def known(self, games: None) -> None: ...
    @overload
    def known(self, games: list[Game]) -> list[Game]: ...
    def known(self, games: Game | list[Game] | None) -> Game | list[Game] | None:
        """Games as read, with the boards this process posted and has not stored yet;
        a game read with a board stored needs no write any more."""
        if not self._due or games is None:
            return games
        if isinstance(games, list):
            return [self.known(game) for game in games]
        if games.message_id is not None:
            self._due.pop(games.id, None)
            return games
        message_id = self.board_of(games.id)
        return games if message_id is None else games.with_changes(message_id=message_id)

    async def write_now(self, game_id: int) -> None:
        """Store the game's board now, if one is waiting (before a compare-and-set on it)."""
        message_id = self.board_of(game_id)
        if message_id is not None:
            await self._store(game_id, message_id)

    async def close(self) -> None:
        """Store every board still waiting (the store is closing)."""
        if self._writer is not None:
            self._writer.cancel()
            self._writer = None
        for game_id, (message_id, _) in list(self._due.items()):
            try:
                await self._store(game_id, message_id)
            except Exception:
                log.exception("game %s: its board %s could not be stored", game_id, message_id)

    async def _write_when_due(self) -> None:
        loop = asyncio.get_running_loop()
        while self._due:
            await asyncio.sleep(max(0.0, min(at for _, at in self._due.values()) - loop.time()))
            now = loop.time()
            for game_id, (message_id, at) in list(self._due.items()):
                if at > now:
                    continue
                try:
                    await self._store(game_id, message_id)
                except Exception:  # the database is away: try again after a while
                    log.exception("game %s: storing its board failed", game_id)
                    if self.board_of(game_id) == message_id:
                        self._due[game_id] = (message_id, loop.time() + self.delay)

    async def _store(self, game_id: int, message_id: int) -> None:
        await self._write(game_id, message_id)
        if self.board_of(game_id) == message_id:
            del self._due[game_id]
