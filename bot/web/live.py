"""Live updates for the open pages: every change to a game of a channel, from whatever
process made it, reaches the pages watching that channel.

The store tells of each game written (a trigger on the games table: PostgreSQL's
NOTIFY to every process, SQLite's in this one), with its channel and id; the hub reads
the game once, makes it once for each member watching (as that member sees it) and queues
it for each of their pages, which send on their own (:mod:`bot.web.live_page`: one page
that stops reading delays no other). When notifications may have been lost (the
listening connection was down), every page gets its channel's games again, as a page
that reconnects does.

A page's socket names its session in its first message, and sends nothing after it
(:mod:`bot.web.live_guard`). A member holds a few pages at most in a process, and the
process a total of them; a page lasts while its session does and while its member is in
the Activity instance it was opened from (asked of Discord every few minutes, once per
instance however many pages it has).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from aiohttp import web

from bot.core.models import GameUpdate
from bot.core.repository import GAMES_TOPIC, MISSED
from bot.i18n import text
from bot.web.errors import WebRefusal
from bot.web.live_guard import FIRST_WAIT, PageGuard, ReadSession, Waiting
from bot.web.live_page import (
    CLOSE_BUDGET,
    CLOSE_EXPIRED,
    CLOSE_LEFT,
    CLOSE_TOO_MANY,
    LivePage,
    refuse,
)
from bot.web.page_text import plain
from bot.web.sessions import Session

log = logging.getLogger(__name__)
FULL_WAIT = 30
"""Seconds a page refused because the process has all the pages it takes waits before
trying again (the page adds up to half again at random)."""
GOING_AWAY = 1001
"""This process stops: the pages reconnect (to another, or to it when it is back)."""

__all__ = ["GAMES_TOPIC", "LiveHub", "LiveLimits"]
Read = Callable[[int], Awaitable[GameUpdate | None]]
"""A game as stored (None: gone)."""
Render = Callable[[GameUpdate, Session], Awaitable[dict[str, Any]]]
"""A game as one member sees it."""
GamesFor = Callable[[Session], Awaitable[list[dict[str, Any]]]]
Connect = Callable[[Session], None]
"""Spends a connect credit of the session's member. Raises WebRefusal (429) when spent."""
Instance = Callable[[str], Awaitable[dict[str, Any]]]
"""An Activity instance as Discord tells it (``users``: who is in it). Raises
WebRefusal ``not_in_instance`` for one that is no longer running."""


@dataclass(frozen=True, slots=True)
class LiveLimits:
    pages_per_member: int = 3
    pages_overall: int = 2000
    """Pages open in this process, all members together."""
    first_wait: float = FIRST_WAIT
    """Seconds a socket may take to send its session."""
    presence_every: float = 180.0
    """Seconds between the checks that each page's member is still in its instance."""
    page_queue: int = 16
    send_timeout: float = 10.0


class LiveHub:
    def __init__(
        self, read: Read, render: Render, games_for: GamesFor, *, instance: Instance,
        limits: LiveLimits | None = None, clock: Callable[[], float] = time.time,
    ) -> None:  # fmt: skip
        """``clock`` is the sessions' (their ``expires`` is on it)."""
        self.read = read
        self.render = render
        self.games_for = games_for
        self.instance = instance
        self.limits = limits or LiveLimits()
        self.clock = clock
        self._pages: dict[int, set[LivePage]] = {}
        """By channel."""
        self._members: dict[int, set[LivePage]] = {}
        self._open = 0
        """Pages open (accepted), all channels together."""
        self.waiting = Waiting(self.limits.pages_overall)
        """Sockets open and waiting for their session: as many as the pages at most."""
        self.closed: Counter[int] = Counter()
        """Pages closed (or refused) by the service so far, by close code (for /metrics)."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._watch: asyncio.Task[None] | None = None

    @property
    def pages(self) -> int:
        return self._open

    def start(self) -> None:
        """Check every few minutes that each page's member is still in the Activity."""
        self._watch = asyncio.create_task(self._watching())

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
        self, request: web.Request, read: ReadSession, connect: Connect,
        shown: int | None = None,
    ) -> web.StreamResponse:  # fmt: skip
        """Open the socket, read the session from its first message (:mod:`live_guard`),
        then send the channel's games, then each change, until the page goes. The game
        the page shows (``shown``), when it has ended, goes first: it is no longer among
        the running games, and a page that reconnects after it ended must see how.

        A page past its member's limit or the process's, or one whose connect
        ``connect`` refuses (its credits spent: it is spent only for a page accepted),
        is closed with its code and the reason."""
        guard = PageGuard(request, self.closed)
        session = await guard.open(read, self.waiting, self.limits.first_wait)
        socket = guard.socket
        if session is None:
            return socket
        refused = self._refusal(session, connect)
        if refused is not None:
            code, reason, extra = refused
            self.closed[code] += 1
            return await refuse(socket, request, code, reason, **extra)
        page = LivePage(socket, request, session, queue=self.limits.page_queue,
                        send_timeout=self.limits.send_timeout, closed=self.closed)  # fmt: skip
        pages = self._pages.setdefault(session.channel_id, set())
        pages.add(page)
        mine = self._members.setdefault(session.user_id, set())
        mine.add(page)
        self._open += 1
        expiry = asyncio.get_running_loop().call_later(
            max(0.0, session.expires - self.clock()), page.drop, CLOSE_EXPIRED
        )
        try:
            if shown is not None:
                page.push(partial(self._ended, shown, session))
            page.push(partial(self._games, session))
            await guard.silence()
        finally:
            expiry.cancel()
            self._open -= 1
            pages.discard(page)
            mine.discard(page)
            if not pages:
                self._pages.pop(session.channel_id, None)
            if not mine:
                self._members.pop(session.user_id, None)
            await page.stop()
            await guard.stop()
        return socket

    def _refusal(
        self, session: Session, connect: Connect
    ) -> tuple[int, str, dict[str, Any]] | None:
        """Why a page is not accepted (its close code, reason and what more the page is
        told), if it is not; checked with no wait between it and the page's counting, so
        pages opened at once are counted as they are accepted."""
        held = len(self._members.get(session.user_id, ()))
        if held >= self.limits.pages_per_member:
            reason = plain(text("web.live.too_many", session.locale, count=held))
            return CLOSE_TOO_MANY, reason, {}
        if self._open >= self.limits.pages_overall:
            wait = FULL_WAIT
            reason = plain(text("web.live.full", session.locale, seconds=wait))
            return CLOSE_BUDGET, reason, {"retry_after": wait}
        try:
            connect(session)  # last: a credit is spent only on a page that opens
        except WebRefusal as spent:
            return CLOSE_BUDGET, spent.reason, spent.extra
        return None

    async def _ended(self, shown: int, session: Session) -> dict[str, Any] | None:
        """The game shown, if it ended (else nothing is sent)."""
        try:
            ended = await self.read(shown)
        except Exception as exc:  # the database does not answer: the list still goes
            log.debug("live: shown game %s not read (%s)", shown, exc)
            return None
        if ended is None or ended.game.running or ended.game.channel_id != session.channel_id:
            return None
        return {"type": "game", "game": await self.render(ended, session)}

    async def _games(self, session: Session) -> dict[str, Any]:
        return {"type": "games", "games": await self.games_for(session)}

    async def _send_game(self, channel_id: int, game_id: int) -> None:
        """The game read once, and queued for each page of its channel."""
        try:
            update = await self.read(game_id)
        except Exception as exc:  # the database does not answer: pages catch up later
            log.debug("live: game %s not read (%s)", game_id, exc)
            return
        if update is None or update.game.channel_id != channel_id:
            return

        async def game(session: Session) -> dict[str, Any]:
            return {"type": "game", "game": await self.render(update, session)}

        await self._each_member(channel_id, game)

    async def _catch_up(self, channel_id: int) -> None:
        await self._each_member(channel_id, self._games)

    async def _each_member(
        self, channel_id: int, make: Callable[[Session], Awaitable[dict[str, Any]]]
    ) -> None:
        """Queue ``make``'s message for each page of the channel, made once per member
        (a member's pages, and a name Discord is asked for, cost one render), in turn:
        the sends, each page's own, are what may take long."""
        made: dict[tuple[int, str], dict[str, Any]] = {}
        for page in list(self._pages.get(channel_id, ())):
            whose = (page.session.user_id, page.session.locale)
            if whose not in made:
                try:
                    made[whose] = await make(page.session)
                except Exception as exc:  # the database does not answer: pages catch up later
                    log.debug("live: an update not made (%s)", exc)
                    return
            page.push(partial(_ready, made[whose]))

    def revoked(self, user_id: int | None) -> None:
        """A member's sessions were revoked (forget-me, a ban; by any process): their
        pages close as at their session's end (4001: the page signs in again, if it still
        may). None, news that may have been missed, closes none: a session ends soon."""
        for page in list(self._members.get(user_id, ())) if user_id is not None else ():
            page.drop(CLOSE_EXPIRED)

    async def check(self) -> None:
        """Close the pages whose session has expired, and those whose member is no longer
        in the Activity instance they were opened from: one read of each instance. An
        instance Discord does not tell of (it failed to answer) keeps its pages."""
        by_instance: dict[str, list[LivePage]] = {}
        now = self.clock()
        for pages in list(self._pages.values()):
            for page in pages:
                if page.dropped is not None or not page.socket.prepared or page.socket.closed:
                    continue  # going, or not open yet (its expiry is checked once it is)
                if page.session.expires <= now:
                    page.drop(CLOSE_EXPIRED)
                else:
                    by_instance.setdefault(page.session.instance_id, []).append(page)
        for instance_id, watching in by_instance.items():
            try:
                users = {str(user) for user in (await self.instance(instance_id))["users"]}
            except WebRefusal as refused:
                if refused.code != "not_in_instance":
                    log.info("live: instance %s not read (%s)", instance_id, refused.reason)
                    continue
                users = set()  # it has ended
            except Exception as exc:
                log.info("live: instance %s not read (%s)", instance_id, exc)
                continue
            for page in watching:
                if page.dropped is None and str(page.session.user_id) not in users:
                    page.drop(CLOSE_LEFT, plain(text("web.live.left", page.session.locale)))

    async def _watching(self) -> None:
        while True:
            await asyncio.sleep(self.limits.presence_every)
            try:
                await self.check()
            except Exception:  # the next check tries again
                log.exception("live: the presence check failed")

    async def close(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
        pages = [page for pages in self._pages.values() for page in pages]
        for page in pages:
            page.drop(GOING_AWAY)
        await asyncio.gather(*(page.stop() for page in pages), return_exceptions=True)
        for task in list(self._tasks):
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            if self._watch is not None:
                await self._watch


async def _ready(message: dict[str, Any]) -> dict[str, Any]:
    return message
