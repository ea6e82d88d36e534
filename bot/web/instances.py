"""The Activity instances members sign in from, as Discord tells the bot, kept a short
while: a running one with its participants for :data:`RUNNING_FOR` seconds, an id
Discord does not know (its 404) for :data:`UNKNOWN_FOR`. Both are bounded (the oldest
goes first), so neither a page's every intent nor a flood of junk ids asks Discord more
than once an instance per while.

An id nobody vouches for yet (a sign-in from an instance not kept) costs one call with
the bot's token, the token every game's message is sent with: such reads have a budget
of their own (:class:`~bot.core.budgets.Budget`, a minute's worth), refused at once when
spent, so a flood of distinct junk ids spends neither Discord's limits for the bot nor
the sign-ins of instances already known. The budget has three shares junk cannot move
between: a new launch in a channel where an instance ran before (its id names the place,
``i-<launch>-gc-<guild>-<channel>``); an id asked before and refused (the page tries
again with the same id, while a flood of distinct ids asks each once); and the rest.
"""

from __future__ import annotations

import asyncio
import math
import re
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from bot.core.budgets import Budget
from bot.i18n import text
from bot.web.bot_rest import BotRest
from bot.web.errors import WebRefusal

RUNNING_FOR = 30.0
"""Seconds a running instance's participants are trusted (a member who left is refused
an intent within this)."""
UNKNOWN_FOR = 60.0
"""Seconds an id Discord answered 404 for stays refused without asking again (an
instance id is made at launch and never comes back once ended)."""
FAILED_FOR = 10.0
"""Seconds after Discord did not answer a read of an instance during which a session's
member it listed is trusted on that read, and it is not asked again for a session: a
hiccup of Discord's must not cost every intent a read's timeout."""
ASKED_FOR = 300.0
"""Seconds an id refused a lookup is remembered: a page asking again (its six tries take
about a minute) draws on the share of ids asked before."""
KEPT = 10_000
"""Instances kept of each kind (running, unknown), places and refused ids remembered."""
LOOKUP_WINDOW = 60.0
PLACE = re.compile(r"i-\d+-((?:gc-\d+-|pc-)\d+)")
"""The place an instance id names (Discord's shape; another shape is a new place)."""


def not_running() -> WebRefusal:
    return WebRefusal(403, "not_in_instance", "this Activity instance is not running: open "
                      "it from Discord to play")  # fmt: skip


def told_wait(seconds: float) -> tuple[int, float]:
    """A wait as a page is told it: whole seconds for the reason (at least 1), and its
    ``retry_after`` in milliseconds rounded up, never 0 (a page told 0 comes back at once,
    to be refused again)."""
    return max(1, math.ceil(seconds)), max(0.001, math.ceil(seconds * 1000) / 1000)


def busy(seconds: float, locale: str, *, code_spent: bool) -> WebRefusal:
    """A sign-in refused for now: a budget of everyone's (lookups, the instances') or
    Discord's limit says wait ``seconds``."""
    whole, after = told_wait(seconds)
    return WebRefusal(429, "busy", text("web.sign_in_busy", locale, seconds=whole),
                      retry_after=after, code_spent=code_spent)  # fmt: skip


def lookup_budget(per_minute: int, clock: Callable[[], float] = time.monotonic) -> Budget:
    """``per_minute`` reads of ids not kept for places seen before, as many for ids asked
    before and refused, as many for the rest (keys ``"seen"``, ``"again"``, ``"new"``).

    Raises:
        ValueError: a budget below one.
    """
    return Budget("instance lookup", per_key=per_minute, overall=3 * per_minute,
                  window=LOOKUP_WINDOW, clock=clock)  # fmt: skip


class Instances:
    def __init__(
        self, bot: BotRest, application_id: int, lookups: Budget,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:  # fmt: skip
        self.bot = bot
        self.application_id = application_id
        self.lookups = lookups
        self.clock = clock
        self._running: OrderedDict[str, _Kept] = OrderedDict()
        self._unknown: OrderedDict[str, float] = OrderedDict()
        """Each id Discord did not know, and when it may be asked again."""
        self._places: OrderedDict[str, None] = OrderedDict()
        self._refused: OrderedDict[str, float] = OrderedDict()
        """Ids refused a lookup, and until when asking again draws on its own share."""
        self._failed: OrderedDict[str, float] = OrderedDict()
        """Ids Discord did not answer a read of, and until when a session does not ask."""
        self._reading: dict[str, asyncio.Future[dict[str, Any]]] = {}

    async def read(
        self, instance_id: str, *, vouched: bool = False, locale: str = "en",
        again_for: int | None = None,
    ) -> dict[str, Any]:  # fmt: skip
        """The instance (``users``: its participants' ids as strings, ``location``: its
        ``channel_id`` and ``guild_id``), kept or read now. ``vouched``: a session names
        it (it was running at sign-in), so reading it spends no lookup. ``again_for``: a
        member it should list, read again if the kept one does not (they may have joined
        since, or signed in through another process), once: a member a read found absent
        is not read for again until the instance is read anew.

        When Discord does not answer a ``vouched`` read, the kept instance stands for
        :data:`FAILED_FOR` seconds for ``again_for`` if it lists them (their session's
        presence); otherwise the read is refused (502) without asking for that while.

        Raises:
            WebRefusal: 403 ``not_in_instance``, not running (now or within
                :data:`UNKNOWN_FOR`); 429 ``busy`` (``code_spent`` false), an id not kept
                while the lookups are spent; 502, Discord did not answer.
        """
        now = self.clock()
        until = self._unknown.get(instance_id)
        if until is not None and until > now:
            raise not_running()
        kept = self._running.get(instance_id)
        member = None if again_for is None else str(again_for)
        # what stands for the member when Discord does not answer: its last word on them
        standing = kept.instance if kept is not None and member in kept.users else None
        if (
            kept is not None
            and now - kept.at < RUNNING_FOR
            and (member is None or member in kept.users or member in kept.absent)
        ):
            return kept.instance
        if vouched and self._failed.get(instance_id, 0.0) > now:
            if standing is not None:
                return standing
            raise _no_answer()
        if kept is None and not vouched:
            self._look_up(instance_id, locale, now)
        try:
            instance = await self._once(instance_id)
        except WebRefusal as refused:
            if refused.status != 502 or not vouched:
                raise
            _keep(self._failed, instance_id, self.clock() + FAILED_FOR)
            if standing is not None:
                return standing
            raise
        kept, member = self._running.get(instance_id), str(again_for)
        if again_for is not None and kept is not None and member not in kept.users:
            kept.absent.add(member)
        return instance

    def _look_up(self, instance_id: str, locale: str, now: float) -> None:
        """Spend a lookup for an id nobody vouches for: of the share of places seen
        running before, else of ids asked before and refused (a page tries again with
        the same id; junk rarely does, and once read an id is kept), else of new ids.

        Raises:
            WebRefusal: 429 ``busy``, that share is spent.
        """
        place = PLACE.fullmatch(instance_id)
        if place is not None and place.group(1) in self._places:
            share = "seen"
        elif self._refused.get(instance_id, 0.0) > now:
            share = "again"
        else:
            share = "new"
        spent = self.lookups.spend(share)
        if spent is not None:
            _keep(self._refused, instance_id, now + ASKED_FOR)
            raise busy(spent.retry_after, locale, code_spent=False)
        self._refused.pop(instance_id, None)

    async def _once(self, instance_id: str) -> dict[str, Any]:
        """One read of Discord at a time per instance: those asking meanwhile share it
        (and each gets its own refusal: one exception raised in many tasks would grow
        every traceback)."""
        reading = self._reading.get(instance_id)
        if reading is None:
            reading = asyncio.ensure_future(self._fetch(instance_id))
            self._reading[instance_id] = reading
            reading.add_done_callback(lambda done: self._read(instance_id, done))
        try:
            return await asyncio.shield(reading)
        except WebRefusal as refused:
            raise WebRefusal(refused.status, refused.code, refused.reason) from None

    def _read(self, instance_id: str, done: asyncio.Future[dict[str, Any]]) -> None:
        self._reading.pop(instance_id, None)
        if not done.cancelled():
            done.exception()  # retrieved here: every asker may have gone (cancelled)

    async def _fetch(self, instance_id: str) -> dict[str, Any]:
        try:
            status, instance = await self.bot.get(
                "/applications/{application_id}/activity-instances/{instance_id}",
                application_id=self.application_id, instance_id=instance_id,
            )  # fmt: skip
        except OSError:
            raise _no_answer() from None
        now = self.clock()
        if status == 404:
            self._running.pop(instance_id, None)
            _keep(self._unknown, instance_id, now + UNKNOWN_FOR)
            raise not_running()
        if status != 200:
            raise _no_answer()
        self._failed.pop(instance_id, None)
        _keep(self._running, instance_id, _Kept(now, instance))
        place = PLACE.fullmatch(instance_id)
        if place is not None:
            _keep(self._places, place.group(1), None)
        return instance


class _Kept:
    """A running instance as read, when, and who a read for them found absent."""

    __slots__ = ("absent", "at", "instance", "users")

    def __init__(self, at: float, instance: dict[str, Any]) -> None:
        self.at = at
        self.instance = instance
        self.users = frozenset(str(user) for user in instance.get("users", ()))
        self.absent: set[str] = set()


def _no_answer() -> WebRefusal:
    return WebRefusal(502, "discord", "Discord did not answer; try again")


def _keep(kept: OrderedDict[str, Any], key: str, value: Any) -> None:
    kept[key] = value
    kept.move_to_end(key)
    if len(kept) > KEPT:
        kept.popitem(last=False)
