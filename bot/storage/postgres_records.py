"""Players' records on PostgreSQL: the summaries kept as games finish, and the queries
behind /ttt stats, leaderboard, history and forget-me. Plain async functions over an
asyncpg connection."""

from __future__ import annotations

from typing import Any

from bot.core.models import Game
from bot.core.rating import INITIAL_RATING, elo_update
from bot.core.repository import BotRecord, Rating


def _tally(score: float) -> tuple[int, int, int]:
    return int(score == 1.0), int(score == 0.0), int(score == 0.5)


async def apply_result(conn: Any, game: Game) -> None:
    """Fold a just-finished game into the summaries, inside the caller's transaction.

    An Elo update reads both ratings and writes both: the two rows are created if new,
    then locked in user-id order, so a concurrent game of either member (in any process)
    waits for this one and reads what it wrote, and two such games never deadlock.
    """
    if game.outcome is None or game.outcome.result is None:
        return
    scope = game.records_scope  # a DM game counts under DM_SCOPE
    outcome = game.outcome
    if game.bot_side is None:
        users = sorted({game.player_x, game.player_o})
        await conn.execute(
            "INSERT INTO ratings (guild_id, user_id, rating)"
            " SELECT $1, u, $3 FROM unnest($2::bigint[]) AS u ORDER BY u"
            " ON CONFLICT (guild_id, user_id) DO NOTHING",
            scope, users, INITIAL_RATING,
        )  # fmt: skip
        rows = await conn.fetch(
            "SELECT user_id, rating FROM ratings WHERE guild_id = $1"
            " AND user_id = ANY($2::bigint[]) ORDER BY user_id FOR UPDATE",
            scope, users,
        )  # fmt: skip
        current = {row["user_id"]: row["rating"] for row in rows}
        new_x, new_o = elo_update(
            current[game.player_x], current[game.player_o], outcome.score("X") or 0.0
        )
        for user, rating, mark in ((game.player_x, new_x, "X"), (game.player_o, new_o, "O")):
            wins, losses, draws = _tally(outcome.score(mark) or 0.0)
            await conn.execute(
                "UPDATE ratings SET rating = $3, wins = wins + $4, losses = losses + $5,"
                " draws = draws + $6 WHERE guild_id = $1 AND user_id = $2",
                scope, user, rating, wins, losses, draws,
            )  # fmt: skip
        return
    if game.hinted:
        return  # a game played with a hint does not count towards the best records
    member_mark = "O" if game.bot_side == "X" else "X"
    wins, losses, draws = _tally(outcome.score(member_mark) or 0.0)
    await conn.execute(
        "INSERT INTO bot_records (guild_id, user_id, difficulty, wins, losses, draws, points)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (guild_id, difficulty, user_id)"
        " DO UPDATE SET wins = bot_records.wins + excluded.wins,"
        " losses = bot_records.losses + excluded.losses,"
        " draws = bot_records.draws + excluded.draws,"
        " points = bot_records.points + excluded.points",
        scope, game.player(member_mark), game.difficulty, wins, losses, draws,
        2 * wins + draws,
    )  # fmt: skip


_FINISHED_GAMES_WHERE = (
    # two index range reads (one per side) rather than an OR, as on SQLite
    "WHERE id IN (SELECT id FROM games WHERE status = 'finished' AND player_x = $2"
    " AND {guild} UNION ALL SELECT id FROM games WHERE status = 'finished'"
    " AND player_o = $2 AND {guild}) ORDER BY finished_at DESC, id DESC LIMIT $3"
)


def finished_games_where(guild_id: int | None) -> str:
    """A member's finished games in a server (``$1``; None: in direct messages), newest
    first; ``LIMIT NULL`` is no limit. ``IS NULL`` keeps the index usable, where ``IS NOT
    DISTINCT FROM $1`` would not; ``$1`` is still typed, as every parameter must be."""
    guild = "guild_id = $1" if guild_id is not None else "guild_id IS NULL AND $1::bigint IS NULL"
    return _FINISHED_GAMES_WHERE.format(guild=guild)


async def leaderboard(conn: Any, guild_id: int, limit: int) -> list[Rating]:
    rows = await conn.fetch(
        "SELECT user_id, rating, wins, losses, draws FROM ratings WHERE guild_id = $1"
        " ORDER BY rating DESC, user_id LIMIT $2",
        guild_id, limit,
    )  # fmt: skip
    return [Rating(*row) for row in rows]


async def rank_of(conn: Any, guild_id: int, user_id: int) -> tuple[int, Rating] | None:
    row = await conn.fetchrow(
        "SELECT user_id, rating, wins, losses, draws FROM ratings"
        " WHERE guild_id = $1 AND user_id = $2",
        guild_id, user_id,
    )  # fmt: skip
    if row is None:
        return None
    rating = Rating(*row)
    ahead = await conn.fetchval(
        "SELECT COUNT(*) FROM ratings WHERE guild_id = $1"
        " AND (rating > $2 OR (rating = $2 AND user_id < $3))",
        guild_id, rating.rating, user_id,
    )  # fmt: skip
    return int(ahead) + 1, rating


async def best_against_bot(
    conn: Any, guild_id: int, difficulty: str, limit: int
) -> list[BotRecord]:
    """Best records against one difficulty: most points (win 2, draw 1), fewest losses."""
    rows = await conn.fetch(
        "SELECT user_id, difficulty, wins, losses, draws FROM bot_records"
        " WHERE guild_id = $1 AND difficulty = $2"
        " ORDER BY points DESC, losses, user_id LIMIT $3",
        guild_id, difficulty, limit,
    )  # fmt: skip
    return [BotRecord(*row) for row in rows]


async def forget_player(conn: Any, user_id: int) -> int:
    """Delete a member's finished games, challenges, ratings and records everywhere;
    return how many games went. Running games are left to finish."""
    mine = "(player_x = $1 OR player_o = $1) AND status = 'finished'"
    ids = f"SELECT id FROM games WHERE {mine}"
    async with conn.transaction():
        await conn.execute(f"UPDATE games SET rematch_of = NULL WHERE rematch_of IN ({ids})",
                           user_id)  # fmt: skip
        await conn.execute("UPDATE games SET stopped_by = NULL WHERE stopped_by = $1", user_id)
        # a pending challenge still on screen survives; it just forgets its origin
        await conn.execute(
            f"UPDATE challenges SET rematch_of = NULL WHERE rematch_of IN ({ids})"
            " AND status = 'pending'",
            user_id,
        )
        await conn.execute(
            "DELETE FROM challenges WHERE status != 'pending' AND (challenger_id = $1"
            f" OR opponent_id = $1 OR game_id IN ({ids}) OR rematch_of IN ({ids}))",
            user_id,
        )
        status = await conn.execute(f"DELETE FROM games WHERE {mine}", user_id)
        await conn.execute("DELETE FROM ratings WHERE user_id = $1", user_id)
        await conn.execute("DELETE FROM bot_records WHERE user_id = $1", user_id)
    return int(status.rsplit(" ", 1)[-1])
