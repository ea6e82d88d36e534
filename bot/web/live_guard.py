"""What a page may send on its live socket: its session, in its first message, and then
nothing (``docs/develop/activity-api.md``, "Live").

The page never sends data after its first message: any data frame then is a policy
violation and closes the socket (1008) at once. What reaches the handler is bounded so,
but not what costs before it does: aiohttp's reader parses every frame, and a frame
that completes no message (an empty continuation of a message never finished) never
reaches a handler at all. So the bytes a page sends are counted as they arrive, before
anything parses them (:class:`Intake`), and the control frames too (a ping is answered
with a pong: a write each): past either allowance the page is closed (1008), and its
further bytes are dropped unread.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable

from aiohttp import WSMessage, WSMsgType, web

from bot.web.errors import WebRefusal
from bot.web.live_page import CLOSE_BROKEN, CLOSE_EXPIRED, CLOSE_POLICY, close_with
from bot.web.sessions import Session

log = logging.getLogger(__name__)
FIRST_WAIT = 10.0
"""Seconds a socket may take to send its session, from its opening."""
SENT_BYTES = 8192
"""Bytes a page may send a minute: its session (at most the 4 KB a message may have)
and its pongs (6 bytes every heartbeat), with room to spare."""
CONTROL_FRAMES = 8
"""Pings and pongs a page may send a minute: a browser sends a pong to each of the
service's pings (one every 30 s) and never a ping of its own."""
EVERY = 60.0
TERMINAL = frozenset({WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR})

ReadSession = Callable[[str | None], Awaitable[Session]]
"""The session a token names. Raises WebRefusal (401) for one that does not hold."""


class Allowance:
    """``amount`` a window of ``every`` seconds (counted from the first use)."""

    def __init__(self, amount: int, every: float, clock: Callable[[], float]) -> None:
        self.amount = amount
        self.every = every
        self.clock = clock
        self._since = clock()
        self._used = 0

    def take(self, n: int = 1) -> bool:
        """Whether ``n`` more fit in this window (they are counted either way)."""
        now = self.clock()
        if now - self._since >= self.every:
            self._since, self._used = now, 0
        self._used += n
        return self._used <= self.amount


class Intake(asyncio.Protocol):
    """Stands between a socket's connection and aiohttp's protocol (asyncio's own
    ``set_protocol``), counting what arrives before it is parsed; past the allowance it
    calls ``over`` once, and hands nothing more on."""

    def __init__(
        self, inner: asyncio.Protocol, allowance: Allowance, over: Callable[[], None]
    ) -> None:
        self.inner = inner
        self.allowance = allowance
        self.over = over
        self.tripped = False

    def data_received(self, data: bytes) -> None:
        if self.tripped:
            return
        if not self.allowance.take(len(data)):
            self.tripped = True
            self.over()
            return
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.inner.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()


def _nothing() -> None:
    pass


class Waiting:
    """The sockets of a process open and waiting for their first message, at most
    ``most``: past it the longest waiting is closed (4001). A page sends its session as
    soon as its socket opens, so the longest waiting are those that never will: sockets
    held open without a session cannot keep a page out."""

    def __init__(self, most: int) -> None:
        self.most = most
        self._guards: dict[PageGuard, None] = {}
        """In the order they opened."""

    def __len__(self) -> int:
        return len(self._guards)

    def add(self, guard: PageGuard) -> None:
        self._guards[guard] = None
        while len(self._guards) > self.most:
            oldest = next(iter(self._guards))
            del self._guards[oldest]
            oldest.evict()

    def discard(self, guard: PageGuard) -> None:
        self._guards.pop(guard, None)


class PageGuard:
    """One socket's bounds: its first message, then its silence. Made before the
    handshake, so the bytes counted start with the socket's first; ``closed`` counts
    the sockets it closes, by code (for /metrics)."""

    def __init__(
        self, request: web.Request, closed: Counter[int], *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:  # fmt: skip
        # pings are answered here, within the allowance, not by aiohttp whatever their number
        self.socket = web.WebSocketResponse(heartbeat=30.0, max_msg_size=4096, autoping=False)
        self.request = request
        self.closed = closed
        self._controls = Allowance(CONTROL_FRAMES, EVERY, clock)
        self._closing: asyncio.Task[None] | None = None
        transport = request.transport
        inner = None if transport is None else transport.get_protocol()
        if transport is not None and isinstance(inner, asyncio.Protocol):  # aiohttp's is
            transport.set_protocol(
                Intake(inner, Allowance(SENT_BYTES, EVERY, clock), self._flooded)
            )

    async def open(
        self, read: ReadSession, waiting: Waiting, wait: float = FIRST_WAIT
    ) -> Session | None:
        """Open the socket and read its session (:meth:`session`), among ``waiting``
        until its first message comes. None: the socket was closed: 4001 (no session
        that holds, or a newer socket needed its place among those waiting: the page
        signs in again), 1008 (the page broke the rules), or 1011 (the session could not
        be read: the page retries)."""
        await self.socket.prepare(self.request)
        waiting.add(self)
        try:
            session = await self.session(read, wait, heard=lambda: waiting.discard(self))
        except Exception as exc:  # the database does not answer
            log.info("live: a session not read (%s)", exc)
            session, code = None, CLOSE_BROKEN
        else:
            code = CLOSE_EXPIRED
        finally:
            waiting.discard(self)
        if session is None:
            if not self.socket.closed:  # else the page went: nothing to close or count
                self._end(code)
            await self.stop()
        return session

    def _flooded(self) -> None:
        transport = self.request.transport
        if transport is not None:
            transport.pause_reading()  # what more it sends waits in its own buffers
        self.violation()

    def violation(self) -> None:
        """Close the socket with 1008, whoever is reading it."""
        self._end(CLOSE_POLICY)

    def evict(self) -> None:
        """Close the socket, still waiting for its first message, with 4001."""
        self._end(CLOSE_EXPIRED)

    def _end(self, code: int) -> None:
        if self._closing is not None:  # closing already
            return
        self.closed[code] += 1
        self._closing = asyncio.ensure_future(close_with(self.socket, self.request, code, None))

    async def session(
        self, read: ReadSession, wait: float = FIRST_WAIT, heard: Callable[[], None] = _nothing
    ) -> Session | None:
        """The session the first message names: ``{"type": "session", "session":
        "<token>"}``, within ``wait`` seconds of the opening (``heard`` is called when
        it comes). None: it did not come, was something else, or names no session that
        holds (the page signs in again), or the socket is closing meanwhile."""
        try:
            async with asyncio.timeout(wait):
                message = await self._next()
        except TimeoutError:
            return None
        heard()
        if message is None or message.type is not WSMsgType.TEXT:
            if message is not None:
                self.violation()  # binary: never a page's
            return None
        try:
            said = json.loads(message.data)
        except ValueError:
            return None
        if not (isinstance(said, dict) and said.get("type") == "session"
                and isinstance(said.get("session"), str)):  # fmt: skip
            return None
        try:
            return await read(said["session"])
        except WebRefusal:
            return None

    async def silence(self) -> None:
        """Read until the page goes; a data frame, or too many pings or pongs, is a
        violation (the socket closes with 1008 and this returns)."""
        while await self._next() is not None:
            self.violation()

    async def _next(self) -> WSMessage | None:
        """The next data message; None once the socket closes. Pings are answered (a
        ping's pong is the one thing a page may ask), within the allowance."""
        while self._closing is None:
            message = await self.socket.receive()
            if message.type in TERMINAL:
                return None
            if message.type in (WSMsgType.PING, WSMsgType.PONG):
                if not self._controls.take():
                    self.violation()
                elif message.type is WSMsgType.PING:
                    with contextlib.suppress(ConnectionError):  # going: the next read ends
                        await self.socket.pong(message.data)
                continue
            return message
        return None

    async def stop(self) -> None:
        """A close of the guard's under way finishes (within live_page's CLOSING_WAIT)."""
        if self._closing is not None:
            with contextlib.suppress(Exception):
                await self._closing
