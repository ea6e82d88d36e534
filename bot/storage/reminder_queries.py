"""SQL for reminders and their outbox, written once for SQLite and PostgreSQL (see
:mod:`bot.storage.sql` and :mod:`bot.storage.reminder_migrations`).

The rows a move makes due are written with the move (:mod:`bot.storage.outbox_rows`).
"""

from __future__ import annotations

from bot.core.models import Game
from bot.core.reminders.models import Reminder, ReminderSetting, next_digest
from bot.storage import outbox_rows
from bot.storage.game_queries import GAME_COLUMNS, game_from_row
from bot.storage.sql import Db, Params, Row

_SETTING_COLUMNS = (
    "member_id, mode, digest_minute, utc_offset, warnings, unreachable, told, offered,"
    " next_digest_at, locale"
)
_OUTBOX_COLUMNS = "id, member_id, game_id, ply, kind, due_at, attempts"


def setting_from_row(row: Row) -> ReminderSetting:
    return ReminderSetting(
        member_id=row["member_id"], mode=row["mode"], digest_minute=row["digest_minute"],
        utc_offset=row["utc_offset"], warnings=bool(row["warnings"]),
        unreachable=bool(row["unreachable"]), told=bool(row["told"]),
        offered=bool(row["offered"]), next_digest_at=row["next_digest_at"],
        locale=row["locale"],
    )  # fmt: skip


def reminder_from_row(row: Row) -> Reminder:
    return Reminder(row["id"], row["member_id"], row["game_id"], row["ply"], row["kind"],
                    row["due_at"], row["attempts"])  # fmt: skip


async def reminder_setting(db: Db, member_id: int) -> ReminderSetting | None:
    row = await db.row(
        f"SELECT {_SETTING_COLUMNS} FROM reminder_settings WHERE member_id = :member",
        {"member": member_id},
    )
    return None if row is None else setting_from_row(row)


async def set_reminder_setting(db: Db, setting: ReminderSetting, now: float) -> None:
    params: Params = {
        "member": setting.member_id, "mode": setting.mode, "minute": setting.digest_minute,
        "offset": setting.utc_offset, "warnings": setting.warnings,
        "next": setting.next_digest_at, "now": now, "locale": setting.locale,
    }  # fmt: skip
    async with db.atomic():
        await db.run(
            "INSERT INTO reminder_settings (member_id, mode, digest_minute, utc_offset, warnings,"
            " next_digest_at, locale, updated_at) VALUES (:member, :mode, :minute, :offset,"
            " :warnings, :next, :locale, :now) ON CONFLICT (member_id) DO UPDATE SET"
            " mode = excluded.mode, digest_minute = excluded.digest_minute,"
            " utc_offset = excluded.utc_offset, warnings = excluded.warnings,"
            " next_digest_at = excluded.next_digest_at, locale = excluded.locale,"
            " unreachable = FALSE, told = FALSE, updated_at = excluded.updated_at",
            params,
        )
        for statement in outbox_rows.REMIND_MEMBER:
            await db.run(statement, {"member": setting.member_id})
        if setting.mode != "every":  # an every-move reminder (or challenge's DM) chosen
            await db.run(  # off goes no more
                "UPDATE outbox SET status = 'dropped' WHERE member_id = :member"
                " AND status = 'due' AND kind IN ('move', 'challenge')",
                {"member": setting.member_id},
            )
        if not setting.warnings:
            await db.run(
                "UPDATE outbox SET status = 'dropped' WHERE member_id = :member"
                " AND status = 'due' AND kind IN ('warn12', 'warn1')",
                {"member": setting.member_id},
            )


async def offer_reminders_once(db: Db, member_id: int, now: float) -> bool:
    row = await db.row(
        "INSERT INTO reminder_settings (member_id, offered, updated_at)"
        " VALUES (:member, TRUE, :now) ON CONFLICT (member_id) DO UPDATE SET offered = TRUE"
        " WHERE NOT reminder_settings.offered AND reminder_settings.mode = 'off'"
        " RETURNING member_id",
        {"member": member_id, "now": now},
    )
    return row is not None


async def claim_reminders(db: Db, now: float, limit: int) -> list[Reminder]:
    rows = await db.rows(
        "UPDATE outbox SET status = 'sending', claimed_at = :now, attempts = attempts + 1"
        " WHERE status = 'due' AND id IN (SELECT id FROM outbox WHERE status = 'due'"
        f" AND due_at <= :now ORDER BY due_at, id LIMIT :limit{db.dialect.skip_locked})"
        f" RETURNING {_OUTBOX_COLUMNS}",
        {"now": now, "limit": limit},
    )
    return sorted((reminder_from_row(row) for row in rows), key=lambda r: (r.due_at, r.id))


async def _set_status(db: Db, reminder_id: int, status: str, at: float | None = None) -> None:
    await db.run(
        "UPDATE outbox SET status = :status, due_at = COALESCE(CAST(:at AS DOUBLE PRECISION),"
        " due_at) WHERE id = :id AND status = 'sending'",
        {"id": reminder_id, "status": status, "at": at},
    )


async def reminder_sent(db: Db, reminder_id: int) -> None:
    await _set_status(db, reminder_id, "sent")


async def reminder_dropped(db: Db, reminder_id: int) -> None:
    await _set_status(db, reminder_id, "dropped")


async def reminder_retry(db: Db, reminder_id: int, at: float) -> None:
    await _set_status(db, reminder_id, "due", at)


async def prune_outbox(db: Db, before: float) -> int:
    return await db.run(
        "DELETE FROM outbox WHERE status <> 'due' AND COALESCE(claimed_at, due_at) < :before",
        {"before": before},
    )


async def challenge_posted(db: Db, challenge_id: int, now: float) -> None:
    await db.run(
        "UPDATE outbox SET due_at = :now WHERE kind = 'challenge' AND game_id = :challenge"
        " AND status = 'due' AND due_at > :now",
        {"challenge": challenge_id, "now": now},
    )


async def next_reminder_due(db: Db) -> float | None:
    value = await db.value(
        "SELECT MIN(t) FROM (SELECT MIN(due_at) AS t FROM outbox WHERE status = 'due'"
        " UNION ALL SELECT MIN(next_digest_at) FROM reminder_settings"
        " WHERE mode = 'digest' AND NOT unreachable) AS due"
    )
    return None if value is None else float(value)


async def mark_unreachable(db: Db, member_id: int) -> None:
    async with db.atomic():
        await db.run(
            "UPDATE reminder_settings SET unreachable = TRUE, told = FALSE"
            " WHERE member_id = :member AND NOT unreachable",
            {"member": member_id},
        )
        await db.run(
            "UPDATE outbox SET status = 'dropped' WHERE member_id = :member AND status = 'due'",
            {"member": member_id},
        )
        for statement in outbox_rows.REMIND_MEMBER:
            await db.run(statement, {"member": member_id})


async def untold_unreachable(db: Db) -> set[int]:
    rows = await db.rows("SELECT member_id FROM reminder_settings WHERE unreachable AND NOT told")
    return {int(row["member_id"]) for row in rows}


async def take_told(db: Db, member_id: int) -> bool:
    changed = await db.run(
        "UPDATE reminder_settings SET told = TRUE WHERE member_id = :member AND unreachable"
        " AND NOT told",
        {"member": member_id},
    )
    return changed == 1


async def claim_digests(db: Db, now: float, limit: int) -> int:
    async with db.atomic():
        rows = await db.rows(
            "SELECT member_id, digest_minute, next_digest_at FROM reminder_settings"
            " WHERE mode = 'digest' AND NOT unreachable AND next_digest_at <= :now"
            f" ORDER BY next_digest_at LIMIT :limit{db.dialect.skip_locked}",
            {"now": now, "limit": limit},
        )
        for row in rows:
            day = int(row["next_digest_at"] // 86400)
            await db.run(
                "INSERT INTO outbox (member_id, game_id, ply, kind, due_at)"
                " VALUES (:member, 0, :day, 'digest', :now) ON CONFLICT DO NOTHING",
                {"member": row["member_id"], "day": day, "now": now},
            )
            await db.run(
                "UPDATE reminder_settings SET next_digest_at = :next WHERE member_id = :member",
                {"member": row["member_id"], "next": next_digest(now, row["digest_minute"])},
            )
    return len(rows)


_CORRESPONDENCE_OF = (
    f"SELECT {GAME_COLUMNS} FROM games WHERE status = 'running' AND player_x = :member"
    " AND days_per_move IS NOT NULL UNION ALL"
    f" SELECT {GAME_COLUMNS} FROM games WHERE status = 'running' AND player_o = :member"
    " AND days_per_move IS NOT NULL"
)
"""A member's running correspondence games, each side read in its partial index
(``games_running_by_x``, ``games_running_by_o``), as ``/ttt games`` reads them: with the
OR of the two sides SQLite read every running game in deadline order instead (4 ms a
digest among 10,000 games in bench/digest.py, against 0.5 ms on PostgreSQL)."""


async def games_waiting_on(db: Db, member_id: int) -> list[Game]:
    rows = await db.rows(f"{_CORRESPONDENCE_OF} ORDER BY turn_deadline, id", {"member": member_id})
    return [game_from_row(row) for row in rows]
