"""SQL for interaction tokens, written once for SQLite and PostgreSQL (see
:mod:`bot.storage.sql`).

Where only a member's own install of ttt reaches, a game's message can be edited only
through the webhook of an interaction that showed it, for 15 minutes. The latest such
token of each game or challenge is kept here with its expiry, so that any process (or a
restarted one) can show a timeout. Tokens are credentials: they are never logged,
dropped when their game ends, and expired ones are deleted whenever a new one is kept."""

from __future__ import annotations

from bot.storage.sql import Db

_KEEP = (
    "INSERT INTO reply_tokens (kind, item_id, token, expires_at)"
    " VALUES (:kind, :item, :token, :expires)"
    " ON CONFLICT (kind, item_id) DO UPDATE SET token = excluded.token,"
    " expires_at = excluded.expires_at WHERE reply_tokens.expires_at < excluded.expires_at"
)


async def keep_token(
    db: Db, kind: str, item_id: int, token: str, expires_at: float, now: float
) -> None:
    """Keep ``token`` for the item unless a later-expiring one is kept already (two
    clicks answered by two processes)."""
    async with db.atomic():
        await db.run("DELETE FROM reply_tokens WHERE expires_at <= :now", {"now": now})
        await db.run(_KEEP, {"kind": kind, "item": item_id, "token": token,
                             "expires": expires_at})  # fmt: skip


async def token_of(db: Db, kind: str, item_id: int, now: float) -> str | None:
    """The item's kept token if it is still valid at ``now``."""
    value = await db.value(
        "SELECT token FROM reply_tokens WHERE kind = :kind AND item_id = :item"
        " AND expires_at > :now",
        {"kind": kind, "item": item_id, "now": now},
    )
    return None if value is None else str(value)


async def kept_token(db: Db, kind: str, item_id: int, now: float) -> tuple[str, float] | None:
    """The item's kept token and its expiry, if still valid at ``now``."""
    row = await db.row(
        "SELECT token, expires_at FROM reply_tokens WHERE kind = :kind AND item_id = :item"
        " AND expires_at > :now",
        {"kind": kind, "item": item_id, "now": now},
    )
    return None if row is None else (str(row["token"]), float(row["expires_at"]))


async def forget_token(db: Db, kind: str, item_id: int) -> None:
    await db.run("DELETE FROM reply_tokens WHERE kind = :kind AND item_id = :item",
                 {"kind": kind, "item": item_id})  # fmt: skip
