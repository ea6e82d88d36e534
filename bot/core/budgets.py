"""Keyed budgets for costly requests (STYLE.md rule 17, after lila's ``memo/RateLimit``),
shared fairly: each key (a member) has credits that come back at a steady pace, so has
each place (a server; a DM counts as its channel) and so has everyone together. A
request spends one credit of each, and is refused at once, never queued, when one of
them is spent. Pure: no I/O; the clock is injected.

The fairness rule (docs/run/under-abuse.md, "Fair shares"): no member takes more than
``per_key`` a window, no place more than ``per_place`` (by default a quarter of the
overall), and the last quarter of the overall (:data:`RESERVE_SHARE`) is kept for quiet
places, those that spent no more than one member's worth lately. So accounts of one
server, however many, spend at most their server's share, and when a few servers spend
the overall down to the reserve, a member of a quiet server is still served from it.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass

KEYS_KEPT = 100_000
"""Keys (and places) a budget remembers; past that the longest idle is forgotten (it had
its credits back long ago, or nearly: forgetting it gives it at most a full purse early)."""
PLACE_SHARE = 0.25
"""The share of the overall one place may spend by default (``TTT_WEB_SERVER_SHARE``)."""
RESERVE_SHARE = 0.25
"""The share of the overall kept for quiet places: a busy place is refused once the
overall is down to it, a quiet one is still served."""


def place_of(guild_id: int | None, channel_id: int) -> tuple[str, int]:
    """Whose share a request (or a game's engine work) is of: its server's, or in a DM
    (no server) its channel's."""
    return ("channel", channel_id) if guild_id is None else ("server", guild_id)


@dataclass(frozen=True, slots=True)
class Spent:
    """A refusal: whose credits ran out (``"member"``, ``"place"`` or ``"overall"``), and
    the seconds until one comes back for this request."""

    whose: str
    retry_after: float


class _Purse:
    __slots__ = ("at", "credits")

    def __init__(self, credits: float, at: float) -> None:
        self.credits = credits
        self.at = at


class _Purses:
    """One purse of ``size`` credits per key, refilled over ``window``; at most
    :data:`KEYS_KEPT` remembered."""

    def __init__(self, size: int, window: float) -> None:
        self.size = size
        self.window = window
        self._purses: OrderedDict[Hashable, _Purse] = OrderedDict()

    def of(self, key: Hashable, now: float) -> _Purse:
        purse = self._purses.get(key)
        if purse is None:
            purse = self._purses[key] = _Purse(float(self.size), now)
            if len(self._purses) > KEYS_KEPT:
                self._purses.popitem(last=False)
        else:
            self._purses.move_to_end(key)
            _refill(purse, self.size, self.window, now)
        return purse


class Budget:
    """``per_key`` credits for each key, ``per_place`` for each place (default: the
    larger of ``per_key`` and :data:`PLACE_SHARE` of ``overall``) and ``overall`` for
    all together, each refilled in full over ``window`` seconds (one credit every
    ``window / n``). A request without a place is held to its key's and the overall's
    credits alone, the reserve included.

    Raises:
        ValueError: a budget of no credits, or a window that is not a positive number.
    """

    def __init__(
        self, name: str, *, per_key: int, overall: int, window: float,
        per_place: int | None = None, clock: Callable[[], float] = time.monotonic,
    ) -> None:  # fmt: skip
        if per_place is None:
            per_place = max(per_key, math.ceil(overall * PLACE_SHARE))
        if min(per_key, overall, per_place) < 1:
            raise ValueError(f"budget {name}: credits must be at least 1")
        if not (math.isfinite(window) and window > 0):
            raise ValueError(f"budget {name}: the window must be a positive number of seconds")
        self.name = name
        self.per_key = per_key
        self.per_place = per_place
        self.overall = overall
        self.reserve = math.floor(overall * RESERVE_SHARE)
        """Credits of the overall that only quiet places may spend."""
        self.window = window
        self.clock = clock
        self.refused = 0
        """Requests refused so far (for /metrics and tests)."""
        self._keys = _Purses(per_key, window)
        self._places = _Purses(per_place, window)
        self._all = _Purse(float(overall), clock())

    def spend(self, key: Hashable, place: Hashable | None = None) -> Spent | None:
        """Spend a credit of ``key``'s, one of ``place``'s and one of the overall: None
        when each had one for it, else why not (and nothing is spent)."""
        now = self.clock()
        mine = self._keys.of(key, now)
        _refill(self._all, self.overall, self.window, now)
        spent = self._check(mine, place, now)
        if spent is not None:
            self.refused += 1
            return spent
        for purse in (mine, self._all, *self._place_purse(place, now)):
            purse.credits -= 1
        return None

    def _check(self, mine: _Purse, place: Hashable | None, now: float) -> Spent | None:
        if mine.credits < 1:
            return Spent("member", self._wait(mine.credits, 1, self.per_key))
        if self._all.credits < 1:
            return Spent("overall", self._wait(self._all.credits, 1, self.overall))
        if place is None:  # held to the member's and the overall's credits alone
            return None
        ours = self._places.of(place, now)
        if ours.credits < 1:
            return Spent("place", self._wait(ours.credits, 1, self.per_place))
        quiet = self.per_place - self.per_key  # a quiet place has at least this left
        floor = 1 if ours.credits >= quiet else self.reserve + 1
        if self._all.credits < floor:  # the overall, or the reserve a busy place is kept from
            wait = self._wait(self._all.credits, floor, self.overall)
            if floor > 1:  # or until the place is quiet again, if sooner
                wait = min(wait, self._wait(ours.credits, quiet, self.per_place))
            return Spent("overall", wait)
        return None

    def _place_purse(self, place: Hashable | None, now: float) -> tuple[_Purse, ...]:
        return () if place is None else (self._places.of(place, now),)

    def _wait(self, credits: float, needed: float, size: int) -> float:
        """Seconds until a purse of ``size`` holding ``credits`` holds ``needed``."""
        return max(0.0, needed - credits) * self.window / size


def _refill(purse: _Purse, size: int, window: float, now: float) -> None:
    elapsed = max(0.0, now - purse.at)
    purse.credits = min(float(size), purse.credits + elapsed * size / window)
    purse.at = now
