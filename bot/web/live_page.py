"""One open page's live socket: its updates wait in a bounded queue and go out from a
task of its own, so a page that stops reading holds up nobody else; a page that falls
behind (its queue full, or one send past the timeout) is dropped, and told why by a
close code (``docs/activity-api.md``; ``web/src/live.js`` acts on each).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from bot.web.sessions import Session

log = logging.getLogger(__name__)

CLOSE_EXPIRED = 4001
"""The session has expired: the page signs in again, silently, and reconnects."""
CLOSE_LEFT = 4003
"""The member is no longer in the Activity instance: the page shows why and stays."""
CLOSE_TOO_MANY = 4008
"""The member has as many pages open as they may: the page shows why and stays."""
CLOSE_SLOW = 4013
"""The page did not keep up with the updates: it reconnects (and gets the whole state)."""
CLOSE_BUDGET = 4029
"""Too many connects, or too many pages open in this process (the 429 of a socket: a
browser cannot read a refused handshake's status): the page shows why and tries again
after ``retry_after`` seconds."""
CLOSE_POLICY = 1008
"""The page sent what a page never sends (WebSocket's policy violation): a data frame
after its first message, or more bytes or pings than a page sends
(:mod:`bot.web.live_guard`)."""
CLOSE_BROKEN = 1011
"""The session could not be read (the database did not answer): the page reconnects."""
CLOSING_WAIT = 2.0
"""Seconds a closing handshake may take before the connection is cut."""

Message = Callable[[], Awaitable[dict[str, Any] | None]]
"""An update, made when its turn comes (the game as this page's member sees it); None:
nothing to send after all."""


async def refuse(
    socket: web.WebSocketResponse, request: web.Request, code: int, reason: str, **extra: Any
) -> web.WebSocketResponse:
    """Say why an open socket is refused (a browser shows a socket refused before opening
    as a bare failure, and the session comes only once it is open), then close it with
    ``code``."""
    await close_with(socket, request, code, {"reason": reason, **extra})
    return socket


class LivePage:
    """A page's socket while it is open: :meth:`push` queues, a task sends."""

    def __init__(
        self, socket: web.WebSocketResponse, request: web.Request, session: Session, *,
        queue: int, send_timeout: float, closed: Counter[int],
    ) -> None:  # fmt: skip
        """``closed``: pages closed so far, by close code (counted here)."""
        self.socket = socket
        self.request = request
        self.session = session
        self.send_timeout = send_timeout
        self.closed = closed
        self.dropped: int | None = None
        """The close code the page was dropped with, once it was."""
        # room for the two updates a page starts with, whatever the setting
        self._queue: asyncio.Queue[Message] = asyncio.Queue(max(queue, 2))
        self._sender = asyncio.create_task(self._send())
        self._closing: asyncio.Task[None] | None = None

    def push(self, message: Message) -> None:
        """Queue an update; a page whose queue is full is dropped (it reconnects)."""
        if self.dropped is not None:
            return
        try:
            self._queue.put_nowait(message)
        except asyncio.QueueFull:
            log.info("live: a page of %s fell behind: dropped", self.session.user_id)
            self.drop(CLOSE_SLOW)

    def drop(self, code: int, reason: str | None = None) -> None:
        """Stop sending and close the socket with ``code`` (and ``reason``, a sentence the
        page shows, sent before the close if the page still reads)."""
        if self.dropped is not None:
            return
        self.dropped = code
        self.closed[code] += 1
        # the sender stops at its next update, not cancelled mid-send: that would cancel
        # the drain the close waits on too (aiohttp shares one between a socket's writers)
        said = None if reason is None else {"reason": reason}
        self._closing = asyncio.create_task(close_with(self.socket, self.request, code, said))

    async def stop(self) -> None:
        """The page has gone: the sender stops, a close under way finishes."""
        self._sender.cancel()
        if self._closing is not None:
            with contextlib.suppress(Exception):
                await self._closing

    async def _send(self) -> None:
        while self.dropped is None:
            make = await self._queue.get()
            try:
                message = await make()
            except Exception as exc:  # the database does not answer: it catches up later
                log.debug("live: an update not made for a page (%s)", exc)
                continue
            if message is None or self.dropped is not None:
                continue
            try:
                async with asyncio.timeout(self.send_timeout):
                    await self.socket.send_json(message)
            except TimeoutError:
                log.info("live: a page of %s stopped reading: dropped", self.session.user_id)
                self.drop(CLOSE_SLOW)
                return
            except Exception as exc:  # the socket is closing: serve() sees it end
                log.debug("live: an update not sent to a page (%s)", exc)
                return


async def close_with(
    socket: web.WebSocketResponse, request: web.Request, code: int, said: dict[str, Any] | None
) -> None:
    """Say why (``said``, as a ``closing`` message) and close with ``code``; a page that
    does not read has its connection cut instead (its buffers stay full otherwise)."""
    try:
        async with asyncio.timeout(CLOSING_WAIT):
            if said is not None:
                await socket.send_json({"type": "closing", "code": code, **said})
            await socket.close(code=code)
    except asyncio.CancelledError:
        _cut(request, "cancelled")
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise
        # else a send that timed out cancelled the drain this close waited on (aiohttp
        # shares it): the page did not read, it is cut
    except Exception as exc:
        _cut(request, exc)


def _cut(request: web.Request, why: object) -> None:
    log.debug("live: a page closed the hard way (%s)", why)
    if request.transport is not None:
        request.transport.abort()
