"""Whose turn it is to IDENTIFY: Discord allows ``max_concurrency`` IDENTIFYs per 5 seconds
in each bucket (``shard_id % max_concurrency``), across every process of the bot. A
session advisory lock per bucket makes processes take turns, and the bucket's last
IDENTIFY time, on the database's clock (one clock for every host), spaces them."""

from __future__ import annotations

import asyncio

import asyncpg  # type: ignore[import-untyped]

from bot.storage.postgres_locks import lock_key


async def identify_turn(dsn: str, bucket: int, spacing: float) -> None:
    """Return once this process may IDENTIFY in ``bucket``, having claimed the turn. The
    session lock lives on a connection of its own, closed at the end: a lock held by a
    cancelled turn can never outlive it."""
    key, meta = lock_key(("identify", bucket)), f"identify:{bucket}"
    conn = await asyncpg.connect(dsn, timeout=10)
    try:
        await conn.execute("SELECT pg_advisory_lock($1)", key)
        try:
            last = await conn.fetchval("SELECT value FROM meta WHERE key = $1", meta)
            now = float(await conn.fetchval("SELECT extract(epoch FROM clock_timestamp())"))
            if last is not None and float(last) + spacing > now:
                await asyncio.sleep(float(last) + spacing - now)
            await conn.execute(
                "INSERT INTO meta (key, value) VALUES ($1, extract(epoch FROM clock_timestamp())"
                "::text) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                meta,
            )
        finally:
            await conn.execute("SELECT pg_advisory_unlock($1)", key)
    finally:
        await conn.close()
