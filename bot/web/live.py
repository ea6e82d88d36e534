"""Live updates for the open pages: every change to a game of a channel, from whatever
process made it, reaches the pages watching that channel.

The store tells of each game written (a trigger on the games table: PostgreSQL's
NOTIFY to every process, SQLite's in this one), with its channel and id; the hub reads
the game again and sends each page of that channel the game as that member sees it.
When notifications may have been lost (the listening connection was down), every page
gets its channel's games again, as a page that reconnects does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from bot.core.models import GameUpdate
from bot.core.repository import GAMES_TOPIC, MISSED
from bot.web.sessions import Session

log = logging.getLogger(__name__)

__all__ = ["GAMES_TOPIC", "LiveHub"]
Read = Callable[[int], Awaitable[GameUpdate | None]]
"""A game as stored (None: gone)."""
Render = Callable[[GameUpdate, Session], Awaitable[dict[str, Any]]]
"""A game as one member sees it."""
GamesFor = Callable[[Session], Awaitable[list[dict[str, Any]]]]


class LiveHub:
    def __init__(self, read: Read, render: Render, games_for: GamesFor) -> None:
        self.read = read
        self.render = render
        self.games_for = games_for
        self._pages: dict[int, set[tuple[web.WebSocketResponse, Session]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def pages(self) -> int:
        return sum(len(pages) for pages in self._pages.values())

    def heard(self, payload: str) -> None:
        """A notification: ``channel:game``, or :data:`MISSED`."""
        if payload == MISSED:
            for channel_id in list(self._pages):
                self._spawn(self._catch_up(channel_id))
            return
        channel, _, game = payload.partition(":")
        if not (channel.isdigit() and game.isdigit()) or int(channel) not in self._pages:
            return
        self._spawn(self._send_game(int(channel), int(game)))

    def _spawn(self, job: Awaitable[None]) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def serve(
        self, socket: web.WebSocketResponse, session: Session, shown: int | None = None
    ) -> None:
        """Send the channel's games, then each change, until the page goes. The game the
        page shows (``shown``), when it has ended, goes first: it is no longer among the
        running games, and a page that reconnects after it ended must see how."""
        pages = self._pages.setdefault(session.channel_id, set())
        page = (socket, session)
        pages.add(page)
        try:
            ended = None
            if shown is not None:
                try:
                    ended = await self.read(shown)
                except Exception as exc:  # the database does not answer: the list still goes
                    log.debug("live: shown game %s not read (%s)", shown, exc)
            if (
                ended is not None
                and not ended.game.running
                and (ended.game.channel_id == session.channel_id)
            ):
                await socket.send_json({"type": "game", "game": await self.render(ended, session)})
            await socket.send_json({"type": "games", "games": await self.games_for(session)})
            async for _ in socket:  # the page sends nothing but pings
                pass
        finally:
            pages.discard(page)
            if not pages:
                self._pages.pop(session.channel_id, None)

    async def _send_game(self, channel_id: int, game_id: int) -> None:
        """The game read once, and sent to each page of its channel as its member sees it."""
        try:
            update = await self.read(game_id)
        except Exception as exc:  # the database does not answer: pages catch up later
            log.debug("live: game %s not read (%s)", game_id, exc)
            return
        if update is None or update.game.channel_id != channel_id:
            return
        for socket, session in list(self._pages.get(channel_id, ())):
            try:
                if not socket.closed:
                    game = await self.render(update, session)
                    await socket.send_json({"type": "game", "game": game})
            except Exception as exc:  # one page's failure is not the others'
                log.debug("live: game %s not sent to a page (%s)", game_id, exc)

    async def _catch_up(self, channel_id: int) -> None:
        for socket, session in list(self._pages.get(channel_id, ())):
            with contextlib.suppress(Exception):
                await socket.send_json({"type": "games", "games": await self.games_for(session)})

    async def close(self) -> None:
        sockets = [socket for pages in self._pages.values() for socket, _ in pages]
        await asyncio.gather(*(socket.close() for socket in sockets), return_exceptions=True)
        for task in list(self._tasks):
            task.cancel()
