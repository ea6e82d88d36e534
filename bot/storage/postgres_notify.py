"""Telling every process sharing the database that something changed: PostgreSQL's
LISTEN/NOTIFY on one dedicated connection per process (a pooled connection would drop
its LISTENs when returned). Topics are channel names prefixed ``ttt_``.

The connection comes back by itself when PostgreSQL restarts or its backend is
terminated: reconnected with backoff, said once in the log when lost and once when back.
What was notified meanwhile is lost, so every listener is then told :data:`MISSED`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import asyncpg  # type: ignore[import-untyped]

from bot.core.repository import MISSED

log = logging.getLogger(__name__)

RECONNECT_FIRST = 0.5
RECONNECT_MAX = 15.0
"""Seconds between tries to reconnect: doubling from the first up to the most."""
CONNECT_TIMEOUT = 10.0
PREFIX = "ttt_"


def channel_of(topic: str) -> str:
    if not topic.isidentifier():
        raise ValueError(f"a topic is a plain identifier, not {topic!r}")
    return f"{PREFIX}{topic}"


class Listener:
    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self._conn: Any = None
        self._topics: dict[str, list[Callable[[str], None]]] = {}
        self._closing = False
        self._reconnecting: asyncio.Task[None] | None = None

    @property
    def connected(self) -> bool:
        return self._conn is not None and not self._conn.is_closed()

    async def listen(self, topic: str, callback: Callable[[str], None]) -> None:
        new_topic = topic not in self._topics
        self._topics.setdefault(topic, []).append(callback)
        if self._conn is None and self._reconnecting is None:
            self._conn = await self._connect()  # listens to every topic, this one included
        elif new_topic and self._conn is not None:
            await self._conn.add_listener(channel_of(topic), self._deliver)

    async def _connect(self) -> Any:
        conn = await asyncpg.connect(
            self.dsn, timeout=CONNECT_TIMEOUT,
            server_settings={"application_name": "ttt-bot listener"},
        )  # fmt: skip
        try:
            for topic in self._topics:
                await conn.add_listener(channel_of(topic), self._deliver)
        except BaseException:
            await conn.close()
            raise
        conn.add_termination_listener(self._lost)
        return conn

    def _deliver(self, conn: Any, pid: int, channel: str, payload: str) -> None:
        for callback in self._topics.get(channel.removeprefix(PREFIX), ()):
            try:
                callback(payload)
            except Exception:
                log.exception("a %s notification could not be handled", channel)

    def _lost(self, conn: Any) -> None:
        if self._closing or conn is not self._conn:
            return  # a clean stop, or a connection already replaced
        self._conn = None
        log.warning("the PostgreSQL notification connection closed; reconnecting (meanwhile "
                    "changes made by other processes are seen within a minute)")  # fmt: skip
        self._reconnecting = asyncio.get_running_loop().create_task(self._reconnect())

    async def _reconnect(self) -> None:
        delay = RECONNECT_FIRST
        try:
            while True:
                await asyncio.sleep(delay)
                try:
                    conn = await self._connect()
                except Exception as exc:  # down, starting up, refusing: try again later
                    delay = min(2 * delay, RECONNECT_MAX)
                    log.debug("notification connection: %s; next try in %g s", exc, delay)
                    continue
                self._conn = conn
                log.info("the PostgreSQL notification connection is back")
                for topic in self._topics:  # whatever was notified meanwhile is lost
                    self._deliver(conn, 0, channel_of(topic), MISSED)
                return
        finally:
            self._reconnecting = None

    async def close(self) -> None:
        """Stop listening, quietly: a clean stop is no lost connection."""
        self._closing = True
        task, self._reconnecting = self._reconnecting, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        conn, self._conn = self._conn, None
        if conn is not None and not conn.is_closed():
            conn.remove_termination_listener(self._lost)
            await conn.close()


async def notify(conn: Any, topic: str, payload: str) -> None:
    await conn.execute("SELECT pg_notify($1, $2)", channel_of(topic), payload)
