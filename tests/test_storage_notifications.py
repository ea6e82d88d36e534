"""PostgreSQL's notifications come back by themselves: the LISTEN connection lost (its
backend terminated, the server refusing connections for a while) is reopened with
backoff, said once in the log each way, and every listener is told that it may have
missed something; a clean stop says nothing."""

from __future__ import annotations

import asyncio
import logging
from urllib.parse import urlsplit

import asyncpg
import pytest

from bot.core.repository import MISSED, POLICY_TOPIC
from bot.storage import PostgresRepository

from core_harness import GUILD, FakeClock, open_core

pytestmark = pytest.mark.postgres


async def until(condition, seconds: float = 10.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    assert condition()


def our_lines(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name.startswith("bot.") and r.levelno == level]  # fmt: skip


@pytest.mark.slow  # waits seconds for the listener to reconnect
async def test_a_lost_notification_connection_comes_back(
    pg_server, pg_database: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    name = urlsplit(pg_database).path.lstrip("/")
    listening, other = PostgresRepository(pg_database), PostgresRepository(pg_database)
    await listening.open()
    await other.open()
    heard: list[str] = []
    try:
        await listening.listen(POLICY_TOPIC, heard.append)
        await other.notify(POLICY_TOPIC, "1")
        await until(lambda: heard == ["1"])
        admin = await asyncpg.connect(pg_server.admin_dsn)
        try:  # the server refuses this database for a while, and the listener is cut off
            await admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
            await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE application_name = 'ttt-bot listener' AND datname = $1", name
            )  # fmt: skip
            await until(lambda: len(our_lines(caplog, logging.WARNING)) == 1)
            await asyncio.sleep(1.5)  # wait-ok: the outage's set length; tries fail quietly
            await admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
        finally:
            await admin.close()
        await until(lambda: heard == ["1", MISSED])  # back, and told it may have missed some
        await other.notify(POLICY_TOPIC, "2")
        await until(lambda: heard == ["1", MISSED, "2"])
        warnings = our_lines(caplog, logging.WARNING)
        assert len(warnings) == 1 and "reconnecting" in warnings[0]
        assert sum("is back" in line for line in our_lines(caplog, logging.INFO)) == 1
    finally:
        await listening.close()
        await other.close()
    assert len(our_lines(caplog, logging.WARNING)) == 1  # the stop added nothing


async def test_a_clean_stop_is_quiet(pg_database: str, caplog: pytest.LogCaptureFixture) -> None:
    repo = PostgresRepository(pg_database)
    await repo.open()
    await repo.listen(POLICY_TOPIC, lambda _payload: None)
    await repo.close()
    assert our_lines(caplog, logging.WARNING) == []


async def test_after_the_outage_a_config_change_elsewhere_is_seen_at_once(
    pg_server, pg_database: str
) -> None:
    """Two processes' cores on one database; the second's notification connection is cut
    and comes back: a /ttt config change the first makes then holds in the second at
    once, though it cached the server's settings before (no minute-long wait)."""
    clock = FakeClock()
    first, second = await open_core(pg_database, clock), await open_core(pg_database, clock)
    try:
        await second.games.policies.listen()
        assert (await second.games.policies.policy(GUILD)).emoji_set == "classic"  # cached
        name = urlsplit(pg_database).path.lstrip("/")
        admin = await asyncpg.connect(pg_server.admin_dsn)
        try:
            await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE application_name = 'ttt-bot listener' AND datname = $1", name
            )  # fmt: skip
        finally:
            await admin.close()
        listener = second.repo._listener
        await until(lambda: not listener.connected)
        await until(lambda: listener.connected)  # back by itself
        await first.games.policies.configure(GUILD, {"emoji_set": "hearts"})
        for _ in range(100):  # the notification arrives within milliseconds
            if (await second.games.policies.policy(GUILD)).emoji_set == "hearts":
                break
            await asyncio.sleep(0.01)
        assert (await second.games.policies.policy(GUILD)).emoji_set == "hearts"
    finally:
        await first.repo.close()
        await second.repo.close()
