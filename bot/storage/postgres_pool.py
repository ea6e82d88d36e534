"""A lean pool of asyncpg connections.

asyncpg's own pool wraps every acquire with a timeout in ``wait_for`` and every release
in ``shield``: two tasks, and the event-loop turns they take, for each query. Measured
against this machine's PostgreSQL (one ``UPDATE … RETURNING``), a pooled query cost the
bot 232 µs of CPU against 86 µs on a bare connection. Here an idle connection is handed
out and taken back without awaiting anything; only a caller that must wait (every
connection busy) or open one awaits, under ``asyncio.timeout`` (no task either).

A connection that comes back closed (cut by a timeout, or by the server) or still in a
transaction (its unit of work was cancelled half-way) is dropped, and its place opened
again by the next caller that needs one: so a database that went away is reconnected to
when it is back, as asyncpg's pool does.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

Connect = Callable[[], Awaitable[Any]]
CLOSE_TIMEOUT = 2.0


class PoolClosed(Exception):
    """The pool was closed: the process is shutting down."""


class ConnectionPool:
    def __init__(self, connect: Connect, size: int) -> None:
        if size < 1:
            raise ValueError(f"a pool holds at least one connection, not {size}")
        self._connect = connect
        self.size = size
        self._idle: deque[Any] = deque()
        self._count = 0
        """Connections open, in use or being opened."""
        self._waiters: deque[asyncio.Future[Any]] = deque()
        self._closed = False

    async def start(self) -> None:
        """Open the first connection, so a server that cannot be used says so now."""
        self._count += 1
        try:
            self._idle.append(await self._connect())
        except BaseException:
            self._count -= 1
            raise

    @contextlib.asynccontextmanager
    async def connection(self, timeout: float) -> AsyncIterator[Any]:
        conn = await self.acquire(timeout)
        try:
            yield conn
        finally:
            self.release(conn)

    async def acquire(self, timeout: float) -> Any:
        """An idle connection at once, else a new one (below :attr:`size`), else the
        next one released; within ``timeout`` seconds.

        Raises:
            TimeoutError: none within ``timeout``.
            PoolClosed: the pool is closed.
            Exception: what connecting raised (the server is down, refuses the login).
        """
        if self._closed:
            raise PoolClosed("the database pool is closed")
        while self._idle:
            conn = self._idle.pop()
            if not conn.is_closed():
                return conn
            self._count -= 1
        if self._count < self.size:
            return await self._open(timeout)
        waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            async with asyncio.timeout(timeout):
                conn = await waiter
        except BaseException:
            if waiter.done() and not waiter.cancelled():
                self._hand_on(waiter.result())  # given to us as we gave up: pass it on
            else:
                with contextlib.suppress(ValueError):
                    self._waiters.remove(waiter)
            raise
        if conn is None:  # a place was freed: open a connection in it
            return await self._open(timeout)
        return conn

    def release(self, conn: Any) -> None:
        """Take a connection back; one closed or left in a transaction is dropped."""
        if self._closed or conn.is_closed() or conn.is_in_transaction():
            if not conn.is_closed():
                conn.terminate()
            self._count -= 1
            self._hand_on(None)
            return
        self._hand_on(conn)

    async def close(self) -> None:
        """Close the idle connections; those in use are closed as they come back."""
        self._closed = True
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_exception(PoolClosed("the database pool is closed"))
        self._waiters.clear()
        while self._idle:
            conn = self._idle.pop()
            self._count -= 1
            try:
                await conn.close(timeout=CLOSE_TIMEOUT)
            except Exception:
                conn.terminate()

    async def _open(self, timeout: float) -> Any:
        self._count += 1
        try:
            async with asyncio.timeout(timeout):
                return await self._connect()
        except BaseException:
            self._count -= 1
            self._hand_on(None)  # a waiter may try in the place this one left
            raise

    def _hand_on(self, conn: Any) -> None:
        """Give ``conn`` (or, None, a free place to open one in) to the first caller
        still waiting; an unwanted connection goes idle, an unwanted place stays free."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():  # given None, the waiter opens a connection (and counts it)
                waiter.set_result(conn)
                return
        if conn is not None:
            self._idle.append(conn)
