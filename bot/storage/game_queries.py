"""SQL for games and their deadlines, written once for SQLite and PostgreSQL (see
:mod:`bot.storage.sql`). A query that writes more than one row runs in ``db.atomic()``:
its own transaction, or a savepoint of the unit of work it is part of."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from operator import attrgetter
from typing import Any

from bot.core.models import Ending, Game
from bot.core.reminders.models import due_for
from bot.core.repository import Conflict
from bot.storage import outbox_rows
from bot.storage.postgres_locks import lock_key
from bot.storage.record_queries import apply_result, count_bot_game, finished_games_where
from bot.storage.sql import Db, Params, Row, insert_returning_id

_GAME_FIELDS = (
    "guild_id", "channel_id", "message_id", "size", "k", "player_x", "player_o", "bot_side",
    "difficulty", "moves", "ply", "status", "result", "end_reason", "turn_deadline",
    "created_at", "updated_at", "finished_at", "rematch_of", "locale", "hinted",
    "ping_message_id", "stopped_by", "guest", "tournament_match_id", "variant",
    "days_per_move", "extra_time_ply", "draw_offer_by", "draw_offer_until", "remind",
)  # fmt: skip
GAME_COLUMNS = "id, " + ", ".join(_GAME_FIELDS)
_INSERT_GAME = insert_returning_id("games", _GAME_FIELDS)
_LIVE = "days_per_move IS NULL"
_PLAYING_HERE = (
    "(SELECT COUNT(*) FROM games WHERE channel_id = :channel_id AND status = 'running'"
    f" AND {_LIVE})"
)
_WAITING_HERE = (
    "(SELECT COUNT(*) FROM challenges WHERE channel_id = :channel_id AND status = 'pending'"
    f" AND {_LIVE})"
)
"""A channel's running live games and pending live challenges: what the start rules
count. A correspondence game or challenge waits days, mostly idle: it holds no channel
(TTT_CORRESPONDENCE_GAMES_PER_MEMBER bounds them instead)."""
_ROOM_HERE = f"{_PLAYING_HERE} < :room AND {_WAITING_HERE} = 0"
_INSERT_GAME_IF_ROOM = insert_returning_id("games", _GAME_FIELDS, where=_ROOM_HERE)
_INSERT_GAME_AFTER_LOCKS = insert_returning_id(
    "games", _GAME_FIELDS, where="ttt_room_after_locks(:locks, :channel_id, :room)"
)
ROOM_AFTER_LOCKS = (
    "CREATE OR REPLACE FUNCTION ttt_room_after_locks(BIGINT[], BIGINT, BIGINT)"
    " RETURNS BOOLEAN LANGUAGE plpgsql VOLATILE AS $$ BEGIN"
    " PERFORM pg_advisory_xact_lock(key) FROM unnest($1) AS key;"
    f" RETURN {_ROOM_HERE.replace(':channel_id', '$2').replace(':room', '$3')}; END $$"
)
"""PostgreSQL: take the advisory locks ($1), then say whether the channel ($2) has room
for one more game (fewer than $3 running, no challenge pending). A VOLATILE function's
queries each take a snapshot of their own, after the locks: they see every start that
held the locks before, which a condition in the INSERT itself would not (its snapshot
is taken when the statement begins, before it waits). Installed on every open, from the
same SQL as SQLite's condition, by :func:`~bot.storage.postgres_migrations.migrate`."""
_MEMBER_OF = (  # a member's side of a game; in a bot game the bot's side is never theirs
    "((player_x = :user AND bot_side IS DISTINCT FROM 'X')"
    " OR (player_o = :user AND bot_side IS DISTINCT FROM 'O'))"
)


def game_from_row(row: Row) -> Game:
    reason, result = row["end_reason"], row["result"]
    moves = row["moves"]
    return Game(
        id=row["id"], guild_id=row["guild_id"], channel_id=row["channel_id"],
        message_id=row["message_id"], size=row["size"], k=row["k"],
        player_x=row["player_x"], player_o=row["player_o"], bot_side=row["bot_side"],
        difficulty=row["difficulty"],
        moves=tuple(int(c) for c in moves.split(",")) if moves else (),
        turn_deadline=row["turn_deadline"], created_at=row["created_at"],
        updated_at=row["updated_at"],
        ending=None if reason is None else Ending(reason, result if result in ("X", "O") else None),
        finished_at=row["finished_at"], rematch_of=row["rematch_of"], locale=row["locale"],
        hinted=bool(row["hinted"]), ping_message_id=row["ping_message_id"],
        stopped_by=row["stopped_by"], guest=bool(row["guest"]),
        tournament_match_id=row["tournament_match_id"], variant=row["variant"],
        days_per_move=row["days_per_move"], extra_time_ply=row["extra_time_ply"],
        draw_offer_by=row["draw_offer_by"], draw_offer_until=row["draw_offer_until"],
        remind=row["remind"],
    )  # fmt: skip


_PARAM_FIELDS = tuple(f.name for f in fields(Game) if f.init and f.name != "ending")
_param_values = attrgetter(*_PARAM_FIELDS)  # read in one call: each click writes a game


def game_params(game: Game) -> dict[str, Any]:
    params = dict(zip(_PARAM_FIELDS, _param_values(game), strict=True))
    params["moves"] = ",".join(str(c) for c in game.moves)
    params["ply"] = game.ply
    params["status"] = "running" if game.running else "finished"
    params["end_reason"] = game.ending.reason if game.ending else None
    params["result"] = game.ending.result if game.ending else None
    return params


async def games_where(db: Db, where: str, params: dict[str, Any] | None = None) -> list[Game]:
    rows = await db.rows(f"SELECT {GAME_COLUMNS} FROM games {where}", params or {})
    return [game_from_row(row) for row in rows]


async def finished_games_of(
    db: Db, guild_id: int | None, user_id: int, limit: int | None
) -> list[Game]:
    """A member's finished games in a server (None: in direct messages), newest first."""
    where = finished_games_where(guild_id, limit)
    return await games_where(db, where, {"guild": guild_id, "user": user_id})


# --- games --------------------------------------------------------------------------------


async def insert_game(db: Db, game: Game) -> Game:
    if game.running:  # one statement: atomic by itself, no savepoint needed
        return game.with_changes(id=await db.value(_INSERT_GAME, game_params(game)))
    async with db.atomic():  # an imported record: the game and its result together
        game = game.with_changes(id=await db.value(_INSERT_GAME, game_params(game)))
        await apply_result(db, game)
    return game


async def insert_game_if_room(
    db: Db, game: Game, room: int, locks: Sequence[tuple[str, int]] = ()
) -> Game | None:
    """The insert of ``Store.create_game_if_room``: on PostgreSQL ``locks`` are taken by
    the statement (:data:`ROOM_AFTER_LOCKS`); on SQLite a statement on the one connection
    is atomic by itself, and needs none."""
    params = {**game_params(game), "room": room}
    sql = _INSERT_GAME_IF_ROOM
    if locks and db.dialect.locks_in_statement:
        sql, params["locks"] = _INSERT_GAME_AFTER_LOCKS, [lock_key(key) for key in locks]
    game_id = await db.value(sql, params)
    return None if game_id is None else game.with_changes(id=game_id)


async def import_finished_games(db: Db, games: list[Game]) -> None:
    async with db.atomic():
        for game in games:
            if game.running:
                raise ValueError(f"game {game.id} is still running")
            await insert_game(db, game)


async def get_game(db: Db, game_id: int) -> Game | None:
    games = await games_where(db, "WHERE id = :id", {"id": game_id})
    return games[0] if games else None


_MOVED = (
    "moves = :moves, ply = :ply, turn_deadline = :turn_deadline, updated_at = :updated_at,"
    " claimed_until = NULL, message_id = COALESCE(message_id, CAST(:clicked AS BIGINT))"
)
_OTHERS_CHANGE = ("hinted", "message_id", "ping_message_id", "draw_offer_by",
                  "draw_offer_until", "extra_time_ply", "remind")  # fmt: skip
"""What others may change in a running game beside its moves (a hint marked, a board
posted again, a turn ping, courtesy: see :mod:`bot.storage.courtesy_queries`; a
player's reminders chosen, or found unreachable, in any process): read back by a save,
as the write leaves them."""
_OTHERS = ", ".join(_OTHERS_CHANGE)
_others_of = attrgetter(*_OTHERS_CHANGE)
_ENDED = (
    "status = :status, result = :result, end_reason = :end_reason, finished_at = :finished_at,"
    " stopped_by = :stopped_by"
)
_IF_UNCHANGED = (
    " WHERE id = :id AND status = 'running' AND ply = :expected_ply"
    " AND (CAST(:clicked AS BIGINT) IS NULL OR message_id IS NULL OR message_id = :clicked)"
    f" RETURNING {_OTHERS}"
)
_UPDATE_GAME = f"UPDATE games SET {_MOVED}, {_ENDED}{_IF_UNCHANGED}"
_MOVE_GAME = f"UPDATE games SET {_MOVED}{_IF_UNCHANGED}"
""":data:`_UPDATE_GAME` for a game that goes on: a running row has none of what it
leaves out (:data:`_ENDED`), and SQLite rewrites the entries of every index whose columns
(or partial condition) a statement sets; without ``status`` and ``finished_at``, a move
spares the channel's and the finished games' indexes, and costs SQLite about half."""


async def save_game(db: Db, game: Game, expected_ply: int, clicked: int | None = None) -> Game:
    """Store the changed game: a compare-and-set on the ply (on PostgreSQL the UPDATE locks
    the row, and a writer that waited for another re-reads it, finds the ply moved on and
    changes nothing). Returns it with what others may have changed since it was read: a
    hint marked, a board posted again, a turn ping sent. A correspondence game's move
    writes the reminders it makes due with it (:mod:`bot.storage.outbox_rows`). The
    message id is written only
    where none is stored yet: the board ``clicked`` is then the game's (a new board is
    stored by its first click, see :mod:`bot.storage.board_writes`). A game that goes
    on is that one statement; a finished one changes the records in the same transaction.

    Raises:
        Conflict: the stored game is no longer running at ``expected_ply``, or its board
            is no longer the message ``clicked`` (posted again since).
    """
    if game.running:
        due = due_for(game)  # a correspondence game's reminders, for whoever chose them
        if due is None:
            return await _update_game(db, game, expected_ply, clicked)
        if db.dialect.writable_with:  # the move and its outbox rows: one statement
            also = (outbox_rows.AFTER_SAVED, outbox_rows.due_params(due))
            return await _update_game(db, game, expected_ply, clicked, also=also)
        if game.board.to_move not in game.remind:  # SQLite: the member to move chose none
            return await _update_game(db, game, expected_ply, clicked)
        async with db.atomic():
            stored = await _update_game(db, game, expected_ply, clicked)
            await outbox_rows.write_due(db, due)
        return stored
    if game.bot_side is not None:  # at most one row more: the member's record at the level
        counted = count_bot_game(game, "FROM saved WHERE NOT saved.hinted")
        if counted is None:
            return await _update_game(db, game, expected_ply, clicked)
        if db.dialect.writable_with:  # both in one statement, atomic by itself
            return await _update_game(db, game, expected_ply, clicked, also=counted)
    async with db.atomic():
        stored = await _update_game(db, game, expected_ply, clicked)
        await apply_result(db, stored)
    return stored


async def _update_game(
    db: Db, game: Game, expected_ply: int, clicked: int | None,
    also: tuple[str, Params] | None = None,
) -> Game:  # fmt: skip
    """The compare-and-set of :func:`save_game`; ``also``, a statement reading ``saved``
    (the updated row) and its parameters, runs in the same statement."""
    goes_on = game.running and game.finished_at is None and game.stopped_by is None
    sql, params = _MOVE_GAME if goes_on else _UPDATE_GAME, {
        **game_params(game), "expected_ply": expected_ply, "clicked": clicked}  # fmt: skip
    if also is not None:
        sql = (f"WITH saved AS ({sql}), also AS ({also[0]})"
               f" SELECT {_OTHERS} FROM saved")  # fmt: skip
        params |= also[1]
    row = await db.row(sql, params)
    if row is None:
        raise Conflict(f"game {game.id} changed before this write")
    stored = tuple(bool(row[k]) if k == "hinted" else row[k] for k in _OTHERS_CHANGE)
    if stored == _others_of(game):
        return game  # as usual: nothing changed meanwhile (a copy sets every field)
    return game.with_changes(**dict(zip(_OTHERS_CHANGE, stored, strict=True)))


async def mark_hinted(db: Db, game_id: int, expected_ply: int) -> None:
    """Marks the game while it still stands at ``expected_ply`` (on PostgreSQL the
    UPDATE waits for a move being stored, then finds the ply moved on, as a save does)."""
    changed = await db.run(
        "UPDATE games SET hinted = TRUE WHERE id = :id AND status = 'running' AND ply = :ply",
        {"id": game_id, "ply": expected_ply},
    )
    if changed != 1:
        raise Conflict(f"game {game_id} changed before its hint was marked")


async def set_game_message_if_none(db: Db, game_id: int, message_id: int) -> bool:
    changed = await db.run(
        "UPDATE games SET message_id = :message WHERE id = :id AND message_id IS NULL",
        {"id": game_id, "message": message_id},
    )
    return changed == 1


async def move_game_message(db: Db, game_id: int, old: int | None, new: int) -> bool:
    changed = await db.run(
        "UPDATE games SET message_id = :new WHERE id = :id AND status = 'running'"
        " AND message_id IS NOT DISTINCT FROM :old",
        {"id": game_id, "old": old, "new": new},
    )
    return changed == 1


async def set_ping_message(db: Db, game_id: int, ply: int, message_id: int) -> bool:
    changed = await db.run(
        "UPDATE games SET ping_message_id = :message WHERE id = :id AND status = 'running'"
        " AND ply = :ply",
        {"id": game_id, "ply": ply, "message": message_id},
    )
    return changed == 1


async def take_ping_message(db: Db, game_id: int, message_id: int) -> bool:
    """Forget the ping if it still is ``message_id``: of two takers, one changes the row
    (on PostgreSQL the other waits for its lock, re-reads the row and changes nothing)."""
    changed = await db.run(
        "UPDATE games SET ping_message_id = NULL WHERE id = :id AND ping_message_id = :message",
        {"id": game_id, "message": message_id},
    )
    return changed == 1


async def running_games(db: Db) -> list[Game]:
    return await games_where(db, "WHERE status = 'running' ORDER BY id")


async def running_games_in(db: Db, channel_id: int) -> list[Game]:
    return await games_where(db, "WHERE channel_id = :channel AND status = 'running' ORDER BY id",
                             {"channel": channel_id})  # fmt: skip


async def channel_load(db: Db, channel_id: int) -> tuple[int, int]:
    row = await db.row(
        f"SELECT {_PLAYING_HERE} AS games, {_WAITING_HERE} AS challenges",
        {"channel_id": channel_id},
    )
    assert row is not None  # a SELECT without FROM has its one row
    return int(row["games"]), int(row["challenges"])


async def running_game_of(db: Db, guild_id: int | None, user_id: int) -> Game | None:
    games = await games_where(
        db,
        f"WHERE status = 'running' AND guild_id IS NOT DISTINCT FROM :guild AND {_MEMBER_OF}"
        " ORDER BY id LIMIT 1",
        {"guild": guild_id, "user": user_id},
    )
    return games[0] if games else None


async def correspondence_games_of(db: Db, user_id: int, guild_id: int | None = None) -> int:
    """A member's running correspondence games, in every place they play (``guild_id``
    given: those of that server)."""
    where = "" if guild_id is None else " AND guild_id = :guild AND NOT guest"
    count = await db.value(
        "SELECT COUNT(*) FROM games WHERE status = 'running' AND days_per_move IS NOT NULL"
        f" AND {_MEMBER_OF}{where}",
        {"user": user_id, "guild": guild_id},
    )
    return int(count or 0)


async def last_start(db: Db, guild_id: int | None, user_id: int) -> float | None:
    value = await db.value(
        "SELECT MAX(t) FROM (SELECT MAX(created_at) AS t FROM challenges"
        " WHERE challenger_id = :user AND guild_id IS NOT DISTINCT FROM :guild UNION ALL"
        " SELECT MAX(created_at) FROM games WHERE guild_id IS NOT DISTINCT FROM :guild"
        " AND bot_side IS NOT NULL AND (player_x = :user OR player_o = :user)) AS starts",
        {"guild": guild_id, "user": user_id},
    )
    return None if value is None else float(value)


def claim(db: Db, table: str, status: str, due: str, columns: str) -> str:
    """Claim a batch of rows in ``status`` whose ``due`` time passed and that no other
    process holds: rows another transaction is claiming are skipped, not waited for."""
    return (
        f"UPDATE {table} SET claimed_until = :until WHERE id IN (SELECT id FROM {table}"
        f" WHERE status = '{status}' AND {due} <= :now"
        " AND (claimed_until IS NULL OR claimed_until <= :now)"
        f" ORDER BY {due} LIMIT 100{db.dialect.skip_locked}) RETURNING {columns}"
    )


async def games_due(db: Db, now: float) -> list[Game]:
    """Running games whose deadline passed, claimed for a while (see
    :attr:`~bot.storage.sql.Dialect.claim_seconds`), soonest first."""
    rows = await db.rows(
        claim(db, "games", "running", "turn_deadline", GAME_COLUMNS),
        {"now": now, "until": now + db.dialect.claim_seconds},
    )
    games = [game_from_row(row) for row in rows]
    return sorted(games, key=lambda g: (g.turn_deadline or 0.0, g.id))


_LATER_OF = "CASE WHEN claimed_until > {due} THEN claimed_until ELSE {due} END"


async def next_deadline(db: Db) -> float | None:
    """The soonest deadline (a turn, a challenge, a tournament's sign-up or a match's
    start), or the end of another process's claim on it."""
    value = await db.value(
        "SELECT MIN(t) FROM ("
        f" SELECT MIN({_LATER_OF.format(due='turn_deadline')}) AS t FROM games"
        "  WHERE status = 'running'"
        f" UNION ALL SELECT MIN({_LATER_OF.format(due='expires_at')}) FROM challenges"
        "  WHERE status = 'pending'"
        " UNION ALL SELECT MIN(signup_closes_at) FROM tournaments WHERE status = 'signup'"
        " UNION ALL SELECT MIN(start_by) FROM tournament_matches WHERE status = 'waiting'"
        "  AND tournament_id IN (SELECT id FROM tournaments WHERE status = 'running')"
        ") AS due"
    )
    return None if value is None else float(value)
