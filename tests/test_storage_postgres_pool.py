"""The lean PostgreSQL pool on a real server: connections handed on to waiters, a time
limit on waiting, and broken connections dropped and opened again."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.storage.postgres_pool import ConnectionPool, PoolClosed

pytestmark = pytest.mark.postgres


@pytest.fixture
async def pool(pg_database: str) -> AsyncIterator[ConnectionPool]:
    import asyncpg  # type: ignore[import-untyped]

    opened: list[object] = []

    async def connect() -> object:
        conn = await asyncpg.connect(pg_database)
        opened.append(conn)
        return conn

    made = ConnectionPool(connect, size=1)
    made.opened = opened  # type: ignore[attr-defined]
    await made.start()
    yield made
    await made.close()


async def test_a_caller_waits_for_the_connection_in_use_and_gets_it(pool) -> None:
    first = await pool.acquire(1.0)
    waiting = asyncio.ensure_future(pool.acquire(1.0))
    await asyncio.sleep(0.05)
    assert not waiting.done()  # the only connection is in use
    pool.release(first)
    assert await waiting is first
    assert await first.fetchval("SELECT 1") == 1
    pool.release(first)


async def test_waiting_longer_than_the_time_limit_fails_and_leaves_the_pool_whole(pool) -> None:
    held = await pool.acquire(1.0)
    with pytest.raises(TimeoutError):
        await pool.acquire(0.1)
    pool.release(held)
    assert await pool.acquire(0.1) is held  # the waiter that gave up took nothing away
    pool.release(held)


async def test_a_broken_or_unfinished_connection_is_replaced(pool) -> None:
    conn = await pool.acquire(1.0)
    conn.terminate()  # as a query that timed out leaves it
    pool.release(conn)
    fresh = await pool.acquire(1.0)
    assert fresh is not conn and await fresh.fetchval("SELECT 2") == 2
    await fresh.execute("BEGIN")  # a unit of work cancelled half-way
    pool.release(fresh)
    assert fresh.is_closed()
    again = await pool.acquire(1.0)
    assert again not in (conn, fresh) and not again.is_in_transaction()
    pool.release(again)
    assert len(pool.opened) == 3


async def test_a_waiter_is_handed_the_place_of_a_dropped_connection(pool) -> None:
    conn = await pool.acquire(1.0)
    waiting = asyncio.ensure_future(pool.acquire(2.0))
    await asyncio.sleep(0.05)
    conn.terminate()
    pool.release(conn)  # its place goes to the waiter, which opens a connection
    fresh = await waiting
    assert fresh is not conn and await fresh.fetchval("SELECT 3") == 3
    pool.release(fresh)


async def test_a_closed_pool_refuses_and_wakes_its_waiters(pool) -> None:
    held = await pool.acquire(1.0)
    waiting = asyncio.ensure_future(pool.acquire(2.0))
    await asyncio.sleep(0.05)
    await pool.close()
    with pytest.raises(PoolClosed):
        await waiting
    with pytest.raises(PoolClosed):
        await pool.acquire(1.0)
    pool.release(held)
    assert held.is_closed()
