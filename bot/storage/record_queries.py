"""Players' records in SQL, written once for SQLite and PostgreSQL: the summaries kept as
games finish (what they add is the core's decision, :mod:`bot.core.records`), the
reviews kept once worked out (the core's JSON), and the queries behind /ttt stats,
leaderboard, history, review and forget-me."""

from __future__ import annotations

from bot.core.models import Game, Variant
from bot.core.rating import INITIAL_RATING
from bot.core.records import bot_record_change, rating_changes
from bot.core.repository import BotRecord, Rating
from bot.storage import forgotten_queries as forgotten
from bot.storage.sql import Db, Params, Row


async def apply_result(db: Db, game: Game) -> None:
    """Fold a just-finished game into the summaries, inside the caller's transaction.

    An Elo update reads both ratings and writes both: the two rows are created if new,
    then read in user-id order with :attr:`~bot.storage.sql.Dialect.for_update`, so a
    concurrent game of either member (in any process) waits for this one and reads what
    it wrote, and two such games never deadlock.
    """
    scope, variant = game.records_scope, game.variant  # a DM game counts under DM_SCOPE
    if game.bot_side is None:
        if game.ending is None or game.ending.result is None:
            return  # abandoned or stopped: nobody rated
        first, second = sorted((game.player_x, game.player_o))
        params = {"scope": scope, "variant": variant, "first": first, "second": second,
                  "initial": INITIAL_RATING}  # fmt: skip
        await db.run(
            "INSERT INTO ratings (guild_id, variant, user_id, rating) VALUES"
            " (:scope, :variant, :first, :initial), (:scope, :variant, :second, :initial)"
            " ON CONFLICT (guild_id, variant, user_id) DO NOTHING",
            params,
        )
        rows = await db.rows(
            "SELECT user_id, rating FROM ratings WHERE guild_id = :scope AND variant = :variant"
            f" AND user_id IN (:first, :second) ORDER BY user_id{db.dialect.for_update}",
            params,
        )
        current = {row["user_id"]: row["rating"] for row in rows}
        for change in rating_changes(game, current):
            t = change.tally
            await db.run(
                "UPDATE ratings SET rating = :rating, wins = wins + :wins,"
                " losses = losses + :losses, draws = draws + :draws"
                " WHERE guild_id = :scope AND variant = :variant AND user_id = :user",
                {"scope": scope, "variant": variant, "user": t.user_id,
                 "rating": change.rating, "wins": t.wins, "losses": t.losses, "draws": t.draws},
            )  # fmt: skip
            await db.run(
                "INSERT INTO rating_history"
                " (guild_id, variant, user_id, game_id, rating_before, rating_after)"
                " VALUES (:scope, :variant, :user, :game, :before, :after)",
                {"scope": scope, "variant": variant, "user": t.user_id, "game": game.id,
                 "before": current[t.user_id], "after": change.rating},
            )  # fmt: skip
        return
    counted = count_bot_game(game, "WHERE TRUE")
    if counted is not None:
        await db.run(*counted)


def count_bot_game(game: Game, source: str) -> tuple[str, Params] | None:
    """The statement adding a finished game against the bot to the member's record at its
    level, and its parameters; None when the game does not count (see
    :func:`~bot.core.records.bot_record_change`). Its one row of parameters is selected
    ``source``: ``WHERE TRUE``, or ``FROM saved WHERE NOT saved.hinted`` inside a WITH
    whose ``saved`` stored the game, so a hint another process marked meanwhile still
    keeps the game out, as it does when the row is read back first."""
    added = bot_record_change(game)
    if added is None:
        return None
    sql = (
        "INSERT INTO bot_records"
        " (guild_id, variant, user_id, difficulty, wins, losses, draws, points)"
        " SELECT :scope, :variant, :user, :difficulty, :wins, :losses, :draws, :points"
        f" {source} ON CONFLICT (guild_id, variant, difficulty, user_id) DO UPDATE SET"
        " wins = bot_records.wins + excluded.wins,"
        " losses = bot_records.losses + excluded.losses,"
        " draws = bot_records.draws + excluded.draws,"
        " points = bot_records.points + excluded.points"
    )
    return sql, {
        "scope": game.records_scope, "variant": game.variant, "user": added.user_id,
        "difficulty": game.difficulty,
        "wins": added.wins, "losses": added.losses, "draws": added.draws, "points": added.points,
    }  # fmt: skip


def finished_games_where(guild_id: int | None, limit: int | None) -> str:
    """The WHERE clause for a member's (``:user``) finished games in a server (``:guild``;
    None: the personal ones, in direct messages and as a guest), newest first: two index
    range reads (one per side) rather than an OR, which the planner may answer with a
    scan. ``IS NULL`` keeps the index usable where ``IS NOT DISTINCT FROM`` would not."""
    guild = "(guild_id IS NULL OR guest)" if guild_id is None else "guild_id = :guild AND NOT guest"
    side = f"SELECT id FROM games WHERE status = 'finished' AND {{col}} = :user AND {guild}"
    where = (
        f"WHERE id IN ({side.format(col='player_x')} UNION ALL "
        f"{side.format(col='player_o')}) ORDER BY finished_at DESC, id DESC"
    )
    return where if limit is None else f"{where} LIMIT {int(limit)}"


async def leaderboard(db: Db, guild_id: int, limit: int, variant: Variant) -> list[Rating]:
    rows = await db.rows(
        "SELECT user_id, rating, wins, losses, draws FROM ratings WHERE guild_id = :guild"
        " AND variant = :variant ORDER BY rating DESC, user_id LIMIT :limit",
        {"guild": guild_id, "variant": variant, "limit": limit},
    )
    return [_rating(row) for row in rows]


async def rank_of(
    db: Db, guild_id: int, user_id: int, variant: Variant
) -> tuple[int, Rating] | None:
    row = await db.row(
        "SELECT user_id, rating, wins, losses, draws FROM ratings"
        " WHERE guild_id = :guild AND variant = :variant AND user_id = :user",
        {"guild": guild_id, "variant": variant, "user": user_id},
    )
    if row is None:
        return None
    rating = _rating(row)
    ahead = await db.value(
        "SELECT COUNT(*) FROM ratings WHERE guild_id = :guild AND variant = :variant"
        " AND (rating > :rating OR (rating = :rating AND user_id < :user))",
        {"guild": guild_id, "variant": variant, "rating": rating.rating, "user": user_id},
    )
    return int(ahead) + 1, rating


async def best_against_bot(
    db: Db, guild_id: int, difficulty: str, limit: int, variant: Variant
) -> list[BotRecord]:
    """Best records against one difficulty: most points (win 2, draw 1), fewest losses."""
    rows = await db.rows(
        "SELECT user_id, difficulty, wins, losses, draws FROM bot_records"
        " WHERE guild_id = :guild AND variant = :variant AND difficulty = :difficulty"
        " ORDER BY points DESC, losses, user_id LIMIT :limit",
        {"guild": guild_id, "variant": variant, "difficulty": difficulty, "limit": limit},
    )
    return [
        BotRecord(row["user_id"], row["difficulty"], row["wins"], row["losses"], row["draws"])
        for row in rows
    ]


def _rating(row: Row) -> Rating:
    return Rating(row["user_id"], row["rating"], row["wins"], row["losses"], row["draws"])


async def forget_player(db: Db, user_id: int) -> int:
    """Delete a member's finished games, challenges, ratings and records everywhere;
    return how many games went. Running games are left to finish."""
    mine = "(player_x = :user OR player_o = :user) AND status = 'finished'"
    ids = f"SELECT id FROM games WHERE {mine}"
    params = {"user": user_id}
    async with db.atomic():
        await db.run(f"UPDATE games SET rematch_of = NULL WHERE rematch_of IN ({ids})", params)
        await db.run("UPDATE games SET stopped_by = NULL WHERE stopped_by = :user", params)
        # a pending challenge still on screen survives; it just forgets its origin
        await db.run(
            f"UPDATE challenges SET rematch_of = NULL WHERE rematch_of IN ({ids})"
            " AND status = 'pending'",
            params,
        )
        await db.run(
            "DELETE FROM challenges WHERE status != 'pending' AND (challenger_id = :user"
            f" OR opponent_id = :user OR game_id IN ({ids}) OR rematch_of IN ({ids}))",
            params,
        )
        # the reviews of those games go with them (and by the cascade, one kept meanwhile)
        await db.run(f"DELETE FROM reviews WHERE game_id IN ({ids})", params)
        deleted = await db.run(f"DELETE FROM games WHERE {mine}", params)
        await db.run("DELETE FROM ratings WHERE user_id = :user", params)
        await db.run("DELETE FROM rating_history WHERE user_id = :user", params)
        await db.run("DELETE FROM bot_records WHERE user_id = :user", params)
        # the members they blocked; a block of them stays, another member's choice (or
        # forget-me would be the way around a block)
        await db.run("DELETE FROM member_blocks WHERE blocker_id = :user", params)
        # their reminders' choice and the DMs kept for them (sent or not)
        await db.run("DELETE FROM outbox WHERE member_id = :user", params)
        await db.run("DELETE FROM reminder_settings WHERE member_id = :user", params)
        # puzzles: the record, then the attempts: the order a finish locks them in
        # (bot/core/puzzles/finish.py: the member's row, then the attempt), so the two
        # wait for each other on PostgreSQL instead of deadlocking. A puzzle's own
        # rating stays (the puzzle's).
        await db.run("DELETE FROM puzzle_players WHERE user_id = :user", params)
        # only "tried before" stays, unlinked (a later attempt is no rated first)
        await forgotten.remember_tried(db, user_id)
        await db.run("DELETE FROM puzzle_attempts WHERE user_id = :user", params)
        # a tournament's bracket keeps its place, not the name it showed
        await db.run("UPDATE tournament_players SET name = '—' WHERE user_id = :user", params)
    return deleted


async def rating_series(
    db: Db, scope: int, user_id: int, limit: int, variant: Variant
) -> list[float]:
    """A member's rating before their first recorded rated game and after each one, in
    the order they were played (the last ``limit`` games)."""
    rows = await db.rows(
        "SELECT rating_before, rating_after FROM rating_history WHERE guild_id = :scope"
        " AND variant = :variant AND user_id = :user ORDER BY game_id DESC LIMIT :limit",
        {"scope": scope, "variant": variant, "user": user_id, "limit": limit},
    )
    if not rows:
        return []
    rows.reverse()
    return [float(rows[0]["rating_before"]), *(float(row["rating_after"]) for row in rows)]


async def review_of(db: Db, game_id: int) -> str | None:
    value = await db.value("SELECT body FROM reviews WHERE game_id = :game", {"game": game_id})
    return None if value is None else str(value)


async def keep_review(db: Db, game_id: int, body: str, now: float) -> bool:
    """Keep ``body`` as the finished game's review (over one kept before); False, and
    nothing kept, when the game is not there (forgotten while it was worked out)."""
    kept = await db.run(
        "INSERT INTO reviews (game_id, body, created_at) SELECT :game, :body, :now"
        " WHERE EXISTS (SELECT 1 FROM games WHERE id = :game AND status = 'finished')"
        " ON CONFLICT (game_id) DO UPDATE SET body = excluded.body,"
        " created_at = excluded.created_at",
        {"game": game_id, "body": body, "now": now},
    )
    return kept > 0
