"""The organiser's corrections to a tournament under way: a player taken out, a match's
result set by hand, the whole tournament called off.

Each runs inside the transaction :class:`~bot.core.tournaments.service.
TournamentService` holds under the tournament's lock (each is a
:data:`~bot.core.tournaments.progress.Change`), after the service has checked that the
member may organise; settling then moves the tournament on from what was corrected.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from bot.core.refusals import Refusal
from bot.core.repository import Transaction
from bot.core.tournaments.models import MatchResult, Tournament
from bot.core.tournaments.progress import Progress, Step, read

log = logging.getLogger(__name__)


async def remove(tx: Transaction, t: Tournament, step: Step, *, member_id: int) -> None:
    """In sign-up the player simply leaves; once it runs they are marked removed, and
    settling forfeits their matches.

    Raises:
        Refusal: not a player in it.
    """
    entrants = {e.user_id: e for e in await tx.entrants(t.id)}
    entrant = entrants.get(member_id)
    if entrant is None or entrant.removed:
        raise Refusal("tournament.not_player", member_id=member_id)
    if t.status == "signup":
        await tx.drop_entrant(t.id, member_id)
        return
    await tx.save_entrant(t.id, replace(entrant, removed=True))
    log.info("tournament %d: player %d removed", t.id, member_id)


async def correct(
    tx: Transaction, t: Tournament, step: Step, *, number: int, winner_id: int | None,
    progress: Progress, by: int,
) -> None:  # fmt: skip
    """Match ``number`` decided for ``winner_id`` (None: a draw); a game still running in
    it ends with no result, as stopped by ``by``.

    Raises:
        Refusal: not running, no such match, a winner who does not play in it, a draw
            in single elimination, or a round already built on it.
    """
    if t.status != "running":  # in sign-up (a finished one is no channel's now)
        raise Refusal("tournament.not_running")
    view = await read(tx, t)
    match = view.match_numbered(number)
    if match is None or match.second is None:
        raise Refusal("tournament.no_match", number=number)
    if winner_id is not None and winner_id not in match.players:
        raise Refusal("tournament.not_in_match", member_id=winner_id, number=number)
    if winner_id is None and t.format == "single":
        raise Refusal("tournament.no_draws")
    if t.format == "single" and match.round != t.round:
        raise Refusal("tournament.too_late", number=number)
    result: MatchResult = (
        "draw" if winner_id is None else "first" if winner_id == match.first else "second"
    )
    await progress.end_games(tx, view, match, step, by)
    decided = match.with_changes(status="done", result=result, forfeit=True, start_by=None)
    await tx.save_match(decided)
    step.changed[match.id] = decided
    log.info("tournament %d: match %d corrected to %s", t.id, number, result)


async def cancel(
    tx: Transaction, t: Tournament, step: Step, *, progress: Progress, by: int
) -> None:
    """Every undecided match closed with no result (its running games stopped by
    ``by``), and the tournament cancelled."""
    view = await read(tx, t)
    for match in view.matches:
        if match.status != "done":
            await progress.end_games(tx, view, match, step, by)
            # undecided, and no longer waiting for anyone (nor its deadline)
            closed = match.with_changes(status="done", start_by=None)
            await tx.save_match(closed)
            step.changed[match.id] = closed
    await tx.save_tournament(t.with_changes(status="cancelled"))
    log.info("tournament %d cancelled", t.id)
