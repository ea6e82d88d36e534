"""SQL for challenges, written once for SQLite and PostgreSQL (see :mod:`bot.storage.sql`)."""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any

from bot.core.models import Challenge, Game
from bot.core.reminders.models import due_for
from bot.core.repository import Conflict
from bot.storage import outbox_rows
from bot.storage.game_queries import claim, insert_game
from bot.storage.sql import Db, Row, insert_returning_id

_CHALLENGE_FIELDS = tuple(f.name for f in fields(Challenge))
CHALLENGE_COLUMNS = ", ".join(_CHALLENGE_FIELDS)
_INSERT_CHALLENGE = insert_returning_id("challenges", _CHALLENGE_FIELDS[1:])


def challenge_from_row(row: Row) -> Challenge:
    values = {name: row[name] for name in _CHALLENGE_FIELDS}
    return Challenge(**values | {"guest": bool(values["guest"])})


async def _challenges_where(db: Db, where: str, params: dict[str, Any]) -> list[Challenge]:
    rows = await db.rows(f"SELECT {CHALLENGE_COLUMNS} FROM challenges {where}", params)
    return [challenge_from_row(row) for row in rows]


async def create_challenge(db: Db, challenge: Challenge) -> Challenge:
    """A correspondence challenge naming a member writes their DM's outbox row with it,
    in its transaction, if they chose every-move reminders (:data:`outbox_rows.CHALLENGE_ROW`).

    Raises: Conflict: the channel already has a pending challenge."""
    try:
        async with db.atomic():  # a savepoint: the unit of work survives a Conflict
            challenge_id = await db.value(_INSERT_CHALLENGE, asdict(challenge))
            if challenge.days_per_move is not None and challenge.opponent_id is not None:
                await db.run(outbox_rows.CHALLENGE_ROW, {
                    "challenge": challenge_id, "opponent": challenge.opponent_id,
                    "challenger": challenge.challenger_id, "now": challenge.created_at,
                })  # fmt: skip
    except db.dialect.integrity_errors as exc:
        raise Conflict(str(exc)) from None
    return challenge.with_changes(id=challenge_id)


async def get_challenge(db: Db, challenge_id: int) -> Challenge | None:
    found = await _challenges_where(db, "WHERE id = :id", {"id": challenge_id})
    return found[0] if found else None


async def pending_challenge_in(db: Db, channel_id: int) -> Challenge | None:
    """The live challenge that holds the channel, if any (correspondence ones hold none)."""
    found = await _challenges_where(
        db, "WHERE channel_id = :channel AND status = 'pending' AND days_per_move IS NULL",
        {"channel": channel_id},
    )  # fmt: skip
    return found[0] if found else None


async def pending_challenges_in(db: Db, channel_id: int) -> list[Challenge]:
    """Every pending challenge in the channel, live and correspondence, oldest first."""
    return await _challenges_where(
        db, "WHERE channel_id = :channel AND status = 'pending' ORDER BY id",
        {"channel": channel_id},
    )  # fmt: skip


async def set_challenge_message(db: Db, challenge_id: int, message_id: int) -> None:
    await db.run("UPDATE challenges SET message_id = :message WHERE id = :id",
                 {"id": challenge_id, "message": message_id})  # fmt: skip


async def close_challenge(
    db: Db, challenge: Challenge, status: str, game_id: int | None = None
) -> None:
    """Raises: Conflict: it was no longer pending."""
    changed = await db.run(
        "UPDATE challenges SET status = :status, game_id = :game, claimed_until = NULL"
        " WHERE id = :id AND status = 'pending'",
        {"id": challenge.id, "status": status, "game": game_id},
    )
    if changed != 1:
        raise Conflict(f"challenge {challenge.id} is no longer pending")
    if challenge.days_per_move is not None and challenge.opponent_id is not None:
        await db.run(  # its DM, not sent yet, goes no more (the sender checks it as well)
            "UPDATE outbox SET status = 'dropped' WHERE member_id = :member AND game_id = :id"
            " AND ply = 0 AND kind = 'challenge' AND status = 'due'",
            {"member": challenge.opponent_id, "id": challenge.id},
        )


async def accept_challenge(db: Db, challenge: Challenge, game: Game) -> Game:
    """Under the channel's lock, as a start is: a start checking the channel must not see
    the game not yet there and then the challenge already gone. The challenge is closed
    first: its row lock makes a second accept wait, then find it closed."""
    try:
        async with db.atomic():
            await db.serialize(("channel", challenge.channel_id))
            await close_challenge(db, challenge, "accepted")
            created = await insert_game(db, game)
            await db.run("UPDATE challenges SET game_id = :game WHERE id = :id",
                         {"id": challenge.id, "game": created.id})  # fmt: skip
            due = due_for(created)  # the first mover's reminders, if they chose them
            if due is not None:
                created = created.with_changes(
                    remind=await outbox_rows.remind_marks(db, created.id)
                )
                await outbox_rows.write_due(db, due)
    except db.dialect.integrity_errors as exc:
        raise Conflict(str(exc)) from None
    return created


async def challenges_due(db: Db, now: float) -> list[Challenge]:
    """Pending challenges whose time ran out, claimed as
    :func:`~bot.storage.game_queries.games_due` claims games."""
    rows = await db.rows(
        claim(db, "challenges", "pending", "expires_at", CHALLENGE_COLUMNS),
        {"now": now, "until": now + db.dialect.claim_seconds},
    )
    return sorted((challenge_from_row(row) for row in rows), key=lambda c: (c.expires_at, c.id))
