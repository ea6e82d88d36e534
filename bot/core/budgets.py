"""Keyed budgets for costly requests (STYLE.md rule 17, after lila's ``memo/RateLimit``):
each key (a member) has credits that come back at a steady pace, and so has everyone
together; a request spends one of its key's and one of the overall, and is refused at
once, never queued, when either is spent. Pure: no I/O; the clock is injected.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass

KEYS_KEPT = 100_000
"""Keys a budget remembers; past that the longest idle is forgotten (it had its credits
back long ago, or nearly: forgetting it gives it at most a full purse early)."""


@dataclass(frozen=True, slots=True)
class Spent:
    """A refusal: whose credits ran out (``"member"`` or ``"overall"``), and the seconds
    until the next one comes back."""

    whose: str
    retry_after: float


class _Purse:
    __slots__ = ("at", "credits")

    def __init__(self, credits: float, at: float) -> None:
        self.credits = credits
        self.at = at


class Budget:
    """``per_key`` credits for each key and ``overall`` for all keys together, each
    refilled in full over ``window`` seconds (one credit every ``window / n``).

    Raises:
        ValueError: a budget of no credits, or a window that is not a positive number.
    """

    def __init__(
        self, name: str, *, per_key: int, overall: int, window: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:  # fmt: skip
        if per_key < 1 or overall < 1:
            raise ValueError(f"budget {name}: credits must be at least 1")
        if not (math.isfinite(window) and window > 0):
            raise ValueError(f"budget {name}: the window must be a positive number of seconds")
        self.name = name
        self.per_key = per_key
        self.overall = overall
        self.window = window
        self.clock = clock
        self.refused = 0
        """Requests refused so far (for /metrics and tests)."""
        self._keys: OrderedDict[Hashable, _Purse] = OrderedDict()
        self._all = _Purse(float(overall), clock())

    def spend(self, key: Hashable) -> Spent | None:
        """Spend a credit of ``key``'s and one of the overall: None when both had one,
        else why not (and nothing is spent)."""
        now = self.clock()
        mine = self._keys.get(key)
        if mine is None:
            mine = _Purse(float(self.per_key), now)
            self._keys[key] = mine
            if len(self._keys) > KEYS_KEPT:
                self._keys.popitem(last=False)
        else:
            self._keys.move_to_end(key)
        self._refill(mine, self.per_key, now)
        self._refill(self._all, self.overall, now)
        if mine.credits < 1:
            self.refused += 1
            return Spent("member", self._wait(mine, self.per_key))
        if self._all.credits < 1:
            self.refused += 1
            return Spent("overall", self._wait(self._all, self.overall))
        mine.credits -= 1
        self._all.credits -= 1
        return None

    def _refill(self, purse: _Purse, size: int, now: float) -> None:
        elapsed = max(0.0, now - purse.at)
        purse.credits = min(float(size), purse.credits + elapsed * size / self.window)
        purse.at = now

    def _wait(self, purse: _Purse, size: int) -> float:
        return (1 - purse.credits) * self.window / size
