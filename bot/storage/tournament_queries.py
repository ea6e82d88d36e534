"""SQL for tournaments, their entrants and matches, written once for SQLite and PostgreSQL
(see :mod:`bot.storage.sql`)."""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any

from bot.core.models import Game, Variant
from bot.core.repository import Conflict
from bot.core.tournaments.models import Entrant, Match, Tournament
from bot.storage.game_queries import games_where
from bot.storage.sql import Db, Row, insert_returning_id

_T_FIELDS = tuple(f.name for f in fields(Tournament))
_T_COLUMNS = ", ".join(_T_FIELDS)
_M_FIELDS = tuple(f.name for f in fields(Match))
_M_COLUMNS = ", ".join(_M_FIELDS)
_ACTIVE = "status IN ('signup', 'running')"
_INSERT_TOURNAMENT = insert_returning_id("tournaments", _T_FIELDS[1:])
_INSERT_MATCH = insert_returning_id("tournament_matches", _M_FIELDS[1:])


def _tournament(row: Row) -> Tournament:
    return Tournament(**{name: row[name] for name in _T_FIELDS})


def _match(row: Row) -> Match:
    values = {name: row[name] for name in _M_FIELDS}
    for flag in ("first_ready", "second_ready", "forfeit"):
        values[flag] = bool(values[flag])
    return Match(**values)


async def _tournaments_where(db: Db, where: str, params: dict[str, Any]) -> list[Tournament]:
    rows = await db.rows(f"SELECT {_T_COLUMNS} FROM tournaments {where}", params)
    return [_tournament(row) for row in rows]


async def create_tournament(db: Db, tournament: Tournament) -> Tournament:
    """Raises: Conflict: the channel already has a tournament in sign-up or running."""
    try:
        async with db.atomic():
            tournament_id = await db.value(_INSERT_TOURNAMENT, asdict(tournament))
    except db.dialect.integrity_errors as exc:
        raise Conflict(str(exc)) from None
    return tournament.with_changes(id=tournament_id)


async def get_tournament(db: Db, tournament_id: int) -> Tournament | None:
    found = await _tournaments_where(db, "WHERE id = :id", {"id": tournament_id})
    return found[0] if found else None


async def active_tournament_in(db: Db, channel_id: int) -> Tournament | None:
    """The tournament in sign-up or running in a channel, or whose match is played in it
    (a match's thread)."""
    found = await _tournaments_where(
        db,
        f"WHERE {_ACTIVE} AND (channel_id = :channel OR id IN (SELECT tournament_id"
        " FROM tournament_matches WHERE thread_id = :channel)) ORDER BY id LIMIT 1",
        {"channel": channel_id},
    )
    return found[0] if found else None


async def save_tournament(db: Db, t: Tournament) -> None:
    await db.run(
        "UPDATE tournaments SET status = :status, round = :round, rounds = :rounds,"
        " champion = :champion WHERE id = :id",
        {"id": t.id, "status": t.status, "round": t.round, "rounds": t.rounds,
         "champion": t.champion},
    )  # fmt: skip


async def set_tournament_message(db: Db, tournament_id: int, message_id: int) -> None:
    await db.run("UPDATE tournaments SET message_id = :message WHERE id = :id",
                 {"id": tournament_id, "message": message_id})  # fmt: skip


async def running_tournaments(db: Db) -> list[int]:
    rows = await db.rows("SELECT id FROM tournaments WHERE status = 'running' ORDER BY id")
    return [int(row["id"]) for row in rows]


async def tournaments_due(db: Db, now: float) -> list[int]:
    """Tournaments with a sign-up to close or a match whose players did not show up."""
    rows = await db.rows(
        "SELECT id FROM tournaments WHERE status = 'signup' AND signup_closes_at <= :now"
        " UNION SELECT tournament_id FROM tournament_matches WHERE status = 'waiting'"
        " AND start_by <= :now AND tournament_id IN"
        " (SELECT id FROM tournaments WHERE status = 'running')",
        {"now": now},
    )
    return sorted(int(row["id"]) for row in rows)


async def tournaments_unshown(db: Db, now: float, grace: float) -> list[int]:
    """Running tournaments with a match never given its thread (and nobody claiming it),
    or a game never posted ``grace`` seconds after it started."""
    rows = await db.rows(
        "SELECT id FROM tournaments WHERE status = 'running' AND id IN ("
        " SELECT tournament_id FROM tournament_matches WHERE status != 'done'"
        " AND second IS NOT NULL AND message_id IS NULL"
        " AND (claimed_until IS NULL OR claimed_until <= :now)"
        " UNION SELECT m.tournament_id FROM games g JOIN tournament_matches m"
        " ON g.tournament_match_id = m.id WHERE g.status = 'running' AND g.message_id IS NULL"
        " AND g.created_at <= :posted) ORDER BY id",
        {"now": now, "posted": now - grace},
    )
    return [int(row["id"]) for row in rows]


# --- entrants -----------------------------------------------------------------------------


async def entrants(db: Db, tournament_id: int) -> list[Entrant]:
    rows = await db.rows(
        "SELECT user_id, name, joined_at, seed, removed FROM tournament_players"
        " WHERE tournament_id = :t ORDER BY joined_at, user_id",
        {"t": tournament_id},
    )
    return [
        Entrant(r["user_id"], r["name"], r["joined_at"], r["seed"], bool(r["removed"]))
        for r in rows
    ]


async def add_entrant(db: Db, tournament_id: int, entrant: Entrant) -> None:
    await db.run(
        "INSERT INTO tournament_players (tournament_id, user_id, name, joined_at, seed, removed)"
        " VALUES (:t, :user_id, :name, :joined_at, :seed, :removed)",
        {"t": tournament_id, **asdict(entrant)},
    )


async def drop_entrant(db: Db, tournament_id: int, user_id: int) -> bool:
    changed = await db.run(
        "DELETE FROM tournament_players WHERE tournament_id = :t AND user_id = :user",
        {"t": tournament_id, "user": user_id},
    )
    return changed == 1


async def save_entrant(db: Db, tournament_id: int, entrant: Entrant) -> None:
    await db.run(
        "UPDATE tournament_players SET seed = :seed, removed = :removed"
        " WHERE tournament_id = :t AND user_id = :user_id",
        {
            "t": tournament_id,
            "user_id": entrant.user_id,
            "seed": entrant.seed,
            "removed": entrant.removed,
        },
    )


async def ratings_of(db: Db, scope: int, user_ids: list[int], variant: Variant) -> dict[int, float]:
    """The members' ratings at ``variant`` in a records scope (the unrated left out)."""
    if not user_ids:
        return {}
    rows = await db.rows(
        "SELECT user_id, rating FROM ratings WHERE guild_id = :scope AND variant = :variant",
        {"scope": scope, "variant": variant},
    )
    wanted = set(user_ids)
    return {int(r["user_id"]): float(r["rating"]) for r in rows if r["user_id"] in wanted}


# --- matches ------------------------------------------------------------------------------


async def matches(db: Db, tournament_id: int) -> list[Match]:
    rows = await db.rows(
        f"SELECT {_M_COLUMNS} FROM tournament_matches WHERE tournament_id = :t ORDER BY number",
        {"t": tournament_id},
    )
    return [_match(row) for row in rows]


async def get_match(db: Db, match_id: int) -> Match | None:
    row = await db.row(f"SELECT {_M_COLUMNS} FROM tournament_matches WHERE id = :id",
                       {"id": match_id})  # fmt: skip
    return None if row is None else _match(row)


async def insert_match(db: Db, match: Match) -> Match:
    return match.with_changes(id=await db.value(_INSERT_MATCH, asdict(match)))


async def save_match(db: Db, match: Match) -> None:
    """Its state; where it is shown (thread, message) is :func:`place_match`'s."""
    await db.run(
        "UPDATE tournament_matches SET status = :status, start_by = :start_by,"
        " first_ready = :first_ready, second_ready = :second_ready, result = :result,"
        " forfeit = :forfeit WHERE id = :id",
        {name: getattr(match, name) for name in
         ("id", "status", "start_by", "first_ready", "second_ready", "result", "forfeit")},
    )  # fmt: skip


async def claim_match_opening(db: Db, match_id: int, now: float, until: float) -> bool:
    """Whether this process may give the match its thread now: none has, and no other
    process is doing it (or its claim ran out)."""
    changed = await db.run(
        "UPDATE tournament_matches SET claimed_until = :until WHERE id = :id"
        " AND message_id IS NULL AND (claimed_until IS NULL OR claimed_until <= :now)",
        {"id": match_id, "now": now, "until": until},
    )
    return changed == 1


async def place_match(db: Db, match_id: int, thread_id: int, message_id: int) -> bool:
    changed = await db.run(
        "UPDATE tournament_matches SET thread_id = :thread, message_id = :message,"
        " claimed_until = NULL WHERE id = :id AND message_id IS NULL",
        {"id": match_id, "thread": thread_id, "message": message_id},
    )
    return changed == 1


async def tournament_games(db: Db, tournament_id: int) -> list[Game]:
    return await games_where(
        db,
        "WHERE tournament_match_id IN (SELECT id FROM tournament_matches"
        " WHERE tournament_id = :t) ORDER BY id",
        {"t": tournament_id},
    )
