"""SQL for ``/ttt games``: a member's running games and pending challenges, in every place
they play, read together (see :meth:`bot.core.repository.Store.games_list_of`)."""

from __future__ import annotations

from bot.core.models import Challenge, Game
from bot.storage.challenge_queries import CHALLENGE_COLUMNS, challenge_from_row
from bot.storage.game_queries import GAME_COLUMNS, game_from_row
from bot.storage.sql import Db

_RUNNING_OF = (
    f"SELECT {GAME_COLUMNS} FROM games WHERE status = 'running' AND player_x = :user"
    " AND bot_side IS DISTINCT FROM 'X' UNION ALL"
    f" SELECT {GAME_COLUMNS} FROM games WHERE status = 'running' AND player_o = :user"
    " AND bot_side IS DISTINCT FROM 'O'"
)
"""A member's side of a running game (as ``MEMBER_OF`` says it), each side searched in
its partial index (``games_running_by_x``, ``games_running_by_o``): a member's few games
among every server's thousands. SQLite reads neither index for the OR of the two."""
_PENDING_OF = (
    f"SELECT {CHALLENGE_COLUMNS} FROM challenges WHERE status = 'pending'"
    " AND expires_at > :now AND (challenger_id = :user OR opponent_id = :user)"
)
"""Pending challenges are few (each closes within a week at most): the condition on their
expiry reads the partial index that holds only them (``challenges_pending_expiry``)
rather than every challenge ever made."""


async def games_list_of(db: Db, user_id: int, now: float) -> tuple[list[Game], list[Challenge]]:
    """The member's running games and their pending challenges, both ways (open ones they
    made included; those past their time at ``now``, not yet closed, left out). Two
    reads and no transaction (on SQLite one, BEGIN IMMEDIATE, would hold every writer
    for a read): the challenges first, so a challenge accepted between them shows at
    worst as both a challenge and its game, never as neither."""
    rows = await db.rows(_PENDING_OF, {"user": user_id, "now": now})
    games = [game_from_row(row) for row in await db.rows(_RUNNING_OF, {"user": user_id})]
    return games, [challenge_from_row(row) for row in rows]
