"""Each interaction that comes over HTTP is answered once, whatever process it reaches.

Discord signs each interaction it POSTs, and the signature holds for anyone who captured
the request (from a log, a proxy): sent again within the timestamp's window (five
minutes, :data:`bot.web.signature.MAX_SKEW`), it would be answered again, a second game
started, a private answer (a hint, stats) given to whoever sent it. So the endpoint
claims each interaction's id before anything is routed, and a request whose id was
claimed already is refused. The claim lives in the database, not in this process's
memory: several gateway-less processes share one database behind a proxy that hands a
request to any of them, so a replay sent to another process must find it too.

Claims are kept :data:`KEEP` seconds past their interaction's creation and then deleted,
by whichever process claims next, once every :data:`PURGE_EVERY` seconds at most.

Each process also remembers the ids it saw claimed (by itself, or found claimed by
another) as long as the database keeps them, up to :data:`RECENT` of them: a copy sent
to this process again is refused from memory, with no database round trip or insert.
The database stays the authority: an id forgotten here (the oldest first, past the
bound) is still refused by its claim there.

An interaction whose claim fails (the database out of reach) is not routed (the endpoint
answers it with an apology), and is remembered here: a copy is refused by this process,
and it is claimed in the database after the outage, with the next claims that get
through, so that no process answers a copy of it later. Over the gateway nothing is
claimed: Discord sends each event once, over a connection nobody else can write to.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from itertools import islice

from bot.web.signature import MAX_SKEW

Claim = Callable[[int, int | None], Awaitable[bool]]
"""``Store.claim_interaction``: an id claimed, and the ids below a bound forgotten."""

DISCORD_EPOCH_MS = 1_420_070_400_000
"""A snowflake's time is milliseconds since this (2015-01-01), shifted 22 bits left."""
KEEP = 2 * MAX_SKEW
"""Seconds a claim is kept past its interaction's creation (Discord's clock, from the
snowflake). A replay passes the timestamp check while that timestamp is less than
:data:`MAX_SKEW` behind this machine's clock, and Discord's timestamp is its clock's
too, within a second of the creation: so a claim is needed for :data:`MAX_SKEW` after
it, however wrong this machine's clock is. The second :data:`MAX_SKEW` is spare."""
PURGE_EVERY = 60.0
"""Seconds between two deletions of old claims by one process: one range delete a
minute, not one per interaction."""
UNCLAIMED = 10_000
"""Interactions that could not be claimed, remembered at most (the oldest forgotten
first): five minutes of an outage at 30 a second."""
RECENT = 50_000
"""Claimed ids a process remembers at most: :data:`KEEP` (ten minutes) of 80
interactions a second; past it the oldest are forgotten first (a copy of one is then
refused by the database, as a copy sent to another process is)."""
LATE_CLAIMS = 16
"""Of those, claimed at most with each claim that gets through: the interaction making
it waits for them, so a few at a time."""


def snowflake_at(seconds: float) -> int:
    """The lowest snowflake Discord makes at ``seconds`` (``time.time()``'s scale)."""
    return max(0, int(seconds * 1000) - DISCORD_EPOCH_MS) << 22


class Replays:
    """Tells an interaction's first arrival, at any process, from a replay."""

    def __init__(
        self, claim: Claim, *, clock: Callable[[], float] = time.time, keep: float = KEEP,
        purge_every: float = PURGE_EVERY,
    ) -> None:  # fmt: skip
        self._claim = claim
        self._clock = clock
        self._keep = keep
        self._purge_every = purge_every
        self._purged_at = -purge_every
        self.unclaimed: dict[int, float] = {}
        """Interactions whose claim failed, with when (oldest first), until claimed."""
        self.recent: dict[int, None] = {}
        """Ids seen claimed (in the order seen: about their creation's), while their
        claims are kept."""
        self.claims = 0
        """Claims asked of the database since the start (late ones included)."""

    async def first(self, interaction_id: int) -> bool:
        """Whether the interaction arrives here first of all processes (it is claimed
        now); False for a replay.

        Raises:
            Exception: the claim could not be made (the database out of reach: what the
                endpoint then answers is its own choice); the interaction is then
                remembered, refused if it comes again, claimed once claims get through.
        """
        now = self._clock()
        kept_from = snowflake_at(now - self._keep)  # the ids made since, kept by the database
        self._forget_recent(kept_from)
        if interaction_id in self.unclaimed or interaction_id in self.recent:
            return False  # a copy this process saw: no database asked
        if interaction_id >= kept_from:  # before the claim: a copy arriving meanwhile is
            self.recent[interaction_id] = None  # refused here; whatever the claim says, the
            if len(self.recent) > RECENT:  # id is taken (here, or by another process)
                del self.recent[next(iter(self.recent))]
        forget: int | None = None
        if now - self._purged_at >= self._purge_every:
            self._purged_at = now  # tried again a minute on if this claim fails
            forget = kept_from
        try:
            self.claims += 1
            first = await self._claim(interaction_id, forget)
        except BaseException:
            self._remember(interaction_id, now)
            raise
        if self.unclaimed:
            await self._claim_late(now)
        return first

    def _forget_recent(self, kept_from: int) -> None:
        """Drop the ids made more than :data:`KEEP` ago, as the database does (a copy's
        timestamp is refused by then, before its claim is looked at). Seen in about the
        order made: one seen late waits behind those seen before it."""
        recent = self.recent
        while recent and (oldest := next(iter(recent))) < kept_from:
            del recent[oldest]

    def _remember(self, interaction_id: int, now: float) -> None:
        self.unclaimed[interaction_id] = now
        while len(self.unclaimed) > UNCLAIMED:
            del self.unclaimed[next(iter(self.unclaimed))]

    async def _claim_late(self, now: float) -> None:
        """Claim a few of the interactions that could not be claimed (those older than
        :data:`KEEP` need none: their timestamp is refused by now)."""
        for interaction_id, failed_at in list(islice(self.unclaimed.items(), LATE_CLAIMS)):
            if now - failed_at < self._keep:
                try:
                    self.claims += 1
                    await self._claim(interaction_id, None)  # False: it got in after all
                except Exception:
                    return  # the database failed again: later
            del self.unclaimed[interaction_id]
