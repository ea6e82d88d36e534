"""SQL for the Activity's sessions, written once for SQLite and PostgreSQL (see
:mod:`bot.storage.sql`): each member's not-before stamp. A session is a signed token
that nothing stores; one issued before its member's stamp is refused by every process
(``/ttt forget-me`` and a ban set it)."""

from __future__ import annotations

from bot.storage.sql import Db

# a stamp only moves forward: two processes revoking at once keep the later
_REVOKE = (
    "INSERT INTO session_revocations (user_id, not_before) VALUES (:user, :at)"
    " ON CONFLICT (user_id) DO UPDATE SET not_before = excluded.not_before"
    " WHERE session_revocations.not_before < excluded.not_before"
)


async def revoke_sessions(db: Db, user_id: int, at: float) -> None:
    await db.run(_REVOKE, {"user": user_id, "at": at})


async def sessions_not_before(db: Db, user_id: int) -> float | None:
    value = await db.value(
        "SELECT not_before FROM session_revocations WHERE user_id = :user", {"user": user_id}
    )
    return None if value is None else float(value)
