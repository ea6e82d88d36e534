"""SQL for games, challenges, server settings and bot state: plain functions over a
connection, called on the database thread by :mod:`bot.storage.sqlite`."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict, fields
from typing import Any

from bot.core.models import Challenge, Game, Outcome
from bot.core.repository import Conflict
from bot.storage.sqlite_records import apply_result, finished_games_where
from bot.storage.transactions import transaction

GAME_COLUMNS = (
    "id, guild_id, channel_id, message_id, size, k, player_x, player_o, bot_side, difficulty,"
    " moves, turn_deadline, created_at, updated_at, finished_at, rematch_of, end_reason, result,"
    " locale, hinted, ping_message_id, stopped_by"
)
_CHALLENGE_FIELDS = tuple(f.name for f in fields(Challenge))
_CHALLENGE_COLUMNS = ", ".join(_CHALLENGE_FIELDS)
_INSERT_GAME = (
    "INSERT INTO games (guild_id, channel_id, message_id, size, k, player_x, player_o,"
    " bot_side, difficulty, moves, ply, status, result, end_reason, turn_deadline,"
    " created_at, updated_at, finished_at, rematch_of, locale, hinted, ping_message_id,"
    " stopped_by) VALUES (:guild_id, :channel_id, :message_id, :size, :k, :player_x,"
    " :player_o, :bot_side, :difficulty, :moves, :ply, :status, :result, :end_reason,"
    " :turn_deadline, :created_at, :updated_at, :finished_at, :rematch_of, :locale, :hinted,"
    " :ping_message_id, :stopped_by)"
)
_INSERT_CHALLENGE = (
    f"INSERT INTO challenges ({', '.join(_CHALLENGE_FIELDS[1:])})"
    f" VALUES ({', '.join(':' + c for c in _CHALLENGE_FIELDS[1:])})"
)


def game_from_row(row: tuple[Any, ...]) -> Game:
    (
        game_id,
        guild_id,
        channel_id,
        message_id,
        size,
        k,
        player_x,
        player_o,
        bot_side,
        difficulty,
        moves,
        deadline,
        created,
        updated,
        finished,
        rematch_of,
        reason,
        result,
        locale,
        hinted,
        ping_message_id,
        stopped_by,
    ) = row
    winner = result if result in ("X", "O") else None
    return Game(
        id=game_id, guild_id=guild_id, channel_id=channel_id, message_id=message_id,
        size=size, k=k, player_x=player_x, player_o=player_o, bot_side=bot_side,
        difficulty=difficulty,
        moves=tuple(int(c) for c in moves.split(",")) if moves else (),
        turn_deadline=deadline, created_at=created, updated_at=updated,
        outcome=None if reason is None else Outcome(reason, winner),
        finished_at=finished, rematch_of=rematch_of, locale=locale, hinted=bool(hinted),
        ping_message_id=ping_message_id, stopped_by=stopped_by,
    )  # fmt: skip


def game_params(game: Game) -> dict[str, Any]:
    params = {f.name: getattr(game, f.name) for f in fields(Game) if f.name != "outcome"}
    params["moves"] = ",".join(str(c) for c in game.moves)
    params["ply"] = game.ply
    params["status"] = "running" if game.running else "finished"
    params["end_reason"] = game.outcome.reason if game.outcome else None
    params["result"] = game.outcome.result if game.outcome else None
    return params


def games_where(conn: sqlite3.Connection, where: str, params: Any = ()) -> list[Game]:
    rows = conn.execute(f"SELECT {GAME_COLUMNS} FROM games {where}", params).fetchall()
    return [game_from_row(row) for row in rows]


def finished_games_of(
    conn: sqlite3.Connection, guild_id: int | None, user_id: int, limit: int | None
) -> list[Game]:
    """A member's finished games in a server (None: in direct messages), newest first."""
    where, params = finished_games_where(guild_id, user_id, limit)
    return games_where(conn, where, params)


def insert_game(conn: sqlite3.Connection, game: Game) -> Game:
    with transaction(conn):
        cursor = conn.execute(_INSERT_GAME, game_params(game))
        game = game.with_changes(id=cursor.lastrowid)
        if not game.running:  # an imported record, not a new game
            apply_result(conn, game)
    return game


def import_finished_games(conn: sqlite3.Connection, games: list[Game]) -> None:
    with transaction(conn):
        for game in games:
            if game.running:
                raise ValueError(f"game {game.id} is still running")
            insert_game(conn, game)


def get_game(conn: sqlite3.Connection, game_id: int) -> Game | None:
    games = games_where(conn, "WHERE id = ?", (game_id,))
    return games[0] if games else None


def save_game(conn: sqlite3.Connection, game: Game, expected_ply: int) -> Game:
    """Store the changed game (compare-and-set on the ply) and return it with what others
    may have changed since it was read: a hint marked, a board posted again, a turn ping
    sent. The message
    id is never written here, only by :func:`move_game_message` and the like."""
    with transaction(conn):
        cursor = conn.execute(
            "UPDATE games SET moves = :moves, ply = :ply,"
            " status = :status, result = :result, end_reason = :end_reason,"
            " turn_deadline = :turn_deadline, updated_at = :updated_at,"
            " finished_at = :finished_at, stopped_by = :stopped_by"
            " WHERE id = :id AND status = 'running' AND ply = :expected_ply",
            {**game_params(game), "expected_ply": expected_ply},
        )
        if cursor.rowcount != 1:
            raise Conflict(f"game {game.id} changed before this write")
        hinted, message_id, ping_id = conn.execute(
            "SELECT hinted, message_id, ping_message_id FROM games WHERE id = ?", (game.id,)
        ).fetchone()
        stored = game.with_changes(
            hinted=bool(hinted), message_id=message_id, ping_message_id=ping_id
        )
        if not game.running:  # the game and its records change together
            apply_result(conn, stored)
    return stored


def mark_hinted(conn: sqlite3.Connection, game_id: int, expected_ply: int) -> None:
    cursor = conn.execute(
        "UPDATE games SET hinted = 1 WHERE id = ? AND status = 'running' AND ply = ?",
        (game_id, expected_ply),
    )
    if cursor.rowcount != 1:
        raise Conflict(f"game {game_id} changed before its hint was marked")


def set_game_message(conn: sqlite3.Connection, game_id: int, message_id: int) -> None:
    conn.execute("UPDATE games SET message_id = ? WHERE id = ?", (message_id, game_id))


def move_game_message(conn: sqlite3.Connection, game_id: int, old: int | None, new: int) -> bool:
    cursor = conn.execute(
        "UPDATE games SET message_id = ? WHERE id = ? AND status = 'running' AND message_id IS ?",
        (new, game_id, old),
    )
    return cursor.rowcount == 1


def set_ping_message(conn: sqlite3.Connection, game_id: int, ply: int, message_id: int) -> bool:
    cursor = conn.execute(
        "UPDATE games SET ping_message_id = ? WHERE id = ? AND status = 'running' AND ply = ?",
        (message_id, game_id, ply),
    )
    return cursor.rowcount == 1


def take_ping_message(conn: sqlite3.Connection, game_id: int) -> int | None:
    with transaction(conn):
        row = conn.execute("SELECT ping_message_id FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None or row[0] is None:
            return None
        conn.execute("UPDATE games SET ping_message_id = NULL WHERE id = ?", (game_id,))
        return int(row[0])


def running_games(conn: sqlite3.Connection) -> list[Game]:
    return games_where(conn, "WHERE status = 'running' ORDER BY id")


def running_games_in(conn: sqlite3.Connection, channel_id: int) -> list[Game]:
    return games_where(conn, "WHERE channel_id = ? AND status = 'running' ORDER BY id",
                       (channel_id,))  # fmt: skip


def running_game_of(conn: sqlite3.Connection, guild_id: int | None, user_id: int) -> Game | None:
    games = games_where(
        conn,
        "WHERE status = 'running' AND guild_id IS :g AND ((player_x = :u AND"
        " bot_side IS NOT 'X') OR (player_o = :u AND bot_side IS NOT 'O')) ORDER BY id",
        {"g": guild_id, "u": user_id},
    )
    return games[0] if games else None


def last_start(conn: sqlite3.Connection, guild_id: int | None, user_id: int) -> float | None:
    row = conn.execute(
        "SELECT MAX(t) FROM (SELECT MAX(created_at) AS t FROM challenges"
        " WHERE challenger_id = :u AND guild_id IS :g UNION ALL"
        " SELECT MAX(created_at) FROM games WHERE guild_id IS :g AND bot_side IS NOT NULL"
        " AND (player_x = :u OR player_o = :u))",
        {"g": guild_id, "u": user_id},
    ).fetchone()
    return row[0]


def games_due(conn: sqlite3.Connection, now: float) -> list[Game]:
    return games_where(
        conn, "WHERE status = 'running' AND turn_deadline <= ? ORDER BY turn_deadline", (now,)
    )


def next_deadline(conn: sqlite3.Connection) -> float | None:
    row = conn.execute(
        "SELECT MIN(t) FROM ("
        " SELECT MIN(turn_deadline) AS t FROM games WHERE status = 'running'"
        " UNION ALL SELECT MIN(expires_at) FROM challenges WHERE status = 'pending')"
    ).fetchone()
    return row[0]


# --- challenges ---------------------------------------------------------------------------


def _challenges_where(conn: sqlite3.Connection, where: str, params: Any) -> list[Challenge]:
    rows = conn.execute(f"SELECT {_CHALLENGE_COLUMNS} FROM challenges {where}", params)
    return [Challenge(*row) for row in rows.fetchall()]


def create_challenge(conn: sqlite3.Connection, challenge: Challenge) -> Challenge:
    try:
        cursor = conn.execute(_INSERT_CHALLENGE, asdict(challenge))
    except sqlite3.IntegrityError as exc:
        raise Conflict(str(exc)) from None
    return challenge.with_changes(id=cursor.lastrowid)


def get_challenge(conn: sqlite3.Connection, challenge_id: int) -> Challenge | None:
    found = _challenges_where(conn, "WHERE id = ?", (challenge_id,))
    return found[0] if found else None


def pending_challenge_in(conn: sqlite3.Connection, channel_id: int) -> Challenge | None:
    found = _challenges_where(conn, "WHERE channel_id = ? AND status = 'pending'", (channel_id,))
    return found[0] if found else None


def set_challenge_message(conn: sqlite3.Connection, challenge_id: int, message_id: int) -> None:
    conn.execute("UPDATE challenges SET message_id = ? WHERE id = ?", (message_id, challenge_id))


def close_challenge(
    conn: sqlite3.Connection, challenge: Challenge, status: str, game_id: int | None = None
) -> None:
    cursor = conn.execute(
        "UPDATE challenges SET status = ?, game_id = ? WHERE id = ? AND status = 'pending'",
        (status, game_id, challenge.id),
    )
    if cursor.rowcount != 1:
        raise Conflict(f"challenge {challenge.id} is no longer pending")


def accept_challenge(conn: sqlite3.Connection, challenge: Challenge, game: Game) -> Game:
    try:
        with transaction(conn):
            created = insert_game(conn, game)
            close_challenge(conn, challenge, "accepted", created.id)
    except sqlite3.IntegrityError as exc:
        raise Conflict(str(exc)) from None
    return created


def challenges_due(conn: sqlite3.Connection, now: float) -> list[Challenge]:
    return _challenges_where(
        conn, "WHERE status = 'pending' AND expires_at <= ? ORDER BY expires_at", (now,)
    )


# --- server settings and bot state ----------------------------------------------------------


def guild_overrides(conn: sqlite3.Connection, guild_id: int) -> dict[str, object]:
    row = conn.execute(
        "SELECT overrides FROM guild_settings WHERE guild_id = ?", (guild_id,)
    ).fetchone()
    return dict(json.loads(row[0])) if row else {}


def set_guild_overrides(
    conn: sqlite3.Connection, guild_id: int, overrides: dict[str, object]
) -> None:
    conn.execute(
        "INSERT INTO guild_settings (guild_id, overrides) VALUES (?, ?)"
        " ON CONFLICT (guild_id) DO UPDATE SET overrides = excluded.overrides",
        (guild_id, json.dumps(overrides, sort_keys=True)),
    )


def get_meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?)"
        " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )
