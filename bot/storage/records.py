"""Players' records: summaries kept as games finish, and the queries behind /ttt stats,
leaderboard, history, review and forget-me. Mixed into GameRepository (one repository)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from bot.models import Game
from bot.rating import INITIAL_RATING, elo_update
from bot.storage.transactions import transaction

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Rating:
    user_id: int
    rating: float
    wins: int
    losses: int
    draws: int


@dataclass(frozen=True, slots=True)
class BotRecord:
    user_id: int
    difficulty: str
    wins: int
    losses: int
    draws: int


def _score(game: Game, mark: str) -> float:
    """1 for a win of ``mark``, 0.5 for a draw, 0 for a loss."""
    return 0.5 if game.result == "draw" else float(game.result == mark)


def _tally(score: float) -> tuple[int, int, int]:
    return int(score == 1.0), int(score == 0.0), int(score == 0.5)


def apply_result(conn: sqlite3.Connection, game: Game) -> None:
    """Fold a just-finished game into the summaries (inside the caller's transaction)."""
    if game.guild_id is None or game.result is None:
        return
    if game.bot_side is None:
        ratings = []
        for user in (game.player_x, game.player_o):
            row = conn.execute(
                "SELECT rating FROM ratings WHERE guild_id = ? AND user_id = ?",
                (game.guild_id, user),
            ).fetchone()
            ratings.append(row[0] if row else INITIAL_RATING)
        new_x, new_o = elo_update(ratings[0], ratings[1], _score(game, "X"))
        for user, rating, mark in ((game.player_x, new_x, "X"), (game.player_o, new_o, "O")):
            wins, losses, draws = _tally(_score(game, mark))
            conn.execute(
                "INSERT INTO ratings (guild_id, user_id, rating, wins, losses, draws)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, user_id) DO UPDATE SET"
                " rating = excluded.rating, wins = wins + excluded.wins,"
                " losses = losses + excluded.losses, draws = draws + excluded.draws",
                (game.guild_id, user, rating, wins, losses, draws),
            )
        return
    member_mark = "O" if game.bot_side == "X" else "X"
    wins, losses, draws = _tally(_score(game, member_mark))
    conn.execute(
        "INSERT INTO bot_records (guild_id, user_id, difficulty, wins, losses, draws, points)"
        " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, difficulty, user_id) DO UPDATE"
        " SET wins = wins + excluded.wins, losses = losses + excluded.losses,"
        " draws = draws + excluded.draws, points = points + excluded.points",
        (game.guild_id, game.player(member_mark), game.difficulty, wins, losses, draws,
         2 * wins + draws),
    )  # fmt: skip


class RecordQueries:
    """Read side of players' records. Needs ``conn``, ``_run`` and ``_games_where``."""

    conn: sqlite3.Connection
    _run: Callable[..., Any]
    _games_where: Callable[..., list[Game]]

    async def finished_games_of(
        self, guild_id: int, user_id: int, limit: int | None = None
    ) -> list[Game]:
        """A member's finished games in a server, newest first."""
        # Two index range reads (one per side) rather than an OR, which the planner may
        # answer with a scan of every finished game.
        side = (
            "SELECT id FROM games WHERE status = 'finished' AND {col} = :user AND guild_id = :guild"
        )
        where = (
            f"WHERE id IN ({side.format(col='player_x')} UNION ALL "
            f"{side.format(col='player_o')}) ORDER BY finished_at DESC, id DESC"
        )
        return await self._run(
            self._games_where,
            where + ("" if limit is None else f" LIMIT {int(limit)}"),
            {"guild": guild_id, "user": user_id},
        )

    async def leaderboard(self, guild_id: int, limit: int) -> list[Rating]:
        def run() -> list[Rating]:
            rows = self.conn.execute(
                "SELECT user_id, rating, wins, losses, draws FROM ratings WHERE guild_id = ?"
                " ORDER BY rating DESC, user_id LIMIT ?",
                (guild_id, limit),
            ).fetchall()
            return [Rating(*row) for row in rows]

        return await self._run(run)

    async def rank_of(self, guild_id: int, user_id: int) -> tuple[int, Rating] | None:
        """A member's place on the server's leaderboard (1 = top), or None if unrated."""

        def run() -> tuple[int, Rating] | None:
            row = self.conn.execute(
                "SELECT user_id, rating, wins, losses, draws FROM ratings"
                " WHERE guild_id = ? AND user_id = ?",
                (guild_id, user_id),
            ).fetchone()
            if row is None:
                return None
            rating = Rating(*row)
            ahead = self.conn.execute(
                "SELECT COUNT(*) FROM ratings WHERE guild_id = ?"
                " AND (rating > ? OR (rating = ? AND user_id < ?))",
                (guild_id, rating.rating, rating.rating, user_id),
            ).fetchone()[0]
            return ahead + 1, rating

        return await self._run(run)

    async def best_against_bot(self, guild_id: int, difficulty: str, limit: int) -> list[BotRecord]:
        """Best records against one difficulty: most points (win 2, draw 1), fewest losses."""

        def run() -> list[BotRecord]:
            rows = self.conn.execute(
                "SELECT user_id, difficulty, wins, losses, draws FROM bot_records"
                " WHERE guild_id = ? AND difficulty = ?"
                " ORDER BY points DESC, losses, user_id LIMIT ?",
                (guild_id, difficulty, limit),
            ).fetchall()
            return [BotRecord(*row) for row in rows]

        return await self._run(run)

    async def forget_player(self, user_id: int) -> int:
        """Delete a member's finished games, challenges, ratings and records everywhere;
        return how many games went. Running games are left to finish."""

        def run() -> int:
            mine = "(player_x = :u OR player_o = :u) AND status = 'finished'"
            ids = f"SELECT id FROM games WHERE {mine}"
            params = {"u": user_id}
            with transaction(self.conn) as conn:
                conn.execute(f"UPDATE games SET rematch_of = NULL WHERE rematch_of IN ({ids})",
                             params)  # fmt: skip
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
                deleted = conn.execute(f"DELETE FROM games WHERE {mine}", params).rowcount
                conn.execute("DELETE FROM ratings WHERE user_id = :u", params)
                conn.execute("DELETE FROM bot_records WHERE user_id = :u", params)
            return deleted

        return await self._run(run)
