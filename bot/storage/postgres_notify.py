"""Telling every process sharing the database that something changed: PostgreSQL's
LISTEN/NOTIFY on one dedicated connection per process (a pooled connection would drop
its LISTENs when returned). Topics are channel names prefixed ``ttt_``."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import asyncpg  # type: ignore[import-untyped]

log = logging.getLogger(__name__)


def channel_of(topic: str) -> str:
    if not topic.isidentifier():
        raise ValueError(f"a topic is a plain identifier, not {topic!r}")
    return f"ttt_{topic}"


class Listener:
    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self._conn: Any = None

    async def listen(self, topic: str, callback: Callable[[str], None]) -> None:
        if self._conn is None:
            self._conn = await asyncpg.connect(
                self.dsn, server_settings={"application_name": "ttt-bot listener"}
            )
            self._conn.add_termination_listener(self._lost)

        def deliver(conn: Any, pid: int, channel: str, payload: str) -> None:
            try:
                callback(payload)
            except Exception:
                log.exception("a %s notification could not be handled", channel)

        await self._conn.add_listener(channel_of(topic), deliver)

    def _lost(self, conn: Any) -> None:
        # Deadlines keep their periodic safety net and cached policies expire, so a lost
        # listener costs promptness, not correctness; a restart listens again.
        log.warning("the PostgreSQL notification connection closed; changes made by other "
                    "processes are seen within a minute instead of at once")  # fmt: skip

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None and not conn.is_closed():
            await conn.close()


async def notify(conn: Any, topic: str, payload: str) -> None:
    await conn.execute("SELECT pg_notify($1, $2)", channel_of(topic), payload)
