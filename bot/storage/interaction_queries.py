"""SQL for the interactions that came over HTTP, written once for SQLite and PostgreSQL
(see :mod:`bot.storage.sql`): each one's id, claimed by the first process it reached,
so that a signed request sent again (a replay) is answered by none.

A claim is one insert into the primary key, nothing else: an interaction's id is a
snowflake, which grows with the time Discord made it, so the claims of old interactions
are the lowest ids, deleted by a range of that same index (no second index to keep)."""

from __future__ import annotations

from bot.storage.sql import Db

_CLAIM = "INSERT INTO interaction_claims (interaction_id) VALUES (:id) ON CONFLICT DO NOTHING"
_FORGET = "DELETE FROM interaction_claims WHERE interaction_id < :below"


async def claim_interaction(db: Db, interaction_id: int, forget_below: int | None) -> bool:
    """Whether this is the first claim of the interaction (kept from now); False if some
    process claimed it before. Claims of ids below ``forget_below`` are deleted first."""
    if forget_below is not None:
        await db.run(_FORGET, {"below": forget_below})
    return await db.run(_CLAIM, {"id": interaction_id}) == 1
