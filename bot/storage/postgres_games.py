"""SQL for games, challenges, server settings and bot state on PostgreSQL: plain async
functions over an asyncpg connection, called by :mod:`bot.storage.postgres`.

A function that writes more than one row opens ``conn.transaction()``: its own
transaction, or a savepoint of the unit of work it runs in. Rows map to the core's models
as on SQLite (the same columns and text encoding of the moves).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import astuple
from typing import Any

import asyncpg  # type: ignore[import-untyped]

from bot.core.models import Challenge, Game
from bot.core.repository import Conflict
from bot.storage.postgres_records import apply_result, finished_games_where
from bot.storage.sqlite_games import GAME_COLUMNS, game_from_row, game_params

CLAIM_SECONDS = 30.0
"""How long a timekeeper's claim on a due deadline keeps other processes off it: ample
for resolving it; if the claiming process dies, another takes the deadline after that."""
CLAIM_BATCH = 100

_GAME_FIELDS = (
    "guild_id", "channel_id", "message_id", "size", "k", "player_x", "player_o", "bot_side",
    "difficulty", "moves", "ply", "status", "result", "end_reason", "turn_deadline",
    "created_at", "updated_at", "finished_at", "rematch_of", "locale", "hinted",
    "ping_message_id", "stopped_by",
)  # fmt: skip
_INSERT_GAME = (
    f"INSERT INTO games ({', '.join(_GAME_FIELDS)})"
    f" VALUES ({', '.join(f'${n}' for n in range(1, len(_GAME_FIELDS) + 1))}) RETURNING id"
)
_CHALLENGE_COLUMNS = (
    "id, guild_id, channel_id, message_id, challenger_id, opponent_id, x_player, size, k,"
    " status, expires_at, created_at, game_id, rematch_of, locale"
)
_INSERT_CHALLENGE = (
    f"INSERT INTO challenges ({_CHALLENGE_COLUMNS.removeprefix('id, ')})"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id"
)


def lock_key(key: tuple[str, int]) -> int:
    """A stable signed 64-bit advisory lock key for ``("channel", id)`` and the like: the
    same in every process and every release (``hash()`` is salted per process)."""
    digest = hashlib.blake2b(f"ttt:{key[0]}:{key[1]}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


async def hold_lock(conn: Any, key: tuple[str, int]) -> None:
    """Take the advisory lock for ``key`` until the current transaction ends."""
    await conn.execute("SELECT pg_advisory_xact_lock($1)", lock_key(key))


def rowcount(status: str) -> int:
    """The row count in a command status such as ``UPDATE 1``."""
    return int(status.rsplit(" ", 1)[-1])


async def games_where(conn: Any, where: str, *args: Any) -> list[Game]:
    rows = await conn.fetch(f"SELECT {GAME_COLUMNS} FROM games {where}", *args)
    return [game_from_row(tuple(row)) for row in rows]


async def finished_games_of(
    conn: Any, guild_id: int | None, user_id: int, limit: int | None
) -> list[Game]:
    """A member's finished games in a server (None: in direct messages), newest first."""
    return await games_where(conn, finished_games_where(guild_id), guild_id, user_id, limit)


async def insert_game(conn: Any, game: Game) -> Game:
    params = game_params(game)
    async with conn.transaction():
        game_id = await conn.fetchval(_INSERT_GAME, *(params[f] for f in _GAME_FIELDS))
        game = game.with_changes(id=game_id)
        if not game.running:  # an imported record, not a new game
            await apply_result(conn, game)
    return game


async def import_finished_games(conn: Any, games: list[Game]) -> None:
    async with conn.transaction():
        for game in games:
            if game.running:
                raise ValueError(f"game {game.id} is still running")
            await insert_game(conn, game)


async def get_game(conn: Any, game_id: int) -> Game | None:
    games = await games_where(conn, "WHERE id = $1", game_id)
    return games[0] if games else None


async def save_game(conn: Any, game: Game, expected_ply: int) -> Game:
    """The compare-and-set on the ply: the UPDATE locks the row, and a writer that waited
    for another re-reads it, finds the ply moved on and changes nothing. A game that goes
    on is that one statement (atomic by itself: one round trip, not three); a finished
    one changes the records in the same transaction."""
    if game.running:
        return await _update_game(conn, game, expected_ply)
    async with conn.transaction():
        stored = await _update_game(conn, game, expected_ply)
        await apply_result(conn, stored)
    return stored


async def _update_game(conn: Any, game: Game, expected_ply: int) -> Game:
    """Store the changed game and return it with what others may have changed since it
    was read: a hint marked, a board posted again (another process's /ttt board), a turn
    ping sent; the
    message id is never written here, only by :func:`move_game_message` and the like.

    Raises:
        Conflict: the stored game is no longer running at ``expected_ply``.
    """
    p = game_params(game)
    row = await conn.fetchrow(
        "UPDATE games SET moves = $3, ply = $4, status = $5,"
        " result = $6, end_reason = $7, turn_deadline = $8, updated_at = $9,"
        " finished_at = $10, stopped_by = $11, claimed_until = NULL"
        " WHERE id = $1 AND status = 'running' AND ply = $2"
        " RETURNING hinted, message_id, ping_message_id",
        game.id, expected_ply, p["moves"], p["ply"], p["status"],
        p["result"], p["end_reason"], p["turn_deadline"], p["updated_at"],
        p["finished_at"], p["stopped_by"],
    )  # fmt: skip
    if row is None:
        raise Conflict(f"game {game.id} changed before this write")
    return game.with_changes(hinted=bool(row["hinted"]), message_id=row["message_id"],
                             ping_message_id=row["ping_message_id"])  # fmt: skip


async def mark_hinted(conn: Any, game_id: int, expected_ply: int) -> None:
    """Marks the game while it still stands at ``expected_ply``: the UPDATE waits for a
    move being stored and then finds the ply moved on, as :func:`save_game` does."""
    status = await conn.execute(
        "UPDATE games SET hinted = TRUE WHERE id = $1 AND status = 'running' AND ply = $2",
        game_id, expected_ply,
    )  # fmt: skip
    if rowcount(status) != 1:
        raise Conflict(f"game {game_id} changed before its hint was marked")


async def set_game_message(conn: Any, game_id: int, message_id: int) -> None:
    await conn.execute("UPDATE games SET message_id = $2 WHERE id = $1", game_id, message_id)


async def move_game_message(conn: Any, game_id: int, old: int | None, new: int) -> bool:
    status = await conn.execute(
        "UPDATE games SET message_id = $3 WHERE id = $1 AND status = 'running'"
        " AND message_id IS NOT DISTINCT FROM $2",
        game_id, old, new,
    )  # fmt: skip
    return rowcount(status) == 1


async def set_ping_message(conn: Any, game_id: int, ply: int, message_id: int) -> bool:
    status = await conn.execute(
        "UPDATE games SET ping_message_id = $3 WHERE id = $1 AND status = 'running'"
        " AND ply = $2",
        game_id, ply, message_id,
    )  # fmt: skip
    return rowcount(status) == 1


async def take_ping_message(conn: Any, game_id: int) -> int | None:
    """Two takers at once: the second waits for the row lock, re-reads the row, finds no
    ping any more and returns None, so exactly one of them deletes the message."""
    value = await conn.fetchval(
        "WITH old AS (SELECT id, ping_message_id FROM games"
        " WHERE id = $1 AND ping_message_id IS NOT NULL FOR UPDATE)"
        " UPDATE games SET ping_message_id = NULL FROM old WHERE games.id = old.id"
        " RETURNING old.ping_message_id",
        game_id,
    )
    return None if value is None else int(value)


async def running_games(conn: Any) -> list[Game]:
    return await games_where(conn, "WHERE status = 'running' ORDER BY id")


async def running_games_in(conn: Any, channel_id: int) -> list[Game]:
    return await games_where(
        conn, "WHERE channel_id = $1 AND status = 'running' ORDER BY id", channel_id
    )


async def running_game_of(conn: Any, guild_id: int | None, user_id: int) -> Game | None:
    games = await games_where(
        conn,
        "WHERE status = 'running' AND guild_id IS NOT DISTINCT FROM $1"
        " AND ((player_x = $2 AND bot_side IS DISTINCT FROM 'X')"
        " OR (player_o = $2 AND bot_side IS DISTINCT FROM 'O')) ORDER BY id LIMIT 1",
        guild_id, user_id,
    )  # fmt: skip
    return games[0] if games else None


async def last_start(conn: Any, guild_id: int | None, user_id: int) -> float | None:
    value = await conn.fetchval(
        "SELECT GREATEST((SELECT MAX(created_at) FROM challenges"
        " WHERE challenger_id = $2 AND guild_id IS NOT DISTINCT FROM $1),"
        " (SELECT MAX(created_at) FROM games WHERE guild_id IS NOT DISTINCT FROM $1"
        " AND bot_side IS NOT NULL AND (player_x = $2 OR player_o = $2)))",
        guild_id, user_id,
    )  # fmt: skip
    return None if value is None else float(value)


async def games_due(conn: Any, now: float) -> list[Game]:
    """Claim a batch of running games whose deadline passed and no other process holds:
    rows another transaction is claiming are skipped, not waited for."""
    rows = await conn.fetch(
        f"UPDATE games SET claimed_until = $2 WHERE id IN (SELECT id FROM games"
        " WHERE status = 'running' AND turn_deadline <= $1"
        " AND (claimed_until IS NULL OR claimed_until <= $1)"
        " ORDER BY turn_deadline LIMIT $3 FOR UPDATE SKIP LOCKED)"
        f" RETURNING {GAME_COLUMNS}",
        now, now + CLAIM_SECONDS, CLAIM_BATCH,
    )  # fmt: skip
    games = [game_from_row(tuple(row)) for row in rows]
    return sorted(games, key=lambda g: (g.turn_deadline or 0.0, g.id))


async def next_deadline(conn: Any) -> float | None:
    """The soonest deadline, or the end of another process's claim on it."""
    value = await conn.fetchval(
        "SELECT LEAST("
        " (SELECT MIN(GREATEST(turn_deadline, claimed_until)) FROM games"
        "  WHERE status = 'running'),"
        " (SELECT MIN(GREATEST(expires_at, claimed_until)) FROM challenges"
        "  WHERE status = 'pending'))"
    )
    return None if value is None else float(value)


# --- challenges ---------------------------------------------------------------------------


async def _challenges_where(conn: Any, where: str, *args: Any) -> list[Challenge]:
    rows = await conn.fetch(f"SELECT {_CHALLENGE_COLUMNS} FROM challenges {where}", *args)
    return [Challenge(*row) for row in rows]


async def create_challenge(conn: Any, challenge: Challenge) -> Challenge:
    try:
        async with conn.transaction():  # a savepoint: the unit of work survives a Conflict
            challenge_id = await conn.fetchval(_INSERT_CHALLENGE, *astuple(challenge)[1:])
    except asyncpg.IntegrityConstraintViolationError as exc:
        raise Conflict(str(exc)) from None
    return challenge.with_changes(id=challenge_id)


async def get_challenge(conn: Any, challenge_id: int) -> Challenge | None:
    found = await _challenges_where(conn, "WHERE id = $1", challenge_id)
    return found[0] if found else None


async def pending_challenge_in(conn: Any, channel_id: int) -> Challenge | None:
    found = await _challenges_where(
        conn, "WHERE channel_id = $1 AND status = 'pending'", channel_id
    )
    return found[0] if found else None


async def set_challenge_message(conn: Any, challenge_id: int, message_id: int) -> None:
    await conn.execute(
        "UPDATE challenges SET message_id = $2 WHERE id = $1", challenge_id, message_id
    )


async def close_challenge(
    conn: Any, challenge: Challenge, status: str, game_id: int | None = None
) -> None:
    """Raises: Conflict: it was no longer pending."""
    result = await conn.execute(
        "UPDATE challenges SET status = $2, game_id = $3 WHERE id = $1 AND status = 'pending'",
        challenge.id, status, game_id,
    )  # fmt: skip
    if rowcount(result) != 1:
        raise Conflict(f"challenge {challenge.id} is no longer pending")


async def accept_challenge(conn: Any, challenge: Challenge, game: Game) -> Game:
    """Under the channel's lock, as a start is: a start checking the channel must not see
    the game not yet there and then the challenge already gone. The challenge is closed
    first: its row lock makes a second accept wait, then find it closed."""
    try:
        async with conn.transaction():
            await hold_lock(conn, ("channel", challenge.channel_id))
            await close_challenge(conn, challenge, "accepted")
            created = await insert_game(conn, game)
            await conn.execute(
                "UPDATE challenges SET game_id = $2 WHERE id = $1", challenge.id, created.id
            )
    except asyncpg.IntegrityConstraintViolationError as exc:
        raise Conflict(str(exc)) from None
    return created


async def challenges_due(conn: Any, now: float) -> list[Challenge]:
    """Claim a batch of pending challenges whose time ran out, as :func:`games_due`."""
    rows = await conn.fetch(
        "UPDATE challenges SET claimed_until = $2 WHERE id IN (SELECT id FROM challenges"
        " WHERE status = 'pending' AND expires_at <= $1"
        " AND (claimed_until IS NULL OR claimed_until <= $1)"
        " ORDER BY expires_at LIMIT $3 FOR UPDATE SKIP LOCKED)"
        f" RETURNING {_CHALLENGE_COLUMNS}",
        now, now + CLAIM_SECONDS, CLAIM_BATCH,
    )  # fmt: skip
    return sorted((Challenge(*row) for row in rows), key=lambda c: (c.expires_at, c.id))


# --- server settings and bot state ----------------------------------------------------------


async def guild_overrides(conn: Any, guild_id: int) -> dict[str, object]:
    value = await conn.fetchval(
        "SELECT overrides FROM guild_settings WHERE guild_id = $1", guild_id
    )
    return dict(json.loads(value)) if value is not None else {}


async def set_guild_overrides(conn: Any, guild_id: int, overrides: dict[str, object]) -> None:
    await conn.execute(
        "INSERT INTO guild_settings (guild_id, overrides) VALUES ($1, $2)"
        " ON CONFLICT (guild_id) DO UPDATE SET overrides = excluded.overrides",
        guild_id, json.dumps(overrides, sort_keys=True),
    )  # fmt: skip


async def get_meta(conn: Any, key: str) -> str | None:
    value: str | None = await conn.fetchval("SELECT value FROM meta WHERE key = $1", key)
    return value


async def set_meta(conn: Any, key: str, value: str) -> None:
    await conn.execute(
        "INSERT INTO meta (key, value) VALUES ($1, $2)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        key, value,
    )  # fmt: skip
