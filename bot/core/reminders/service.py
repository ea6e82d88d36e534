"""Reminders as a service: a member's choice (set privately, validated here), and the
outbox's rows claimed, checked and marked for the sender (:mod:`bot.discord_ui.reminder_sender`),
which only draws and sends. Nothing here runs on a click's path: the rows a move makes due
are written by the move's own write (see :mod:`bot.storage.outbox_rows`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

from bot.core.models import Challenge, Game, GameUpdate
from bot.core.refusals import Refusal
from bot.core.reminders.models import (
    MODES,
    WARNINGS,
    Mode,
    Reminder,
    ReminderSetting,
    challenge_waits_for,
    next_digest,
    waiting_for,
    waits_for,
)
from bot.core.repository import Repository
from bot.core.service import GameService

Clock = Callable[[], float]
RETRY_FIRST, RETRY_MAX, RETRY_TRIES = 60.0, 3600.0, 6
"""A DM Discord failed (a 5xx, 50001, the connection): tried again after a minute,
doubling to an hour, and dropped after six tries."""
DIGEST_BATCH, DIGEST_EVERY = 100, 60.0
"""Members whose digest time came, claimed at once; and seconds between two looks, which
fall on whole minutes as digest times do (a look made seconds before a member's minute
must not hold their digest back: the sender, told by :meth:`Reminders.next_due` that it
is due, would find nothing to claim and wake again at once until the next look)."""
OFFSETS = range(-12 * 60, 14 * 60 + 1, 15)
"""UTC offsets, in minutes, a member may give (UTC-12:00 to UTC+14:00, by quarter hours:
every zone in use is one)."""


KEPT_DONE, PRUNE_EVERY = 8 * 86400.0, 3600.0
"""Seconds an outbox row is kept once done with (sent, dropped), and between two prunes.
Its unique key (member, game, ply, kind) is what keeps a turn reminded once; a row is
written again only by the move, challenge or digest day that wrote it, all past within
a pace's longest (7 days): a day more, and the outbox holds about a week of reminders,
not all of them ever."""

CHALLENGE_UNPOSTED_RETRY, CHALLENGE_UNPOSTED_TRIES = 10.0, 30
"""Seconds before a challenge's DM is looked at again when its message is not posted yet
(another process claimed the row between the challenge's transaction and its post), and
the looks before it is dropped: five minutes, far past a post's time. (A challenge whose
post never came, its process killed in between, would otherwise be looked at every ten
seconds for up to the week it stays open; its challenger is told by the challenge's
lapse, and the member can still find it in ``/ttt games``.)"""


@dataclass(frozen=True, slots=True)
class ToSend:
    """A claimed reminder, with what its DM shows: the game for a turn's reminder; the
    games waiting for the member, and the challenges waiting for their answer, for a
    digest; the challenge for a ``challenge``."""

    reminder: Reminder
    games: tuple[GameUpdate, ...]
    challenges: tuple[Challenge, ...] = ()
    locale: str | None = None
    """The member's language, as they last chose reminders in (None: not known)."""


class Reminders:
    def __init__(self, repo: Repository, games: GameService, *, clock: Clock) -> None:
        self.repo = repo
        self.games = games
        self.clock = clock
        self.wake = games.reminders_due
        """Set to wake the sender now (a correspondence move stored here, a member chose
        reminders, a test moved time)."""
        self._digests_next = -math.inf
        """When to look for members whose digest time came again (on :attr:`clock`)."""
        self._digests_more = False
        """Whether the last look took a full batch (more may be due at once)."""
        self._prune_next = -math.inf
        """When to forget the outbox's old rows next (on :attr:`clock`)."""
        self._untold: set[int] = set()
        """Members marked unreachable and not told yet, as last read (by the sender's
        passes): an interaction of anyone else costs no read."""

    # --- a member's choice ---------------------------------------------------------------

    async def setting(self, member_id: int) -> ReminderSetting:
        return await self.repo.reminder_setting(member_id) or ReminderSetting(member_id)

    async def choose(
        self, member_id: int, mode: str, *, hour: int | None = None, utc_offset: int = 0,
        warnings: bool | None = None, locale: str | None = None,
    ) -> ReminderSetting:  # fmt: skip
        """Store the member's choice: ``mode`` off, every (move) or digest (at ``hour`` of
        their day, ``utc_offset`` minutes east of UTC); ``warnings`` a DM 12 h and 1 h
        before a deadline (None: as before, but off with ``mode`` off: "off" means no DM);
        ``locale``, the language they chose in, that of their DMs (None: as before).
        Choosing again makes an unreachable member tried again.

        Raises:
            Refusal: an unknown mode (``notify.bad_mode``), a digest without an hour or
                one outside 0–23 (``notify.bad_hour``), an offset outside UTC-12 to
                UTC+14 (``notify.bad_offset``).
        """
        if mode not in MODES:
            raise Refusal("notify.bad_mode")
        if utc_offset not in OFFSETS:
            raise Refusal("notify.bad_offset")
        before = await self.setting(member_id)
        minute: int | None = None
        next_at: float | None = None
        if mode == "digest":
            if hour is None or not 0 <= hour <= 23:
                raise Refusal("notify.bad_hour")
            minute = (hour * 60 - utc_offset) % 1440
            next_at = next_digest(self.clock(), minute)
        chosen: Mode = mode  # one of MODES, checked above
        setting = replace(
            before, mode=chosen, digest_minute=minute, utc_offset=utc_offset,
            warnings=_warnings(mode, before.warnings, warnings), unreachable=False,
            told=False, next_digest_at=next_at, locale=locale or before.locale,
        )  # fmt: skip
        await self.repo.set_reminder_setting(setting, self.clock())
        self.games.forget_games_of(member_id)  # their games' remind marks changed
        self._untold.discard(member_id)
        self.wake.set()
        return setting

    async def offer_once(self, member_id: int) -> bool:
        """True the first time a member's correspondence game is to offer reminders."""
        return await self.repo.offer_reminders_once(member_id, self.clock())

    # --- the unreachable, told once ----------------------------------------------------

    async def refresh_untold(self) -> None:
        self._untold = await self.repo.untold_unreachable()

    async def tell_unreachable(self, member_id: int) -> bool:
        """Whether to tell ``member_id`` now that their DMs do not reach them: once, by
        the one process whose mark lands; no read for anyone not in the last list."""
        if member_id not in self._untold:
            return False
        self._untold.discard(member_id)
        return await self.repo.take_told(member_id)

    # --- the outbox ----------------------------------------------------------------------

    async def next(self) -> ToSend | None:
        """The next due reminder still worth sending, claimed (``sending``), in the
        member's language; rows for a game already moved in or ended are dropped on the
        way. None when none is due."""
        item = await self._next()
        if item is None:
            return None
        setting = await self.repo.reminder_setting(item.reminder.member_id)
        return item if setting is None else replace(item, locale=setting.locale)

    async def _next(self) -> ToSend | None:
        now = self.clock()
        if now >= self._digests_next:  # digests fall on the minute: no need to ask more
            await self._claim_digests(now)
        while True:
            claimed = await self.repo.claim_reminders(now, 1)
            if not claimed:
                if self._digests_more and await self._claim_digests(now):
                    continue
                return None
            (reminder,) = claimed
            if reminder.kind == "challenge":
                item = await self._challenge(reminder, now)
                if item is not None:
                    return item
                continue
            shown = await self._what_to_show(reminder)
            challenges = await self._challenges_of(reminder.member_id, now, reminder.kind)
            if shown or challenges:
                return ToSend(reminder, shown, challenges)
            await self.repo.reminder_dropped(reminder.id)

    async def _challenge(self, reminder: Reminder, now: float) -> ToSend | None:
        """A challenge's DM, if it still waits for the member and they have not blocked
        the challenger since (else dropped; None); one whose message is not posted yet
        is put back for a few seconds (None), or made due at once if the post landed
        while the row was claimed (the post's mark, :meth:`Repository.reminder_challenge_posted`,
        changes only a due row)."""
        member = reminder.member_id
        challenge = await self.repo.get_challenge(reminder.game_id)
        if (
            challenge is not None
            and challenge_waits_for(challenge, member, now)
            and not await self.repo.blockers_between(member, challenge.challenger_id)
        ):
            if challenge.message_id is not None:
                return ToSend(reminder, (), (challenge,))
            if reminder.attempts <= CHALLENGE_UNPOSTED_TRIES:  # counted from its first claim
                await self.repo.reminder_retry(reminder.id, now + CHALLENGE_UNPOSTED_RETRY)
                again = await self.repo.get_challenge(challenge.id)
                if again is not None and again.message_id is not None:
                    # posted since the read: its mark found the row claimed, not due
                    await self.repo.reminder_challenge_posted(challenge.id, now)
                return None
        await self.repo.reminder_dropped(reminder.id)
        return None

    async def _challenges_of(self, member: int, now: float, kind: str) -> tuple[Challenge, ...]:
        """For a digest: the correspondence challenges waiting for the member's answer,
        soonest to lapse first, without a blocked challenger's."""
        if kind != "digest":
            return ()
        _, challenges = await self.repo.games_list_of(member, now)
        waiting = [c for c in challenges if challenge_waits_for(c, member, now)
                   and not await self.repo.blockers_between(member, c.challenger_id)]  # fmt: skip
        return tuple(sorted(waiting, key=lambda c: (c.expires_at, c.id)))

    async def _claim_digests(self, now: float) -> int:
        """A batch of members whose digest time came, written as due rows. A full batch
        may leave more: the next is claimed as soon as the outbox has nothing due, so a
        digest hour of thousands goes at the DM rate (a batch a minute would cap it at
        :data:`DIGEST_BATCH` a minute), and a move's reminder made due meanwhile goes
        before the next batch, never behind thousands of digests."""
        self._digests_next = now - now % DIGEST_EVERY + DIGEST_EVERY
        claimed = await self.repo.claim_digests(now, DIGEST_BATCH)
        self._digests_more = claimed >= DIGEST_BATCH
        return claimed

    async def _what_to_show(self, reminder: Reminder) -> tuple[GameUpdate, ...]:
        member = reminder.member_id
        if reminder.kind == "digest":
            games = [g for g in await self.repo.games_waiting_on(member) if waiting_for(g, member)]
            return tuple([await self.games.update(g) for g in games])
        update = await self.games.current(reminder.game_id)
        if update is None or not waits_for(update.game, member, reminder.ply):
            return ()  # moved in, or ended: nothing to remind
        if reminder.kind in WARNING_KINDS and not _warning_fits(reminder.kind, update.game,
                                                                 self.clock()):  # fmt: skip
            return ()  # a sender late (a backlog, a process down): a warning out of date
        return (update,)

    async def sent(self, reminder: Reminder) -> None:
        await self.repo.reminder_sent(reminder.id)

    async def failed(self, reminder: Reminder) -> float | None:
        """Discord failed for now: due again after a backoff (when, returned), or dropped
        after :data:`RETRY_TRIES` tries (None)."""
        if reminder.attempts >= RETRY_TRIES:
            await self.repo.reminder_dropped(reminder.id)
            return None
        at: float = self.clock() + min(RETRY_FIRST * 2.0 ** (reminder.attempts - 1), RETRY_MAX)
        await self.repo.reminder_retry(reminder.id, at)
        return at

    async def unreachable(self, reminder: Reminder) -> None:
        """Discord answered 50007: the member is marked, this row and theirs dropped."""
        await self.repo.reminder_dropped(reminder.id)
        await self.repo.mark_unreachable(reminder.member_id)
        self.games.forget_games_of(reminder.member_id)
        self._untold.add(reminder.member_id)

    async def prune(self) -> int:
        """Forget the outbox rows done with for :data:`KEPT_DONE` (at most once in
        :data:`PRUNE_EVERY`; every process may: the delete is the same); how many."""
        now = self.clock()
        if now < self._prune_next:
            return 0
        self._prune_next = now + PRUNE_EVERY
        return await self.repo.prune_outbox(now - KEPT_DONE)

    async def next_due(self) -> float | None:
        due = await self.repo.next_reminder_due()
        return None if due is None else float(due)


def _warnings(mode: str, before: bool, asked: bool | None) -> bool:
    """Deadline warnings after a choice: as asked; not asked, as before, except that
    turning reminders off turns them off too (the reply says no DM will come)."""
    if asked is not None:
        return asked
    return False if mode == "off" else before


WARNING_KINDS = frozenset(kind for kind, _ in WARNINGS)


def _warning_fits(kind: str, game: Game, now: float) -> bool:
    """Whether a deadline warning still says the truth when it goes: not once the
    deadline has passed, and a 12-hour warning not once the 1-hour one is due (a late
    sender would send both at once)."""
    deadline = game.turn_deadline
    if deadline is None or deadline <= now:
        return False
    return kind != "warn12" or deadline - now > dict(WARNINGS)["warn1"]
