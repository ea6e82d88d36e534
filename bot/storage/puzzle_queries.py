"""Puzzles in SQL, written once for SQLite and PostgreSQL: members' attempts (a move
stored by a compare-and-set on the ply, as a game's is), members' and puzzles' Glicko-2
ratings (held with the dialect's row lock while a finish updates them), the solved
dailies a streak is worked out from, and the server's puzzle leaderboard. What any of it
comes to is the core's decision (:mod:`bot.core.puzzles.service`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.core.models import Game
from bot.core.puzzles.models import (
    Attempt,
    PuzzleBoard,
    PuzzlePlayer,
    PuzzleRating,
    PuzzleStanding,
)
from bot.core.repository import Conflict
from bot.storage.game_queries import games_where
from bot.storage.sql import Db, Row, insert_returning_id

_FIELDS = (
    "user_id", "puzzle_id", "kind", "mode", "position", "to_move", "n", "rated",
    "started_at", "guild_id", "daily", "moves", "ply", "status", "outcome", "finished_at",
    "rating_before", "rating_after", "retry_of",
)  # fmt: skip
_COLUMNS = "id, shared, " + ", ".join(_FIELDS)
_INSERT = insert_returning_id("puzzle_attempts", _FIELDS)
_SELECT = f"SELECT {_COLUMNS} FROM puzzle_attempts"


def _params(attempt: Attempt) -> dict[str, Any]:
    params: dict[str, Any] = {name: getattr(attempt, name) for name in _FIELDS if name != "ply"}
    params["moves"] = ",".join(str(c) for c in attempt.moves)
    params["ply"] = attempt.ply
    return params


def _attempt(row: Row) -> Attempt:
    moves = row["moves"]
    return Attempt(
        id=row["id"], user_id=row["user_id"], puzzle_id=row["puzzle_id"], kind=row["kind"],
        mode=row["mode"], position=row["position"], to_move=row["to_move"], n=row["n"],
        rated=bool(row["rated"]), started_at=row["started_at"], guild_id=row["guild_id"],
        daily=row["daily"], moves=tuple(int(c) for c in moves.split(",")) if moves else (),
        status=row["status"], outcome=row["outcome"], finished_at=row["finished_at"],
        rating_before=row["rating_before"], rating_after=row["rating_after"],
        retry_of=row["retry_of"], shared=bool(row["shared"]),
    )  # fmt: skip


async def insert_attempt(db: Db, attempt: Attempt) -> Attempt:
    """Raises: Conflict: the member has an open attempt (the partial unique index)."""
    try:
        async with db.atomic():  # a savepoint: a refused row leaves a transaction usable
            new_id = await db.value(_INSERT, _params(attempt))
    except db.dialect.integrity_errors:
        raise Conflict(f"member {attempt.user_id} has an open puzzle attempt") from None
    return replace(attempt, id=int(new_id))


async def get_attempt(db: Db, attempt_id: int) -> Attempt | None:
    row = await db.row(f"{_SELECT} WHERE id = :id", {"id": attempt_id})
    return None if row is None else _attempt(row)


async def open_attempt(db: Db, user_id: int) -> Attempt | None:
    row = await db.row(f"{_SELECT} WHERE user_id = :user AND status = 'open'", {"user": user_id})
    return None if row is None else _attempt(row)


async def latest_attempt(db: Db, user_id: int, puzzle_id: str) -> Attempt | None:
    row = await db.row(
        f"{_SELECT} WHERE user_id = :user AND puzzle_id = :puzzle ORDER BY id DESC LIMIT 1",
        {"user": user_id, "puzzle": puzzle_id},
    )
    return None if row is None else _attempt(row)


async def tried_puzzles(db: Db, user_id: int) -> set[str]:
    rows = await db.rows(
        "SELECT DISTINCT puzzle_id FROM puzzle_attempts WHERE user_id = :user", {"user": user_id}
    )
    return {str(row["puzzle_id"]) for row in rows}


_IF_UNCHANGED = " WHERE id = :id AND status = 'open' AND ply = :expected_ply"
_END_ATTEMPT = (
    "UPDATE puzzle_attempts SET moves = :moves, ply = :ply, status = :status, rated = :rated,"
    " outcome = :outcome, finished_at = :finished_at, rating_before = :rating_before,"
    f" rating_after = :rating_after{_IF_UNCHANGED}"
)
_MOVE_ATTEMPT = (
    f"UPDATE puzzle_attempts SET moves = :moves, ply = :ply, outcome = :outcome{_IF_UNCHANGED}"
)
""":data:`_END_ATTEMPT` for an attempt that goes on: an open attempt changes none of what
it leaves out, and SQLite rewrites the entries of every index whose columns (or partial
condition: ``status``, ``rated``) a statement sets, as a game's move spares them."""


async def save_attempt(db: Db, attempt: Attempt, expected_ply: int) -> None:
    """The compare-and-set: on PostgreSQL the UPDATE locks the row, and a writer that
    waited for another re-reads it, finds it moved on, and changes nothing."""
    changed = await db.run(
        _MOVE_ATTEMPT if attempt.status == "open" else _END_ATTEMPT,
        {**_params(attempt), "id": attempt.id, "expected_ply": expected_ply},
    )
    if changed != 1:
        raise Conflict(f"puzzle attempt {attempt.id} changed before this write")


async def drop_attempt(db: Db, attempt_id: int) -> bool:
    dropped = await db.run(
        "DELETE FROM puzzle_attempts WHERE id = :id AND status = 'open'", {"id": attempt_id}
    )
    return dropped == 1


async def mark_shared(db: Db, attempt_id: int) -> bool:
    marked = await db.run(
        "UPDATE puzzle_attempts SET shared = TRUE WHERE id = :id AND status != 'open'"
        " AND NOT shared",
        {"id": attempt_id},
    )
    return marked == 1


_PLAYER = (
    "SELECT user_id, rating, deviation, volatility, solved, tried, rated_at FROM puzzle_players"
)


def _player(row: Row) -> PuzzlePlayer:
    rating = PuzzleRating(row["rating"], row["deviation"], row["volatility"])
    return PuzzlePlayer(
        row["user_id"], rating, solved=row["solved"], tried=row["tried"],
        rated_at=row["rated_at"],
    )  # fmt: skip


async def get_player(db: Db, user_id: int) -> PuzzlePlayer | None:
    row = await db.row(f"{_PLAYER} WHERE user_id = :user", {"user": user_id})
    return None if row is None else _player(row)


_UPSERT_PLAYER = (
    "INSERT INTO puzzle_players AS p (user_id, rating, deviation, volatility, solved, tried)"
    " VALUES (:user, :r, :d, :v, :solved, :tried) ON CONFLICT (user_id) DO UPDATE"
    " SET solved = p.solved + :solved, tried = p.tried + :tried"
    " RETURNING user_id, rating, deviation, volatility, solved, tried, rated_at"
)
"""One statement: the member's row, created at the start rating if new, its counts raised
by ``:solved`` and ``:tried``, locked (an upsert that updates locks the row as an UPDATE
does on PostgreSQL) and returned as it now stands."""


async def lock_player(db: Db, user_id: int, start: PuzzleRating) -> PuzzlePlayer:
    return await count_player(db, user_id, start, 0, 0)


async def count_player(
    db: Db, user_id: int, start: PuzzleRating, solved: int, tried: int
) -> PuzzlePlayer:
    """The member's record with ``solved`` and ``tried`` added (created at ``start``),
    held until the transaction ends."""
    params = {"user": user_id, "r": start.rating, "d": start.deviation, "v": start.volatility,
              "solved": solved, "tried": tried}  # fmt: skip
    row = await db.row(_UPSERT_PLAYER, params)
    assert row is not None  # inserted just now, or updated
    return _player(row)


async def save_player(db: Db, player: PuzzlePlayer) -> None:
    r = player.rating
    await db.run(
        "UPDATE puzzle_players SET rating = :r, deviation = :d, volatility = :v,"
        " solved = :solved, tried = :tried, rated_at = :rated_at WHERE user_id = :user",
        {"user": player.user_id, "r": r.rating, "d": r.deviation, "v": r.volatility,
         "solved": player.solved, "tried": player.tried, "rated_at": player.rated_at},
    )  # fmt: skip


async def lock_rating(db: Db, puzzle_id: str, start: PuzzleRating) -> PuzzleRating:
    params = {"id": puzzle_id, "r": start.rating, "d": start.deviation, "v": start.volatility}
    await db.run(
        "INSERT INTO puzzle_ratings (puzzle_id, rating, deviation, volatility)"
        " VALUES (:id, :r, :d, :v) ON CONFLICT (puzzle_id) DO NOTHING",
        params,
    )
    row = await db.row(
        "SELECT rating, deviation, volatility FROM puzzle_ratings"
        f" WHERE puzzle_id = :id{db.dialect.for_update}",
        params,
    )
    assert row is not None
    return PuzzleRating(row["rating"], row["deviation"], row["volatility"])


async def save_rating(db: Db, puzzle_id: str, rating: PuzzleRating) -> None:
    await db.run(
        "UPDATE puzzle_ratings SET rating = :r, deviation = :d, volatility = :v"
        " WHERE puzzle_id = :id",
        {"id": puzzle_id, "r": rating.rating, "d": rating.deviation, "v": rating.volatility},
    )


async def ratings(db: Db) -> dict[str, float]:
    rows = await db.rows("SELECT puzzle_id, rating FROM puzzle_ratings")
    return {str(row["puzzle_id"]): float(row["rating"]) for row in rows}


async def solved_dailies(db: Db, user_id: int, up_to: int | None = None) -> list[tuple[int, float]]:
    rows = await db.rows(
        "SELECT daily, started_at FROM puzzle_attempts WHERE user_id = :user"
        " AND status = 'solved' AND daily IS NOT NULL"
        + ("" if up_to is None else " AND id <= :up_to"),
        {"user": user_id, "up_to": up_to} if up_to is not None else {"user": user_id},
    )
    return [(int(row["daily"]), float(row["started_at"])) for row in rows]


_RANKED = (
    "user_id IN (SELECT user_id FROM puzzle_attempts WHERE guild_id = :guild AND rated"
    " AND status != 'open')"
)
_ESTABLISHED = (
    "deviation * deviation + :growth * volatility * volatility"
    " * (CASE WHEN rated_at < :now THEN :now - rated_at ELSE 0 END) <= :max2"
)
"""The core's provisional rule (:func:`bot.core.puzzles.glicko2.away`, squared) with its
figures as parameters: the deviation grown for the time away, at most the threshold."""


async def leaderboard(
    db: Db, guild_id: int, limit: int, now: float, growth: float, max_deviation: float
) -> PuzzleBoard:
    params = {"guild": guild_id, "limit": limit, "now": now, "growth": growth,
              "max2": max_deviation * max_deviation}  # fmt: skip
    rows = await db.rows(
        f"SELECT user_id, rating, solved, tried FROM puzzle_players WHERE {_RANKED}"
        f" AND {_ESTABLISHED} ORDER BY rating DESC, user_id LIMIT :limit",
        params,
    )
    provisional = await db.value(
        f"SELECT COUNT(*) FROM puzzle_players WHERE {_RANKED} AND NOT ({_ESTABLISHED})", params
    )
    standings = tuple(
        PuzzleStanding(row["user_id"], float(row["rating"]), row["solved"], row["tried"])
        for row in rows
    )
    return PuzzleBoard(standings, int(provisional))


async def recent_classic_games(db: Db, user_id: int, limit: int) -> list[Game]:
    member = (
        "((player_x = :user AND bot_side IS DISTINCT FROM 'X')"
        " OR (player_o = :user AND bot_side IS DISTINCT FROM 'O'))"
    )
    where = (
        f"WHERE status = 'finished' AND variant = 'classic' AND {member}"
        f" ORDER BY finished_at DESC, id DESC LIMIT {int(limit)}"
    )
    return await games_where(db, where, {"user": user_id})
