"""The one place that runs a tournament: sign-up, the start, Ready, results, the next
round, the organiser's removals, corrections and cancelling, and the deadlines (sign-up
closing, a match nobody started).

Every change is one transaction under the tournament's lock (a named lock every process
sharing the database takes), and ends with :meth:`_settle`, which makes whatever progress
is due: a match's next game, a decided match, the next round's pairings, the champion.
Settling is idempotent, so a process that died half-way is caught up by the next one to
look (:meth:`catch_up` at start-up), and pairings are computed once, by whichever process
holds the lock when a round ends.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field, replace

from bot.core import rules
from bot.core.alarm import DeadlineAlarm, deadline_added
from bot.core.models import Game
from bot.core.policies import PolicyBook
from bot.core.policy import SIZES, ServerPolicy
from bot.core.rating import INITIAL_RATING
from bot.core.refusals import Refusal
from bot.core.repository import Conflict, Repository, Transaction
from bot.core.tournaments import pairing
from bot.core.tournaments.models import Entrant, Format, Match, MatchResult, Tournament
from bot.core.tournaments.standings import had_bye, match_state, played_pairs, points
from bot.core.tournaments.view import TournamentView

log = logging.getLogger(__name__)

Clock = Callable[[], float]
MIN_PLAYERS = 2
MAX_PLAYERS = 64
OPENING_CLAIM = 60.0
"""Seconds a process holds the opening of a match's thread before another may retry it
(it died between storing the match and showing it)."""


@dataclass(frozen=True, slots=True)
class Setup:
    """What the organiser chose in /ttt tournament create."""

    name: str
    format: Format
    size: int = 3
    best_of: int = 1
    max_players: int = 16
    rounds: int = 0
    """Swiss only: the rounds to play (0: enough to tell the players apart)."""
    signup_seconds: float | None = None
    """Sign-up closes and play starts this long after creation; None: by hand."""
    show_up: float = 600.0


@dataclass(slots=True)
class _Step:
    """What one transaction changed, for the view it returns."""

    new_games: list[Game] = field(default_factory=list)
    ended_games: list[Game] = field(default_factory=list)
    opened: list[Match] = field(default_factory=list)
    changed: dict[int, Match] = field(default_factory=dict)


class TournamentService:
    def __init__(
        self, repo: Repository, policies: PolicyBook, *, clock: Clock, rng: random.Random,
        alarm: DeadlineAlarm,
    ) -> None:  # fmt: skip
        self.repo = repo
        self.policies = policies
        self.clock = clock
        self.rng = rng
        self.alarm = alarm

    # --- sign-up ------------------------------------------------------------------------

    async def create(
        self, setup: Setup, *, guild_id: int, channel_id: int, organiser_id: int,
        may_manage: bool, locale: str | None = None,
    ) -> TournamentView:  # fmt: skip
        """A tournament in sign-up in ``channel_id``, by a member with Manage Server.

        Raises:
            Refusal: not allowed to organise, a choice out of range, a channel games may
                not start in, or one that already holds a tournament.
        """
        if not may_manage:
            raise Refusal("tournament.not_organiser")
        if setup.size not in SIZES or setup.best_of not in (1, 3):
            raise Refusal("tournament.bad_setup")
        if not MIN_PLAYERS <= setup.max_players <= MAX_PLAYERS:
            raise Refusal("tournament.bad_setup")
        policy = await self.policies.policy(guild_id)
        if policy.allowed_channels and channel_id not in policy.allowed_channels:
            channels = ", ".join(f"<#{c}>" for c in policy.allowed_channels)
            raise Refusal("start.channel_not_allowed", channels=channels)
        now = self.clock()
        rounds = setup.rounds if setup.format == "swiss" else 0
        closes = None if setup.signup_seconds is None else now + setup.signup_seconds
        tournament = Tournament(
            id=0, guild_id=guild_id, channel_id=channel_id, message_id=None,
            organiser_id=organiser_id, name=setup.name.strip()[:80] or "Tournament",
            format=setup.format, rounds=rounds, size=setup.size, best_of=setup.best_of,
            max_players=setup.max_players, signup_closes_at=closes, show_up=setup.show_up,
            status="signup", round=0, created_at=now, locale=policy.public_locale(locale),
        )  # fmt: skip
        try:
            tournament = await self.repo.create_tournament(tournament)
        except Conflict:
            raise Refusal("tournament.busy") from None
        log.info("tournament %d created in channel %d: %s, %s", tournament.id, channel_id,
                 tournament.format, tournament.name)  # fmt: skip
        await self._deadlines_added([closes])
        return TournamentView(tournament, ())

    async def attach_message(self, tournament: Tournament, message_id: int) -> Tournament:
        await self.repo.set_tournament_message(tournament.id, message_id)
        return tournament.with_changes(message_id=message_id)

    async def join(
        self, tournament_id: int, user_id: int, role_ids: Collection[int] = (), name: str = ""
    ) -> TournamentView:
        """Raises: Refusal: sign-up closed, already in, full, or the server's start role."""
        policy = await self._policy_of(tournament_id)
        if policy.start_role is not None and policy.start_role not in role_ids:
            raise Refusal("start.role_required", role=f"<@&{policy.start_role}>")

        async def join(tx: Transaction, t: Tournament, step: _Step) -> None:
            if t.status != "signup":
                raise Refusal("tournament.signup_closed")
            entrants = await tx.entrants(t.id)
            if any(e.user_id == user_id for e in entrants):
                raise Refusal("tournament.already_in")
            if len(entrants) >= t.max_players:
                raise Refusal("tournament.full", count=t.max_players)
            await tx.add_entrant(t.id, Entrant(user_id, name or str(user_id), self.clock()))

        return await self._change(tournament_id, join)

    async def leave(self, tournament_id: int, user_id: int) -> TournamentView:
        """Raises: Refusal: sign-up closed, or not signed up."""

        async def leave(tx: Transaction, t: Tournament, step: _Step) -> None:
            if t.status != "signup":
                raise Refusal("tournament.signup_closed")
            if not await tx.drop_entrant(t.id, user_id):
                raise Refusal("tournament.not_in")

        return await self._change(tournament_id, leave)

    # --- the organiser ------------------------------------------------------------------

    async def start(self, channel_id: int, user_id: int, *, may_manage: bool) -> TournamentView:
        """Close sign-up and play the first round now.

        Raises:
            Refusal: not the organiser, no tournament in sign-up here, too few players.
        """
        t = await self._managed(channel_id, user_id, may_manage)

        async def start(tx: Transaction, t: Tournament, step: _Step) -> None:
            if t.status != "signup":
                raise Refusal("tournament.already_started")
            if not await self._begin(tx, t):
                raise Refusal("tournament.too_few", count=MIN_PLAYERS)

        return await self._change(t.id, start)

    async def remove(
        self, channel_id: int, user_id: int, member_id: int, *, may_manage: bool
    ) -> TournamentView:
        """Take a player out: in sign-up they simply leave; once it runs, their match in
        play is forfeited (a game running in it ends with no result) and so is every
        match they would have played.

        Raises:
            Refusal: not the organiser, no tournament here, not a player in it.
        """
        t = await self._managed(channel_id, user_id, may_manage)

        async def remove(tx: Transaction, t: Tournament, step: _Step) -> None:
            entrants = {e.user_id: e for e in await tx.entrants(t.id)}
            entrant = entrants.get(member_id)
            if entrant is None or entrant.removed:
                raise Refusal("tournament.not_player", member_id=member_id)
            if t.status == "signup":
                await tx.drop_entrant(t.id, member_id)
                return
            await tx.save_entrant(t.id, replace(entrant, removed=True))
            log.info("tournament %d: player %d removed", t.id, member_id)

        return await self._change(t.id, remove)

    async def correct(
        self, channel_id: int, user_id: int, number: int, winner_id: int | None, *,
        may_manage: bool,
    ) -> TournamentView:  # fmt: skip
        """Set a match's result by hand (``winner_id`` None: a draw, outside single
        elimination). A match of the round being played, or any match of a round robin
        or Swiss (whose later pairings it does not undo); a game still running in it
        ends with no result.

        Raises:
            Refusal: not the organiser, no such match, a winner who does not play in it,
                a draw in single elimination, or a round already built on it.
        """
        t = await self._managed(channel_id, user_id, may_manage)

        async def correct(tx: Transaction, t: Tournament, step: _Step) -> None:
            if t.status not in ("running", "finished"):
                raise Refusal("tournament.not_running")
            view = await self._read(tx, t)
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
            await self._end_games(tx, view, match, step, user_id)
            decided = match.with_changes(status="done", result=result, forfeit=True,
                                         start_by=None)  # fmt: skip
            await tx.save_match(decided)
            step.changed[match.id] = decided
            if t.status == "finished":  # the table changes, and maybe the champion
                after = await self._read(tx, t)
                await tx.save_tournament(t.with_changes(champion=_champion(after)))
            log.info("tournament %d: match %d corrected to %s", t.id, number, result)

        return await self._change(t.id, correct)

    async def cancel(self, channel_id: int, user_id: int, *, may_manage: bool) -> TournamentView:
        """End the tournament with no champion; games running in it end with no result.

        Raises:
            Refusal: not the organiser, or no tournament here.
        """
        t = await self._managed(channel_id, user_id, may_manage)

        async def cancel(tx: Transaction, t: Tournament, step: _Step) -> None:
            view = await self._read(tx, t)
            for match in view.matches:
                if match.status != "done":
                    await self._end_games(tx, view, match, step, user_id)
                    # undecided, and no longer waiting for anyone (nor its deadline)
                    closed = match.with_changes(status="done", start_by=None)
                    await tx.save_match(closed)
                    step.changed[match.id] = closed
            await tx.save_tournament(t.with_changes(status="cancelled"))
            log.info("tournament %d cancelled", t.id)

        return await self._change(t.id, cancel)

    async def view_in(self, channel_id: int) -> TournamentView:
        """The tournament in sign-up or running in the channel (or the match thread's).

        Raises:
            Refusal: none here.
        """
        t = await self.repo.active_tournament_in(channel_id)
        if t is None:
            raise Refusal("tournament.none")
        return await self._read(self.repo, t)

    # --- players ------------------------------------------------------------------------

    async def ready(self, match_id: int, user_id: int) -> TournamentView:
        """A player of the match says they are here; once both are, its first game
        starts.

        Raises:
            Refusal: not a player of this match, or the match is no longer waiting.
        """
        match = await self.repo.get_match(match_id)
        if match is None:
            raise Refusal("tournament.match_over")
        if user_id not in match.players:
            raise Refusal("tournament.not_your_match")

        async def ready(tx: Transaction, t: Tournament, step: _Step) -> None:
            current = await tx.get_match(match_id)
            if current is None or current.status != "waiting" or t.status != "running":
                raise Refusal("tournament.match_over")
            flag = "first_ready" if user_id == current.first else "second_ready"
            if getattr(current, flag):
                raise Refusal("tournament.already_ready")
            changed = current.with_changes(**{flag: True})
            await tx.save_match(changed)
            step.changed[changed.id] = changed

        return await self._change(match.tournament_id, ready)

    async def game_ended(self, game: Game) -> TournamentView | None:
        """A game of a match ended: decide the match, or start its next game; None if the
        game is no tournament's."""
        match_id = game.tournament_match_id
        if match_id is None or game.running:
            return None
        match = await self.repo.get_match(match_id)
        if match is None:
            return None

        async def nothing(tx: Transaction, t: Tournament, step: _Step) -> None:
            return None

        return await self._change(match.tournament_id, nothing)

    # --- deadlines ----------------------------------------------------------------------

    async def expire_due(self) -> list[TournamentView]:
        """Sign-ups whose time ran out and matches whose players did not all show up."""
        views = []
        for tournament_id in await self.repo.tournaments_due(self.clock()):
            views.append(await self._change(tournament_id, self._due))
        return views

    async def _due(self, tx: Transaction, t: Tournament, step: _Step) -> None:
        """A sign-up whose time ran out starts, or is cancelled with too few players;
        settling then resolves the matches whose time ran out."""
        closes = t.signup_closes_at
        due = t.status == "signup" and closes is not None and closes <= self.clock()
        if due and not await self._begin(tx, t):
            await tx.save_tournament(t.with_changes(status="cancelled"))
            log.info("tournament %d cancelled at the close of sign-up: too few players", t.id)

    async def catch_up(self) -> list[TournamentView]:
        """At start-up: settle every running tournament, and show what a process that
        died never showed (a match without its thread, a game without its board)."""
        views = []
        for tournament_id in await self.repo.running_tournaments():
            view = await self._change(tournament_id, self._due)
            views.append(await self._unshown(view, posted_before=self.clock()))
        return views

    async def unshown(self) -> list[TournamentView]:
        """Tournaments with a match whose thread was never opened and whose opener's claim
        ran out (Discord refused it, or the process died), or a game never posted: each
        pass of a timekeeper looks, so a failure is retried within a claim's length."""
        views = []
        for tournament_id in await self.repo.tournaments_unshown(self.clock(), OPENING_CLAIM):
            t = await self.repo.get_tournament(tournament_id)
            if t is not None:
                view = await self._read(self.repo, t)
                views.append(await self._unshown(view, self.clock() - OPENING_CLAIM))
        return views

    async def _unshown(self, view: TournamentView, posted_before: float) -> TournamentView:
        """``view`` with what to show again: its matches without a thread (each claimed
        for this process), and its running games without a board created before
        ``posted_before`` (a younger one may be being posted by its process)."""
        now = self.clock()
        unopened = [
            m for m in view.matches
            if m.status != "done" and m.message_id is None and m.second is not None
            and await self.repo.claim_match_opening(m.id, now, now + OPENING_CLAIM)
        ]  # fmt: skip
        unposted = [
            g for g in view.games
            if g.running and g.message_id is None and g.created_at <= posted_before
        ]  # fmt: skip
        return _with(view, opened=unopened, new_games=unposted)

    async def place_match(self, match: Match, thread_id: int, message_id: int) -> bool:
        """Remember where the match's thread and message are; False if another process
        placed it first."""
        return await self.repo.place_match(match.id, thread_id, message_id)

    # --- internals ----------------------------------------------------------------------

    async def _policy_of(self, tournament_id: int) -> ServerPolicy:
        t = await self.repo.get_tournament(tournament_id)
        if t is None:
            raise Refusal("tournament.none")
        return await self.policies.policy(t.guild_id)

    async def _managed(self, channel_id: int, user_id: int, may_manage: bool) -> Tournament:
        t = await self.repo.active_tournament_in(channel_id)
        if t is None:
            raise Refusal("tournament.none")
        if not may_manage and user_id != t.organiser_id:
            raise Refusal("tournament.not_organiser")
        return t

    async def _change(
        self,
        tournament_id: int,
        change: Callable[[Transaction, Tournament, _Step], Awaitable[None]],
    ) -> TournamentView:
        """Run ``change`` and then settle, in one transaction under the tournament's lock.

        Raises:
            Refusal: what ``change`` refuses (nothing is stored then), or no such
                tournament.
        """
        t0 = await self.repo.get_tournament(tournament_id)
        if t0 is None:
            raise Refusal("tournament.none")
        policy = await self.policies.policy(t0.guild_id)  # read before: not in the lock
        step = _Step()
        async with self.repo.atomic() as tx:
            await tx.serialize(("tournament", tournament_id))
            t = await tx.get_tournament(tournament_id)
            if t is None:
                raise Refusal("tournament.none")
            await change(tx, t, step)
            t = await tx.get_tournament(tournament_id) or t
            await self._settle(tx, t, policy, step)
            view = await self._read(tx, await tx.get_tournament(tournament_id) or t)
        await self._deadlines_added(
            [g.turn_deadline for g in step.new_games] + [m.start_by for m in step.opened]
        )
        return _with(view, new_games=step.new_games, ended_games=step.ended_games,
                     opened=step.opened, changed=list(step.changed.values()))  # fmt: skip

    async def _read(self, store: Repository | Transaction, t: Tournament) -> TournamentView:
        entrants = await store.entrants(t.id)
        matches = await store.matches(t.id)
        games = await store.tournament_games(t.id)
        return TournamentView(t, tuple(entrants), tuple(matches), tuple(games))

    async def _begin(self, tx: Transaction, t: Tournament) -> bool:
        """Seed the players by the server's ratings and start round 1; False (nothing
        changed) with fewer than two."""
        entrants = await tx.entrants(t.id)
        if len(entrants) < MIN_PLAYERS:
            return False
        ratings = await tx.ratings_of(t.guild_id, [e.user_id for e in entrants])
        order = pairing.seed(
            {e.user_id: ratings.get(e.user_id, INITIAL_RATING) for e in entrants}, self.rng
        )
        by_user = {e.user_id: e for e in entrants}
        for number, user_id in enumerate(order, start=1):
            await tx.save_entrant(t.id, replace(by_user[user_id], seed=number))
        rounds = t.rounds
        if t.format == "swiss" and rounds <= 0:
            rounds = max(1, (len(order) - 1).bit_length())
        await tx.save_tournament(t.with_changes(status="running", round=0, rounds=rounds))
        log.info("tournament %d started with %d players", t.id, len(order))
        return True

    async def _settle(
        self, tx: Transaction, t: Tournament, policy: ServerPolicy, step: _Step
    ) -> None:
        """Make every bit of progress that is due, until none is."""
        if t.status != "running":
            return
        now = self.clock()
        while True:
            view = await self._read(tx, t)
            if t.round > 0:
                for match in view.round_matches(t.round):
                    if match.status != "done":
                        await self._settle_match(tx, view, match, policy, step, now)
                view = await self._read(tx, t)
                if any(m.status != "done" for m in view.round_matches(t.round)):
                    return
            pairs = self._next_pairs(view)
            if not pairs:
                champion = _champion(view)
                await tx.save_tournament(t.with_changes(status="finished", champion=champion))
                log.info("tournament %d finished: champion %s", t.id, champion)
                return
            t = await self._next_round(tx, view, pairs, step, now)

    def _next_pairs(self, view: TournamentView) -> list[pairing.Pair]:
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

    async def _next_round(
        self, tx: Transaction, view: TournamentView, pairs: list[pairing.Pair], step: _Step,
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
                match = _forfeited(match, removed, better=view.seeds)
            match = await tx.insert_match(match)
            if match.status == "waiting":
                await tx.claim_match_opening(match.id, now, now + OPENING_CLAIM)
                step.opened.append(match)
        t = t.with_changes(round=number)
        await tx.save_tournament(t)
        log.info("tournament %d: round %d, %d matches", t.id, number, len(pairs))
        return t

    async def _settle_match(
        self, tx: Transaction, view: TournamentView, match: Match, policy: ServerPolicy,
        step: _Step, now: float,
    ) -> None:  # fmt: skip
        t = view.tournament
        removed = view.removed & set(match.players)
        decided: Match | None = None
        if removed:
            await self._end_games(tx, view, match, step, t.organiser_id)
            decided = _forfeited(match, view.removed, better=view.seeds)
        elif match.status == "waiting":
            if match.first_ready and match.second_ready:
                decided = match.with_changes(status="playing", start_by=None)
                await tx.save_match(decided)
                step.changed[match.id] = decided
                await self._start_game(tx, t, decided, 0, policy, step, now)
                return
            if match.start_by is not None and match.start_by <= now:
                decided = _no_show(match, better=view.seeds, elimination=t.format == "single")
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
                await self._start_game(tx, t, match, len(outcomes), policy, step, now)
                return
            result: MatchResult = (
                "draw" if state.winner is None
                else "first" if state.winner == match.first else "second"
            )  # fmt: skip
            decided = match.with_changes(status="done", result=result)
        if decided is not None:
            await tx.save_match(decided)
            step.changed[match.id] = decided

    async def _start_game(
        self, tx: Transaction, t: Tournament, match: Match, played: int, policy: ServerPolicy,
        step: _Step, now: float,
    ) -> None:  # fmt: skip
        """The match's next game, ``played`` games in: sides alternate from its first."""
        assert match.second is not None
        x, o = (match.first, match.second) if played % 2 == 0 else (match.second, match.first)
        game = rules.new_game(
            guild_id=t.guild_id, channel_id=match.thread_id or t.channel_id, size=t.size,
            player_x=x, player_o=o, now=now, locale=t.locale,
        ).with_changes(tournament_match_id=match.id)  # fmt: skip
        game = await tx.create_game(rules.start_clock(game, now, policy.turn_timeout))
        step.new_games.append(game)
        log.info("game %d started: tournament %d, match %d, game %d", game.id, t.id,
                 match.number, played + 1)  # fmt: skip

    async def _end_games(
        self, tx: Transaction, view: TournamentView, match: Match, step: _Step, by: int
    ) -> None:
        """End the match's running games with no result, as stopped by ``by`` (the
        match was decided around them)."""
        for game in view.games_of(match):
            stored = await tx.get_game(game.id)  # as it is now: a move may have got in
            if stored is not None and stored.running:
                ended = rules.stopped(stored, by, self.clock())
                step.ended_games.append(await tx.save_game(ended, expected_ply=stored.ply))

    async def _deadlines_added(self, deadlines: list[float | None]) -> None:
        soonest = min((d for d in deadlines if d is not None), default=None)
        await deadline_added(self.alarm, self.repo.notify, soonest, self.clock())


def _forfeited(match: Match, removed: set[int], better: list[int]) -> Match:
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


def _no_show(match: Match, better: list[int], elimination: bool) -> Match:
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


def _champion(view: TournamentView) -> int | None:
    t = view.tournament
    if t.format == "single":
        final = view.round_matches(t.round)
        return final[0].winner if len(final) == 1 else None
    standing = [s for s in view.standings() if s.player not in view.removed]
    return standing[0].player if standing else None


def _with(view: TournamentView, **changes: object) -> TournamentView:
    return replace(view, **{k: tuple(v) for k, v in changes.items()})  # type: ignore[arg-type]
