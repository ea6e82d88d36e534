"""The puzzles' second migration (SQLite's 18, PostgreSQL's 15) on a database the
release before it filled: attempts kept with their ids and outcomes (SQLite rebuilds the
table to widen a CHECK), the last rated attempt's end filled in as the time away counts
from, and the new outcome and Share flag usable."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import asyncpg

from bot.storage import MIGRATIONS
from bot.storage.postgres_migrations import MIGRATIONS as PG_MIGRATIONS

from core_harness import open_repo

BEFORE = {"sqlite": 16, "postgres": 13}
"""The last migration before this one, on each database."""
ROWS = (
    "INSERT INTO puzzle_attempts (id, user_id, puzzle_id, kind, mode, position, to_move, n,"
    " rated, started_at, guild_id, status, outcome, finished_at, rating_before, rating_after)"
    " VALUES (41, 101, '5x5-x', '5x5', 'training', '{p}', 'X', 2, TRUE, 1000.0, 7, 'failed',"
    " 'expired', 2800.0, 1500.0, 1400.0)",
    "INSERT INTO puzzle_attempts (id, user_id, puzzle_id, kind, mode, position, to_move, n,"
    " rated, started_at, guild_id, status, outcome, finished_at)"
    " VALUES (42, 101, '3x3-y', '3x3', 'training', '.........', 'X', 2, FALSE, 3000.0, 7,"
    " 'solved', 'solved', 3100.0)",
    "INSERT INTO puzzle_players (user_id, rating, deviation, volatility, solved, tried)"
    " VALUES (101, 1400.0, 290.0, 0.06, 1, 2)",
)


async def test_attempts_are_kept_and_the_time_away_filled_in(database: Path | str) -> None:
    rows = [row.replace("{p}", "." * 25) for row in ROWS]
    if isinstance(database, Path):
        conn = sqlite3.connect(database)
        for number, migration in enumerate(MIGRATIONS[: BEFORE["sqlite"]], start=1):
            conn.executescript(migration)
            conn.execute(f"PRAGMA user_version = {number}")
        for row in rows:
            conn.execute(row.replace("TRUE", "1").replace("FALSE", "0"))
        conn.commit()
        conn.close()
    else:
        pg = await asyncpg.connect(database)
        await pg.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        for migration in PG_MIGRATIONS[: BEFORE["postgres"]]:
            await pg.execute(migration)
        await pg.execute("INSERT INTO schema_version VALUES ($1)", BEFORE["postgres"])
        for row in rows:
            await pg.execute(row)
        await pg.close()
    repo = open_repo(database)
    await repo.open()
    try:
        expired = await repo.get_puzzle_attempt(41)
        assert expired is not None and (expired.outcome, expired.rating_after) == ("expired", 1400)
        player = await repo.puzzle_player(101)
        assert player is not None and player.rated_at == 2800.0  # the rated one's end
        assert (player.solved, player.tried, player.rating.deviation) == (1, 2, 290.0)
        solved = await repo.get_puzzle_attempt(42)
        assert solved is not None and solved.status == "solved" and not solved.shared
        assert await repo.mark_puzzle_shared(42) and not await repo.mark_puzzle_shared(42)
        assert (await repo.get_puzzle_attempt(42)).shared  # type: ignore[union-attr]
    finally:
        await repo.close()
