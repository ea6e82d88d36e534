"""Players' records in SQL: the summaries kept as games finish, and the queries behind
/ttt stats, leaderboard, history and forget-me. Plain functions over a connection."""

from __future__ import annotations

import sqlite3

from bot.core.models import Game
from bot.core.rating import INITIAL_RATING, elo_update
from bot.core.repository import BotRecord, Rating
from bot.storage.transactions import transaction


def _tally(score: float) -> tuple[int, int, int]:
    return int(score == 1.0), int(score == 0.0), int(score == 0.5)


def apply_result(conn: sqlite3.Connection, game: Game) -> None:
    """Fold a just-finished game into the summaries (inside the caller's transaction)."""
    if game.outcome is None or game.outcome.result is None:
        return
    scope = game.records_scope  # a DM game counts under DM_SCOPE
    outcome = game.outcome
    if game.bot_side is None:
        ratings = []
        for user in (game.player_x, game.player_o):
            row = conn.execute(
                "SELECT rating FROM ratings WHERE guild_id = ? AND user_id = ?",
                (scope, user),
            ).fetchone()
            ratings.append(row[0] if row else INITIAL_RATING)
        new_x, new_o = elo_update(ratings[0], ratings[1], outcome.score("X") or 0.0)
        for user, rating, mark in ((game.player_x, new_x, "X"), (game.player_o, new_o, "O")):
            wins, losses, draws = _tally(outcome.score(mark) or 0.0)
            conn.execute(
                "INSERT INTO ratings (guild_id, user_id, rating, wins, losses, draws)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, user_id) DO UPDATE SET"
                " rating = excluded.rating, wins = wins + excluded.wins,"
                " losses = losses + excluded.losses, draws = draws + excluded.draws",
                (scope, user, rating, wins, losses, draws),
            )
        return
    if game.hinted:
        return  # a game played with a hint does not count towards the best records
    member_mark = "O" if game.bot_side == "X" else "X"
    wins, losses, draws = _tally(outcome.score(member_mark) or 0.0)
    conn.execute(
        "INSERT INTO bot_records (guild_id, user_id, difficulty, wins, losses, draws, points)"
        " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, difficulty, user_id) DO UPDATE"
        " SET wins = wins + excluded.wins, losses = losses + excluded.losses,"
        " draws = draws + excluded.draws, points = points + excluded.points",
        (scope, game.player(member_mark), game.difficulty, wins, losses, draws,
         2 * wins + draws),
    )  # fmt: skip


def finished_games_where(guild_id: int | None, user_id: int, limit: int | None) -> tuple[str, dict]:
    """The WHERE clause for a member's finished games in a server (None: in direct
    messages), newest first: two index range reads (one per side) rather than an OR,
    which the planner may answer with a scan."""
    guild = "guild_id IS NULL" if guild_id is None else "guild_id = :guild"
    side = f"SELECT id FROM games WHERE status = 'finished' AND {{col}} = :user AND {guild}"
    where = (
        f"WHERE id IN ({side.format(col='player_x')} UNION ALL "
        f"{side.format(col='player_o')}) ORDER BY finished_at DESC, id DESC"
    )
    if limit is not None:
        where += f" LIMIT {int(limit)}"
    return where, {"guild": guild_id, "user": user_id}


def leaderboard(conn: sqlite3.Connection, guild_id: int, limit: int) -> list[Rating]:
    rows = conn.execute(
        "SELECT user_id, rating, wins, losses, draws FROM ratings WHERE guild_id = ?"
        " ORDER BY rating DESC, user_id LIMIT ?",
        (guild_id, limit),
    ).fetchall()
    return [Rating(*row) for row in rows]


def rank_of(conn: sqlite3.Connection, guild_id: int, user_id: int) -> tuple[int, Rating] | None:
    row = conn.execute(
        "SELECT user_id, rating, wins, losses, draws FROM ratings"
        " WHERE guild_id = ? AND user_id = ?",
        (guild_id, user_id),
    ).fetchone()
    if row is None:
        return None
    rating = Rating(*row)
    ahead = conn.execute(
        "SELECT COUNT(*) FROM ratings WHERE guild_id = ?"
        " AND (rating > ? OR (rating = ? AND user_id < ?))",
        (guild_id, rating.rating, rating.rating, user_id),
    ).fetchone()[0]
    return ahead + 1, rating


def best_against_bot(
    conn: sqlite3.Connection, guild_id: int, difficulty: str, limit: int
) -> list[BotRecord]:
    """Best records against one difficulty: most points (win 2, draw 1), fewest losses."""
    rows = conn.execute(
        "SELECT user_id, difficulty, wins, losses, draws FROM bot_records"
        " WHERE guild_id = ? AND difficulty = ?"
        " ORDER BY points DESC, losses, user_id LIMIT ?",
        (guild_id, difficulty, limit),
    ).fetchall()
    return [BotRecord(*row) for row in rows]


def forget_player(conn: sqlite3.Connection, user_id: int) -> int:
    """Delete a member's finished games, challenges, ratings and records everywhere;
    return how many games went. Running games are left to finish."""
    mine = "(player_x = :u OR player_o = :u) AND status = 'finished'"
    ids = f"SELECT id FROM games WHERE {mine}"
    params = {"u": user_id}
    with transaction(conn):
        conn.execute(f"UPDATE games SET rematch_of = NULL WHERE rematch_of IN ({ids})", params)
        conn.execute("UPDATE games SET stopped_by = NULL WHERE stopped_by = :u", params)
        # a pending challenge still on screen survives; it just forgets its origin
        conn.execute(
            f"UPDATE challenges SET rematch_of = NULL WHERE rematch_of IN ({ids})"
            " AND status = 'pending'",
            params,
        )
        conn.execute(
            "DELETE FROM challenges WHERE status != 'pending' AND (challenger_id = :u"
            f" OR opponent_id = :u OR game_id IN ({ids}) OR rematch_of IN ({ids}))",
            params,
        )
        deleted: int = conn.execute(f"DELETE FROM games WHERE {mine}", params).rowcount
        conn.execute("DELETE FROM ratings WHERE user_id = :u", params)
        conn.execute("DELETE FROM bot_records WHERE user_id = :u", params)
    return deleted
