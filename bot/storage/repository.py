"""The SQLite repository for games, challenges and bot state.

One connection, in WAL mode, used only from a dedicated thread so database I/O never
runs on the event loop. Schema changes are numbered migrations applied at start-up.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any, TypeVar

from bot.models import Challenge, Game
from bot.storage.migrations import MIGRATIONS
from bot.storage.records import RecordQueries, apply_result
from bot.storage.transactions import transaction

T = TypeVar("T")

# Columns are the record fields, in order: a row maps straight onto the dataclass.
_GAME_FIELDS = tuple(f.name for f in fields(Game))
_CHALLENGE_FIELDS = tuple(f.name for f in fields(Challenge))
_GAME_COLUMNS = ", ".join(_GAME_FIELDS)
_CHALLENGE_COLUMNS = ", ".join(_CHALLENGE_FIELDS)


def _insert_sql(table: str, columns: list[str]) -> str:
    names = ", ".join(columns)
    return f"INSERT INTO {table} ({names}) VALUES ({', '.join(':' + c for c in columns)})"


_INSERT_GAME = _insert_sql("games", [*_GAME_FIELDS[1:], "ply"])
_INSERT_CHALLENGE = _insert_sql("challenges", list(_CHALLENGE_FIELDS[1:]))


class DatabaseError(Exception):
    """The database cannot be opened or used; the message names the path."""


class Conflict(Exception):
    """A write lost a race (the row changed since it was read); nothing was written."""


def _game(row: tuple[Any, ...]) -> Game:
    values = list(row)
    values[10] = tuple(int(c) for c in values[10].split(",")) if values[10] else ()
    return Game(*values)


def _challenge(row: tuple[Any, ...]) -> Challenge:
    return Challenge(*row)


class GameRepository(RecordQueries):
    """Async access to the SQLite file at ``path``; every call runs on the DB thread."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ttt-db")
        self._conn: sqlite3.Connection | None = None

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, fn, *args)

    # --- lifecycle ----------------------------------------------------------------------

    async def open(self) -> None:
        """Open the file, switch to WAL and apply pending migrations.

        Raises:
            DatabaseError: the path cannot be opened or is not a SQLite database.
        """
        await self._run(self._open)

    def _open(self) -> None:
        path = Path(self.path)
        if self.path != ":memory:" and not path.parent.is_dir():
            raise DatabaseError(
                f"cannot open database {self.path}: folder {path.parent} does not exist"
            )
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise DatabaseError(f"cannot open database {self.path}: {exc}") from None
        try:
            conn.execute("PRAGMA busy_timeout = 5000")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            # Migrations that rebuild a table need foreign keys off; a check after them
            # proves nothing was left dangling.
            conn.execute("PRAGMA foreign_keys = OFF")
            self._migrate(conn)
            problems = conn.execute("PRAGMA foreign_key_check").fetchall()
            if problems:
                raise sqlite3.DatabaseError(f"broken references after migrating: {problems}")
            conn.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as exc:
            conn.close()
            raise DatabaseError(f"cannot use database {self.path}: {exc}") from None
        self._conn = conn

    @staticmethod
    def _migrate(conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > len(MIGRATIONS):
            raise sqlite3.DatabaseError(
                f"schema version {version} is newer than this bot knows ({len(MIGRATIONS)})"
            )
        for number in range(version + 1, len(MIGRATIONS) + 1):
            with transaction(conn):
                for statement in MIGRATIONS[number - 1].split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {number}")

    async def close(self) -> None:
        if self._conn is not None:
            await self._run(self._conn.close)
            self._conn = None
        self._executor.shutdown(wait=True)

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise DatabaseError(f"database {self.path} is not open")
        return self._conn

    async def schema_version(self) -> int:
        return await self._run(lambda: self.conn.execute("PRAGMA user_version").fetchone()[0])

    # --- per-server settings ------------------------------------------------------------

    async def guild_overrides(self, guild_id: int) -> dict[str, object]:
        def run() -> dict[str, object]:
            row = self.conn.execute(
                "SELECT overrides FROM guild_settings WHERE guild_id = ?", (guild_id,)
            ).fetchone()
            return json.loads(row[0]) if row else {}

        return await self._run(run)

    async def set_guild_overrides(self, guild_id: int, overrides: dict[str, object]) -> None:
        await self._run(
            lambda: self.conn.execute(
                "INSERT INTO guild_settings (guild_id, overrides) VALUES (?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET overrides = excluded.overrides",
                (guild_id, json.dumps(overrides, sort_keys=True)),
            )
        )

    # --- meta ---------------------------------------------------------------------------

    async def get_meta(self, key: str) -> str | None:
        def run() -> str | None:
            row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
            return row[0] if row else None

        return await self._run(run)

    async def set_meta(self, key: str, value: str) -> None:
        await self._run(
            lambda: self.conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )
        )

    # --- games --------------------------------------------------------------------------

    async def create_game(self, game: Game) -> Game:
        """Insert ``game`` (its id is ignored) and return it with its new id. How many
        games a channel may hold is the service's rule (a server setting), not the
        schema's."""
        return await self._run(_insert_game, self.conn, game)

    async def import_finished_games(self, games: list[Game]) -> None:
        """Store already-finished games (and fold them into the records) in one
        transaction: for imports and benchmarks, not for games being played."""

        def run() -> None:
            with transaction(self.conn) as conn:
                for game in games:
                    if game.status != "finished":
                        raise ValueError(f"game {game.id} is still running")
                    _insert_game(conn, game)

        await self._run(run)

    async def get_game(self, game_id: int) -> Game | None:
        return await self._run(self._one_game, "WHERE id = ?", (game_id,))

    async def running_games_in(self, channel_id: int) -> list[Game]:
        return await self._run(
            self._games_where, "WHERE channel_id = ? AND status = 'running' ORDER BY id",
            (channel_id,),
        )  # fmt: skip

    async def running_game_of(self, guild_id: int | None, user_id: int) -> Game | None:
        """A member's running game in a server, if any (the bot's own id is no member)."""
        games = await self._run(
            self._games_where,
            "WHERE status = 'running' AND guild_id IS :g AND ((player_x = :u AND"
            " bot_side IS NOT 'X') OR (player_o = :u AND bot_side IS NOT 'O'))",
            {"g": guild_id, "u": user_id},
        )
        return games[0] if games else None

    async def last_start(self, guild_id: int | None, user_id: int) -> float | None:
        """When the member last started something: a challenge, or a game against the bot."""

        def run() -> float | None:
            row = self.conn.execute(
                "SELECT MAX(t) FROM (SELECT MAX(created_at) AS t FROM challenges"
                " WHERE challenger_id = :u AND guild_id IS :g UNION ALL"
                " SELECT MAX(created_at) FROM games WHERE guild_id IS :g AND bot_side IS NOT NULL"
                " AND (player_x = :u OR player_o = :u))",
                {"g": guild_id, "u": user_id},
            ).fetchone()
            return row[0]

        return await self._run(run)

    def _one_game(self, where: str, params: tuple[Any, ...]) -> Game | None:
        row = self.conn.execute(f"SELECT {_GAME_COLUMNS} FROM games {where}", params).fetchone()
        return _game(row) if row else None

    async def save_game(self, game: Game, expected_ply: int) -> None:
        """Store a changed running game: moves, status, result, deadline, message.

        Raises:
            Conflict: the stored game is no longer running at ``expected_ply``.
        """

        def run() -> None:
            with transaction(self.conn) as conn:
                cursor = conn.execute(
                    "UPDATE games SET message_id = :message_id, moves = :moves, ply = :ply,"
                    " status = :status, result = :result, end_reason = :end_reason,"
                    " turn_deadline = :turn_deadline, updated_at = :updated_at,"
                    " finished_at = :finished_at"
                    " WHERE id = :id AND status = 'running' AND ply = :expected_ply",
                    {**_game_params(game), "expected_ply": expected_ply},
                )
                if cursor.rowcount != 1:
                    raise Conflict(f"game {game.id} changed before this write")
                if game.status == "finished":  # the game and its records change together
                    apply_result(conn, game)

        await self._run(run)

    async def set_game_message(self, game_id: int, message_id: int) -> None:
        await self._run(
            lambda: self.conn.execute(
                "UPDATE games SET message_id = ? WHERE id = ?", (message_id, game_id)
            )
        )

    def _games_where(self, where: str, params: Any = ()) -> list[Game]:
        rows = self.conn.execute(f"SELECT {_GAME_COLUMNS} FROM games {where}", params).fetchall()
        return [_game(row) for row in rows]

    async def running_games(self) -> list[Game]:
        return await self._run(self._games_where, "WHERE status = 'running'")

    async def games_due(self, now: float) -> list[Game]:
        """Running games whose turn deadline has passed."""
        return await self._run(
            self._games_where,
            "WHERE status = 'running' AND turn_deadline <= ? ORDER BY turn_deadline",
            (now,),
        )

    async def next_deadline(self) -> float | None:
        """The soonest turn deadline or challenge expiry still pending."""

        def run() -> float | None:
            row = self.conn.execute(
                "SELECT MIN(t) FROM ("
                " SELECT MIN(turn_deadline) AS t FROM games WHERE status = 'running'"
                " UNION ALL SELECT MIN(expires_at) FROM challenges WHERE status = 'pending')"
            ).fetchone()
            return row[0]

        return await self._run(run)

    # --- challenges ---------------------------------------------------------------------

    async def create_challenge(self, challenge: Challenge) -> Challenge:
        """Insert ``challenge`` and return it with its id.

        Raises:
            Conflict: the channel already has a pending challenge.
        """

        def run() -> Challenge:
            try:
                cursor = self.conn.execute(_INSERT_CHALLENGE, asdict(challenge))
            except sqlite3.IntegrityError as exc:
                raise Conflict(str(exc)) from None
            return challenge.with_changes(id=cursor.lastrowid)

        return await self._run(run)

    async def get_challenge(self, challenge_id: int) -> Challenge | None:
        return await self._run(self._one_challenge, "WHERE id = ?", (challenge_id,))

    async def pending_challenge_in(self, channel_id: int) -> Challenge | None:
        return await self._run(
            self._one_challenge, "WHERE channel_id = ? AND status = 'pending'", (channel_id,)
        )

    def _one_challenge(self, where: str, params: tuple[Any, ...]) -> Challenge | None:
        row = self.conn.execute(
            f"SELECT {_CHALLENGE_COLUMNS} FROM challenges {where}", params
        ).fetchone()
        return _challenge(row) if row else None

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        await self._run(
            lambda: self.conn.execute(
                "UPDATE challenges SET message_id = ? WHERE id = ?", (message_id, challenge_id)
            )
        )

    async def close_challenge(self, challenge: Challenge, status: str) -> None:
        """Move a pending challenge to ``status`` (declined or expired).

        Raises:
            Conflict: it was no longer pending.
        """
        await self._run(self._close_challenge, challenge.id, status, None)

    def _close_challenge(self, challenge_id: int, status: str, game_id: int | None) -> None:
        cursor = self.conn.execute(
            "UPDATE challenges SET status = ?, game_id = ? WHERE id = ? AND status = 'pending'",
            (status, game_id, challenge_id),
        )
        if cursor.rowcount != 1:
            raise Conflict(f"challenge {challenge_id} is no longer pending")

    async def accept_challenge(self, challenge: Challenge, game: Game) -> Game:
        """Atomically mark the challenge accepted and create its game.

        Raises:
            Conflict: the challenge was no longer pending.
        """

        def run() -> Game:
            try:
                with transaction(self.conn) as conn:
                    created = _insert_game(conn, game)
                    self._close_challenge(challenge.id, "accepted", created.id)
            except sqlite3.IntegrityError as exc:
                raise Conflict(str(exc)) from None
            return created

        return await self._run(run)

    async def challenges_due(self, now: float) -> list[Challenge]:
        def run() -> list[Challenge]:
            rows = self.conn.execute(
                f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE status = 'pending'"
                " AND expires_at <= ? ORDER BY expires_at",
                (now,),
            ).fetchall()
            return [_challenge(row) for row in rows]

        return await self._run(run)


def _insert_game(conn: sqlite3.Connection, game: Game) -> Game:
    cursor = conn.execute(_INSERT_GAME, _game_params(game))
    game = game.with_changes(id=cursor.lastrowid)
    if game.status == "finished":  # an imported record, not a new game
        apply_result(conn, game)
    return game


def _game_params(game: Game) -> dict[str, Any]:
    params = asdict(game)
    params["moves"] = ",".join(str(c) for c in game.moves)
    params["ply"] = game.ply
    return params
