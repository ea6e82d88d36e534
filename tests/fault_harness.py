"""Database faults for the bot's tests: what a member was told, and a row held locked
so that a write waits on the server (as behind a long transaction elsewhere)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from urllib.parse import urlsplit

import asyncpg

from bot.i18n import text

from bot_harness import eventually

NOTHING_CHANGED, UNCONFIRMED = text("error.generic"), text("error.unconfirmed")
TOO_LATE = text("move.late")
"""A click after its turn's deadline: refused from what the process knows, with no
database to ask (the timekeeper ends the game once it is back): nothing changed."""


def told(res) -> str:
    """What an answer told the member: ``nothing`` changed, ``unconfirmed``, or ``shown``
    (the board itself, edited by the click)."""
    if res.type == 7:
        return "shown"
    assert res.type == 4 and res.ephemeral, res
    said = {NOTHING_CHANGED: "nothing", TOO_LATE: "nothing", UNCONFIRMED: "unconfirmed"}
    assert res.content in said, res.content
    return said[res.content]


async def locked(conn, game_id: int) -> None:
    """Hold the game's row (as a long transaction elsewhere would): a write waits."""
    await conn.execute("BEGIN")
    await conn.execute("SELECT id FROM games WHERE id = $1 FOR UPDATE", game_id)


async def waiting_backend(conn) -> int:
    """The backend waiting for a lock in ``conn``'s database (``conn`` outside any
    transaction: inside one, PostgreSQL shows the activity as it was at its start)."""
    query = (
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
        " AND wait_event_type = 'Lock'"
    )
    return int(await eventually(lambda: conn.fetchval(query), "a write waiting for the lock"))


@contextlib.asynccontextmanager
async def out_of_reach(
    pg_server, dsn: str, listener_too: bool, spare: Sequence[int] = ()
) -> AsyncIterator[None]:
    """No new connection to the database, and every one there is cut (but the bot's
    notification connection, unless ``listener_too``, the test's locker and the backends
    ``spare``), until the block ends (ALLOW_CONNECTIONS false, pg_terminate_backend: the
    server stays up for the other tests)."""
    name = urlsplit(dsn).path.lstrip("/")
    admin = await asyncpg.connect(pg_server.admin_dsn)
    try:
        await admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1"
            " AND ($2 OR application_name <> 'ttt-bot listener')"
            " AND application_name <> 'ttt-test locker' AND pid <> ALL($3::int[])",
            name, listener_too, list(spare),
        )  # fmt: skip
        yield
    finally:
        await admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
        await admin.close()
