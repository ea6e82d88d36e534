"""The one place that runs a tournament: sign-up, the start, Ready, results, the next
round, the organiser's removals, corrections and cancelling, and the deadlines (sign-up
closing, a match nobody started). The service checks who may act and holds the lock;
what sign-up and the start change is in :mod:`~bot.core.tournaments.signup`, what the
organiser corrects in :mod:`~bot.core.tournaments.corrections`.

Every change is one transaction under the tournament's lock (a named lock every process
sharing the database takes), and ends by settling it (:class:`~bot.core.tournaments.
progress.Progress`): whatever progress is due, a match's next game, a decided match, the
next round's pairings, the champion. Settling is idempotent, so a process that died
half-way is caught up by the next one to look (:meth:`TournamentService.catch_up` at
start-up; :meth:`TournamentService.unshown` at each timekeeper pass for what was never
shown), and pairings are computed once, by whichever process holds the lock when a round
ends.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Collection
from dataclasses import replace
from functools import partial

from bot.core.alarm import DeadlineAlarm, deadline_added
from bot.core.models import Game
from bot.core.policies import PolicyBook
from bot.core.policy import ServerPolicy
from bot.core.refusals import Refusal
from bot.core.repository import Conflict, Repository, Transaction
from bot.core.start_rules import check_channel, check_role
from bot.core.tournaments import corrections, signup
from bot.core.tournaments.models import Match, Tournament
from bot.core.tournaments.progress import OPENING_CLAIM, Change, Progress, Step, read
from bot.core.tournaments.signup import Setup
from bot.core.tournaments.view import TournamentView

log = logging.getLogger(__name__)

Clock = Callable[[], float]


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
        self.progress = Progress(clock)

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
        signup.check_setup(setup)
        policy = await self.policies.policy(guild_id)
        check_channel(policy, channel_id)
        tournament = signup.new_tournament(
            setup, guild_id=guild_id, channel_id=channel_id, organiser_id=organiser_id,
            locale=policy.public_locale(locale), now=self.clock(),
        )  # fmt: skip
        closes = tournament.signup_closes_at
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
        check_role(await self._policy_of(tournament_id), role_ids)

        change = partial(signup.join, user_id=user_id, name=name, clock=self.clock)
        return await self._change(tournament_id, change)

    async def leave(self, tournament_id: int, user_id: int) -> TournamentView:
        """Raises: Refusal: sign-up closed, or not signed up."""
        return await self._change(tournament_id, partial(signup.leave, user_id=user_id))

    # --- the organiser ------------------------------------------------------------------

    async def start(self, channel_id: int, user_id: int, *, may_manage: bool) -> TournamentView:
        """Close sign-up and play the first round now.

        Raises:
            Refusal: not the organiser, no tournament in sign-up here, too few players.
        """
        t = await self._managed(channel_id, user_id, may_manage)
        return await self._change(t.id, partial(signup.start, rng=self.rng))

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
        return await self._change(t.id, partial(corrections.remove, member_id=member_id))

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
        change = partial(corrections.correct, number=number, winner_id=winner_id,
                         progress=self.progress, by=user_id)  # fmt: skip
        return await self._change(t.id, change)

    async def cancel(self, channel_id: int, user_id: int, *, may_manage: bool) -> TournamentView:
        """End the tournament with no champion; games running in it end with no result.

        Raises:
            Refusal: not the organiser, or no tournament here.
        """
        t = await self._managed(channel_id, user_id, may_manage)
        change = partial(corrections.cancel, progress=self.progress, by=user_id)
        return await self._change(t.id, change)

    async def view_in(self, channel_id: int) -> TournamentView:
        """The tournament in sign-up or running in the channel (or the match thread's).

        Raises:
            Refusal: none here.
        """
        t = await self.repo.active_tournament_in(channel_id)
        if t is None:
            raise Refusal("tournament.none")
        return await read(self.repo, t)

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

        async def ready(tx: Transaction, t: Tournament, step: Step) -> None:
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

        async def nothing(tx: Transaction, t: Tournament, step: Step) -> None:
            return None

        return await self._change(match.tournament_id, nothing)

    # --- deadlines ----------------------------------------------------------------------

    async def expire_due(self) -> list[TournamentView]:
        """Sign-ups whose time ran out and matches whose players did not all show up."""
        views = []
        for tournament_id in await self.repo.tournaments_due(self.clock()):
            views.append(await self._change(tournament_id, self._due))
        return views

    async def _due(self, tx: Transaction, t: Tournament, step: Step) -> None:
        """A sign-up whose time ran out starts, or is cancelled with too few players;
        settling then resolves the matches whose time ran out."""
        closes = t.signup_closes_at
        due = t.status == "signup" and closes is not None and closes <= self.clock()
        if due and not await signup.begin(tx, t, self.rng):
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
                view = await read(self.repo, t)
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

    async def _change(self, tournament_id: int, change: Change) -> TournamentView:
        """Run ``change`` and then settle, in one transaction under the tournament's lock.

        Raises:
            Refusal: what ``change`` refuses (nothing is stored then), or no such
                tournament.
        """
        t0 = await self.repo.get_tournament(tournament_id)
        if t0 is None:
            raise Refusal("tournament.none")
        policy = await self.policies.policy(t0.guild_id)  # read before: not in the lock
        step = Step()
        async with self.repo.atomic() as tx:
            await tx.serialize(("tournament", tournament_id))
            t = await tx.get_tournament(tournament_id)
            if t is None:
                raise Refusal("tournament.none")
            await change(tx, t, step)
            t = await tx.get_tournament(tournament_id) or t
            await self.progress.settle(tx, t, policy, step)
            view = await read(tx, await tx.get_tournament(tournament_id) or t)
        await self._deadlines_added(
            [g.turn_deadline for g in step.new_games] + [m.start_by for m in step.opened]
        )
        return _with(view, new_games=step.new_games, ended_games=step.ended_games,
                     opened=step.opened, changed=list(step.changed.values()))  # fmt: skip

    async def _deadlines_added(self, deadlines: list[float | None]) -> None:
        soonest = min((d for d in deadlines if d is not None), default=None)
        await deadline_added(self.alarm, self.repo.notify, soonest, self.clock())


def _with(view: TournamentView, **changes: object) -> TournamentView:
    return replace(view, **{k: tuple(v) for k, v in changes.items()})  # type: ignore[arg-type]
