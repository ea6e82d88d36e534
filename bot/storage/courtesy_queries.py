"""SQL for courtesy between members: more time and draw offers in a correspondence game
(columns of its row), and the members each member blocked (``member_blocks``)."""

from __future__ import annotations

from bot.core.models import Game
from bot.core.repository import Conflict
from bot.storage.sql import Db

_SAVE_COURTESY = (
    "UPDATE games SET turn_deadline = :turn_deadline, extra_time_ply = :extra_time_ply,"
    " draw_offer_by = :draw_offer_by, draw_offer_until = :draw_offer_until"
    " WHERE id = :id AND status = 'running' AND ply = :ply"
    " AND turn_deadline IS NOT DISTINCT FROM :was_deadline"
    " AND extra_time_ply IS NOT DISTINCT FROM :was_extra"
    " AND draw_offer_by IS NOT DISTINCT FROM :was_offer_by"
    " AND draw_offer_until IS NOT DISTINCT FROM :was_offer_until"
)
"""A compare-and-set on the ply and on what it changes: of two processes giving more
time in one move (or two offers crossing), one write changes the row."""


async def save_courtesy(db: Db, game: Game, before: Game) -> None:
    """See :meth:`bot.core.repository.Store.save_courtesy`.

    Raises:
        Conflict: the row changed since ``before`` was read.
    """
    changed = await db.run(_SAVE_COURTESY, {
        "id": game.id, "ply": game.ply, "turn_deadline": game.turn_deadline,
        "extra_time_ply": game.extra_time_ply, "draw_offer_by": game.draw_offer_by,
        "draw_offer_until": game.draw_offer_until,
        "was_deadline": before.turn_deadline, "was_extra": before.extra_time_ply,
        "was_offer_by": before.draw_offer_by, "was_offer_until": before.draw_offer_until,
    })  # fmt: skip
    if changed != 1:
        raise Conflict(f"game {game.id} changed before its courtesy was stored")
    if game.turn_deadline is not None and before.turn_deadline is not None:
        # more time: the mover's deadline warnings not sent yet move with the deadline
        # (else "1 hour left" would come a day early, and no last call before the real one)
        await db.run(
            "UPDATE outbox SET due_at = due_at + CAST(:shift AS DOUBLE PRECISION)"
            " WHERE game_id = :id AND ply = :ply AND kind IN ('warn12', 'warn1')"
            " AND status = 'due'",
            {"id": game.id, "ply": game.ply,
             "shift": game.turn_deadline - before.turn_deadline},
        )  # fmt: skip


async def block(db: Db, blocker_id: int, blocked_id: int, now: float) -> bool:
    """Store that ``blocker_id`` declines every challenge from ``blocked_id``; False if
    it was stored already."""
    changed = await db.run(
        "INSERT INTO member_blocks (blocker_id, blocked_id, created_at)"
        " VALUES (:blocker, :blocked, :now) ON CONFLICT DO NOTHING",
        {"blocker": blocker_id, "blocked": blocked_id, "now": now},
    )
    return changed == 1


async def unblock(db: Db, blocker_id: int, blocked_id: int) -> bool:
    """Forget that block; False if there was none."""
    changed = await db.run(
        "DELETE FROM member_blocks WHERE blocker_id = :blocker AND blocked_id = :blocked",
        {"blocker": blocker_id, "blocked": blocked_id},
    )
    return changed == 1


async def blockers_between(db: Db, first: int, second: int) -> set[int]:
    """Which of the two members blocked the other (none, one or both)."""
    rows = await db.rows(
        "SELECT blocker_id FROM member_blocks WHERE (blocker_id = :a AND blocked_id = :b)"
        " OR (blocker_id = :b AND blocked_id = :a)",
        {"a": first, "b": second},
    )
    return {int(row["blocker_id"]) for row in rows}
