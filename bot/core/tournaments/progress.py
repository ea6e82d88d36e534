"""How a tournament moves on, decided inside the transaction that changed it: a match's
next game, a match decided (by its games, a no-show or a removal), the next round's
pairings, the champion. :class:`Progress` writes what it decides through the
transaction it is handed and notes it in a :class:`Step`, for the interface to show;
the rest are pure functions of a :class:`TournamentView`."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.core import rules
from bot.core.models import Game
from bot.core.policy import ServerPolicy
from bot.core.repository import Repository, Transaction
from bot.core.tournaments import pairing
from bot.core.tournaments.models import Match, MatchResult, Tournament
from bot.core.tournaments.standings import had_bye, match_state, played_pairs, points
from bot.core.tournaments.view import TournamentView

log = logging.getLogger(__name__)

OPENING_CLAIM = 60.0
"""Seconds a process holds the opening of a match's thread before another may retry it
(Discord refused it, or the process died between storing the match and showing it)."""


@dataclass(slots=True)
class Step:
    """What one transaction changed, for the view it returns."""

    new_games: list[Game] = field(default_factory=list)
    ended_games: list[Game] = field(default_factory=list)
    opened: list[Match] = field(default_factory=list)
    changed: dict[int, Match] = field(default_factory=dict)


Change = Callable[[Transaction, Tournament, Step], Awaitable[None]]
"""A change to a tournament, made inside its transaction and noted in the step (sign-up,
a player's Ready, the organiser's corrections); refusing raises
:class:`~bot.core.refusals.Refusal`, and nothing is stored then."""


async def read(store: Repository | Transaction, t: Tournament) -> TournamentView:
    """The tournament with its entrants, matches and games, as ``store`` has them."""
    entrants = await store.entrants(t.id)
    matches = await store.matches(t.id)
    games = await store.tournament_games(t.id)
    return TournamentView(t, tuple(entrants), tuple(matches), tuple(games))


class Progress:
    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock

    async def settle(
        self, tx: Transaction, t: Tournament, policy: ServerPolicy, step: Step
    ) -> None:
        """Make every bit of progress that is due, until none is."""
        if t.status != "running":
            return
        now = self.clock()
        while True:
            view = await read(tx, t)
            if t.round > 0:
                for match in view.round_matches(t.round):
                    if match.status != "done":
                        await self.settle_match(tx, view, match, policy, step, now)
                view = await read(tx, t)
                if any(m.status != "done" for m in view.round_matches(t.round)):
                    return
            pairs = next_pairs(view)
            if not pairs:
                winner = champion(view)
                await tx.save_tournament(t.with_changes(status="finished", champion=winner))
                log.info("tournament %d finished: champion %s", t.id, winner)
                return
            t = await self.next_round(tx, view, pairs, step, now)

    async def next_round(
        self, tx: Transaction, view: TournamentView, pairs: list[pairing.Pair], step: Step,
        now: float,
    ) -> Tournament:  # fmt: skip
        t = view.tournament
        number = t.round + 1
        count = len(view.matches)
        removed = view.removed
        for i, pair in enumerate(pairs, start=1):
            match = Match(
                id=0, tournament_id=t.id, round=number, number=count + i, first=pair.first,
                second=pair.second, status="waiting", start_by=now + t.show_up,
            )  # fmt: skip
            if pair.second is None:
                match = match.with_changes(status="done", result="first", start_by=None)
            elif removed & set(match.players):
                match = forfeited(match, removed, better=view.seeds)
            match = await tx.insert_match(match)
            if match.status == "waiting":
                await tx.claim_match_opening(match.id, now, now + OPENING_CLAIM)
                step.opened.append(match)
        t = t.with_changes(round=number)
        await tx.save_tournament(t)
        log.info("tournament %d: round %d, %d matches", t.id, number, len(pairs))
        return t

    async def settle_match(
        self, tx: Transaction, view: TournamentView, match: Match, policy: ServerPolicy,
        step: Step, now: float,
    ) -> None:  # fmt: skip
        t = view.tournament
        removed = view.removed & set(match.players)
        decided: Match | None = None
        if removed:
            await self.end_games(tx, view, match, step, t.organiser_id)
            decided = forfeited(match, view.removed, better=view.seeds)
        elif match.status == "waiting":
            if match.first_ready and match.second_ready:
                decided = match.with_changes(status="playing", start_by=None)
                await tx.save_match(decided)
                step.changed[match.id] = decided
                await self.start_game(tx, t, decided, 0, policy, step, now)
                return
            if match.start_by is not None and match.start_by <= now:
                decided = no_show(match, better=view.seeds, elimination=t.format == "single")
        else:
            games = view.games_of(match)
            if any(g.running for g in games):
                return
            outcomes = view.outcomes(match)
            assert match.second is not None
            better = min(match.players, key=view.seeds.index)
            state = match_state(match.first, match.second, outcomes, t.best_of,
                                t.format == "single", better)  # fmt: skip
            if not state.over:
                await self.start_game(tx, t, match, len(outcomes), policy, step, now)
                return
            result: MatchResult = (
                "draw" if state.winner is None
                else "first" if state.winner == match.first else "second"
            )  # fmt: skip
            decided = match.with_changes(status="done", result=result)
        if decided is not None:
            await tx.save_match(decided)
            step.changed[match.id] = decided

    async def start_game(
        self, tx: Transaction, t: Tournament, match: Match, played: int, policy: ServerPolicy,
        step: Step, now: float,
    ) -> None:  # fmt: skip
        """The match's next game, ``played`` games in: sides alternate from its first."""
        assert match.second is not None
        x, o = (match.first, match.second) if played % 2 == 0 else (match.second, match.first)
        game = rules.new_game(
            guild_id=t.guild_id, channel_id=match.thread_id or t.channel_id, size=t.size,
            player_x=x, player_o=o, now=now, locale=t.locale, variant=t.variant,
        ).with_changes(tournament_match_id=match.id)  # fmt: skip
        game = await tx.create_game(rules.start_clock(game, now, policy.turn_timeout))
        step.new_games.append(game)
        log.info("game %d started: tournament %d, match %d, game %d", game.id, t.id,
                 match.number, played + 1)  # fmt: skip

    async def end_games(
        self, tx: Transaction, view: TournamentView, match: Match, step: Step, by: int
    ) -> None:
        """End the match's running games with no result, as stopped by ``by`` (the
        match was decided around them)."""
        for game in view.games_of(match):
            stored = await tx.get_game(game.id)  # as it is now: a move may have got in
            if stored is not None and stored.running:
                ended = rules.stopped(stored, by, self.clock())
                step.ended_games.append(await tx.save_game(ended, expected_ply=stored.ply))


def next_pairs(view: TournamentView) -> list[pairing.Pair]:
    """The pairs of the round after the one just finished; [] when it was the last."""
    t = view.tournament
    active = [p for p in view.seeds if p not in view.removed]
    if t.format == "single":
        if t.round == 0:
            return pairing.first_round(view.seeds)
        winners = [m.winner for m in view.round_matches(t.round)]
        alive = [w for w in winners if w is not None]
        return [] if len(alive) <= 1 else pairing.next_round(alive)
    if t.format == "round_robin":
        schedule = pairing.round_robin(view.seeds)
        return schedule[t.round] if t.round < len(schedule) else []
    if t.round >= t.rounds or len(active) < 2:
        return []
    results = view.results()
    return pairing.swiss_round(
        active, points(active, results), played_pairs(results), had_bye(results)
    )


def forfeited(match: Match, removed: set[int], better: list[int]) -> Match:
    """A match with a removed player: the other goes through (both removed: the better
    seed, as in a no-show)."""
    gone = removed & set(match.players)
    if len(gone) == 1:
        result: MatchResult = "second" if match.first in gone else "first"
    else:
        result = (
            "first" if better.index(match.first) < better.index(match.second or 0) else "second"
        )
    return match.with_changes(status="done", result=result, forfeit=True, start_by=None)


def no_show(match: Match, better: list[int], elimination: bool) -> Match:
    """The match's time to start ran out: whoever pressed Ready takes it; if neither
    did, both lose (single elimination: the better seed goes through)."""
    if match.first_ready != match.second_ready:
        result: MatchResult = "first" if match.first_ready else "second"
    elif elimination:
        second = match.second if match.second is not None else match.first
        result = "first" if better.index(match.first) < better.index(second) else "second"
    else:
        result = "none"
    return match.with_changes(status="done", result=result, forfeit=True, start_by=None)


def champion(view: TournamentView) -> int | None:
    t = view.tournament
    if t.format == "single":
        final = view.round_matches(t.round)
        return final[0].winner if len(final) == 1 else None
    standing = [s for s in view.standings() if s.player not in view.removed]
    return standing[0].player if standing else None
