"""The outbox rows a move makes due, written inside the move's own write
(``game_queries.save_game``, ``challenge_queries.accept_challenge``): on PostgreSQL in the
same statement as the move's UPDATE (a WITH query reading ``saved``), on SQLite as one
more statement in its transaction, sent only when the game's ``remind`` marks say the
member to move chose some (else the move is its one statement, as a live game's). Either
is an INSERT … SELECT conditioned on the member's setting: nothing is written for a
member who did not opt in, and the unique key keeps one row per member, game, ply and
kind. A live game writes none and pays nothing.

A correspondence challenge naming a member writes its ``challenge`` row the same way,
with the challenge (``challenge_queries.create_challenge``): for an every-move member
only (a digest member finds it in their digest), never for one who blocked the
challenger (the lobby refuses that challenge before this; the condition keeps the row
honest on its own).
"""

from __future__ import annotations

from typing import Any

from bot.core.reminders.models import DueReminders
from bot.storage.sql import Db

_DUE_ROWS = (
    "INSERT INTO outbox (member_id, game_id, ply, kind, due_at)"
    " SELECT r.member_id, {game}, {ply}, k.kind, k.due_at FROM reminder_settings r,"
    " (SELECT 'move' AS kind, CAST(:move_at AS DOUBLE PRECISION) AS due_at"
    "  UNION ALL SELECT 'warn12', CAST(:warn12 AS DOUBLE PRECISION)"
    "  UNION ALL SELECT 'warn1', CAST(:warn1 AS DOUBLE PRECISION)) AS k{source}"
    " WHERE r.member_id = :remind AND NOT r.unreachable AND k.due_at IS NOT NULL"
    " AND ((k.kind = 'move' AND r.mode = 'every') OR (k.kind <> 'move' AND r.warnings))"
    " ON CONFLICT DO NOTHING"
)
_GAME, _PLY = "CAST(:game AS BIGINT)", "CAST(:ply AS INTEGER)"
AFTER_SAVED = _DUE_ROWS.format(game=_GAME, ply=_PLY, source=", saved")
"""Joins ``saved``, the row a move's UPDATE returned (PostgreSQL's WITH query): nothing
is written unless the move was."""
_ALONE = _DUE_ROWS.format(game=_GAME, ply=_PLY, source="")


def due_params(due: DueReminders) -> dict[str, Any]:
    at = dict(due.warnings)
    return {
        "remind": due.member_id, "game": due.game_id, "ply": due.ply, "move_at": due.move_at,
        "warn12": at.get("warn12"), "warn1": at.get("warn1"),
    }  # fmt: skip


_WANTS = (
    "EXISTS (SELECT 1 FROM reminder_settings r WHERE r.member_id = games.player_{m}"
    " AND NOT r.unreachable AND (r.mode = 'every' OR r.warnings))"
)
_MENTIONED = (
    "EXISTS (SELECT 1 FROM reminder_settings r WHERE r.member_id = games.player_{m}"
    " AND r.unreachable AND (r.mode <> 'off' OR r.warnings))"
)
_MARKS = " || ".join(
    f"(CASE WHEN {_WANTS.format(m=m)} THEN '{m.upper()}'"
    f" WHEN {_MENTIONED.format(m=m)} THEN '{m}' ELSE '' END)"
    for m in ("x", "o")
)
"""A game's ``remind`` marks (see :attr:`bot.core.models.Game.remind`): ``X`` for the
player of X who takes reminders, ``x`` for one who chose them but whom DMs do not reach
(mentioned in the channel each turn instead), the same for O."""
REMIND_MEMBER = tuple(
    f"UPDATE games SET remind = {_MARKS} WHERE status = 'running'"
    f" AND days_per_move IS NOT NULL AND player_{mark} = :member"
    for mark in ("x", "o")
)
"""A member's choice changed: their running correspondence games' ``remind`` marks
again (at most ``TTT_CORRESPONDENCE_GAMES_PER_MEMBER`` rows), as X then as O: each side
apart, so SQLite reads the running-by-player partial indexes (``player_x = :member OR
player_o = :member`` read every running game: 3.6 ms a choice among 10,000 games)."""
_REMIND_GAME = f"UPDATE games SET remind = {_MARKS} WHERE id = :id RETURNING remind"


CHALLENGE_ROW = (
    "INSERT INTO outbox (member_id, game_id, ply, kind, due_at)"
    " SELECT r.member_id, CAST(:challenge AS BIGINT), 0, 'challenge',"
    " CAST(:now AS DOUBLE PRECISION) FROM reminder_settings r"
    " WHERE r.member_id = :opponent AND r.mode = 'every' AND NOT r.unreachable"
    " AND NOT EXISTS (SELECT 1 FROM member_blocks b WHERE b.blocker_id = :opponent"
    " AND b.blocked_id = :challenger) ON CONFLICT DO NOTHING"
)
"""A correspondence challenge's DM to the member it names, if they chose every move (the
row's ``game_id`` is the challenge's id, its ``ply`` 0: see
:mod:`bot.storage.reminder_migrations`)."""


async def remind_marks(db: Db, game_id: int) -> str:
    """A new correspondence game's ``remind`` marks, as its players chose."""
    return str(await db.value(_REMIND_GAME, {"id": game_id}) or "")


async def write_due(db: Db, due: DueReminders) -> None:
    """The outbox rows ``due`` makes, for a member who chose them (a game just started,
    or a move stored in the same transaction)."""
    await db.run(_ALONE, due_params(due))
