"""Discord's rate limits on the calls the sign-in makes outside discord.py's client (the
OAuth2 code exchange, ``/users/@me`` with the member's token), kept for the process.

Discord tells its limits in each answer (``X-RateLimit-Limit``, ``-Remaining``,
``-Reset-After``, ``-Bucket``) and, past them, answers 429 with ``Retry-After`` (and
``retry_after`` in the body; ``X-RateLimit-Global`` or ``"global": true`` for every route
of the caller). It bans an address that draws 10,000 answers of 401, 403 or 429 in ten
minutes. So a call is made only while Discord's last word allows it; otherwise the caller
is told at once how long to wait, and waits nowhere here (a sign-in refused is answered,
not queued). Pure but for the injected clock, as discord.py's ``Ratelimit`` is but
without its sleeping.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

UNKNOWN_WAIT = 1.0
"""Seconds a caller is told to wait while the one call a bucket not yet known may have in
flight is out (discord.py's start, a limit of one, until the first answer tells more)."""
TOLD_NOTHING_WAIT = 60.0
"""Seconds to wait after a 429 that says no more (no Retry-After: not Discord's API but
its Cloudflare front, which bans the address for much longer than any bucket's reset)."""
KEPT = 10_000
"""Buckets and callers remembered; past that the longest idle are forgotten."""


class _Bucket:
    __slots__ = ("known", "limit", "outgoing", "remaining", "reset_at")

    def __init__(self) -> None:
        self.known = False  # no answer with limits yet: one call at a time
        self.limit = 1
        self.remaining = 1
        self.outgoing = 0
        self.reset_at: float | None = None


class OAuthLimiter:
    """Discord's rate limits on routes called outside discord.py, for one process.

    ``take`` before each call, then exactly one of ``answered`` (any HTTP answer) or
    ``unanswered`` (none came: a timeout, a closed connection) after it. ``who`` names the
    caller Discord counts the call against: ``""`` for the application (the token route,
    authenticated by the client's credentials), a digest of the member's token for a
    call made with it (a user's limits are that user's own).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._buckets: OrderedDict[tuple[str, str], _Bucket] = OrderedDict()
        self._hashes: dict[str, str] = {}
        """Each route's bucket as Discord named it (``X-RateLimit-Bucket``): routes that
        share one share its calls."""
        self._global: OrderedDict[str, float] = OrderedDict()
        """Each caller's end of a global limit (a 429 with ``global``)."""
        self._banned_until = 0.0
        """The end of a 429 from Discord's front rather than its API: every call waits."""

    def wait(self, route: str, who: str = "") -> float:
        """The seconds until a call of ``route`` by ``who`` may be made; 0.0: now."""
        now = self.clock()
        until = max(self._banned_until, self._global.get(who, 0.0))
        if until > now:
            return until - now
        bucket = self._bucket(route, who)
        if bucket.reset_at is not None and now >= bucket.reset_at:
            bucket.remaining = bucket.limit - bucket.outgoing
            bucket.reset_at = None
        if bucket.remaining > 0:
            return 0.0
        return bucket.reset_at - now if bucket.reset_at is not None else UNKNOWN_WAIT

    def take(self, route: str, who: str = "") -> float:
        """0.0 when the call may be made now (one of its bucket's calls is then taken for
        it); else the seconds until one may (:meth:`wait`), and nothing is taken."""
        wait = self.wait(route, who)
        if wait == 0.0:
            bucket = self._bucket(route, who)
            bucket.remaining -= 1
            bucket.outgoing += 1
        return wait

    def answered(
        self, route: str, status: int, headers: Mapping[str, str], body: Any, who: str = ""
    ) -> None:
        """What an answer to a call :meth:`take` allowed tells of the limits: its
        ``X-RateLimit-*`` headers, and a 429's wait (the longer of ``Retry-After`` and the
        body's ``retry_after``; for every route of ``who`` when it is global)."""
        now = self.clock()
        named = headers.get("X-RateLimit-Bucket")
        if named:
            self._share(route, who, named)
        bucket = self._bucket(route, who)
        bucket.outgoing = max(0, bucket.outgoing - 1)
        limit = _number(headers.get("X-RateLimit-Limit"))
        remaining = _number(headers.get("X-RateLimit-Remaining"))
        reset_after = _number(headers.get("X-RateLimit-Reset-After"))
        if status == 429:
            self._told_to_wait(bucket, who, headers, body, now)
            if not bucket.known and bucket.reset_at is None:  # a wait for all, not it
                bucket.remaining = max(0, 1 - bucket.outgoing)
        elif limit is not None and remaining is not None and limit >= 1:
            left = max(0, int(remaining) - bucket.outgoing)  # those out may count yet
            fresh = not bucket.known or int(limit) != bucket.limit
            bucket.known, bucket.limit = True, int(limit)
            bucket.remaining = left if fresh else min(bucket.remaining, left)
            if reset_after is not None:
                ends = now + max(0.0, reset_after)
                running = bucket.reset_at if bucket.reset_at is not None else now
                bucket.reset_at = max(running, ends) if running > now else ends
        elif not bucket.known:  # still nothing said: one call at a time
            bucket.remaining = max(0, 1 - bucket.outgoing)

    def unanswered(self, route: str, who: str = "") -> None:
        """A call :meth:`take` allowed got no answer (Discord may have counted it)."""
        bucket = self._bucket(route, who)
        bucket.outgoing = max(0, bucket.outgoing - 1)
        if not bucket.known:
            bucket.remaining = max(0, 1 - bucket.outgoing)

    def _told_to_wait(
        self, bucket: _Bucket, who: str, headers: Mapping[str, str], body: Any, now: float
    ) -> None:
        sent = body if isinstance(body, dict) else {}
        waits = [w for w in (_number(headers.get("Retry-After")),
                             _number(sent.get("retry_after"))) if w is not None]  # fmt: skip
        wait = max(waits) if waits else TOLD_NOTHING_WAIT
        until = now + max(0.0, wait)
        if not isinstance(body, dict):  # not Discord's API answering: its front's ban
            self._banned_until = max(self._banned_until, until)
        elif (headers.get("X-RateLimit-Global", "").lower() == "true" or sent.get("global") is True
              or headers.get("X-RateLimit-Scope") == "global"):  # fmt: skip
            self._global[who] = max(self._global.get(who, 0.0), until)
            self._global.move_to_end(who)
            if len(self._global) > KEPT:
                self._global.popitem(last=False)
        else:
            bucket.remaining = 0
            bucket.reset_at = max(bucket.reset_at or 0.0, until)

    def _bucket(self, route: str, who: str) -> _Bucket:
        key = (who, self._hashes.get(route, route))
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket()
            if len(self._buckets) > KEPT:
                self._forget(key)
        self._buckets.move_to_end(key)
        return bucket

    def _forget(self, keep: tuple[str, str]) -> None:
        """Drop the longest idle bucket with no call out (one with a call out must see
        its answer; so must the one just made)."""
        for key, bucket in self._buckets.items():
            if key != keep and bucket.outgoing == 0:
                del self._buckets[key]
                return

    def _share(self, route: str, who: str, named: str) -> None:
        """``route``'s calls counted in the bucket Discord named (its state moved there,
        unless that bucket is already known)."""
        old = self._hashes.get(route, route)
        if old == named:
            return
        self._hashes[route] = named
        mine = self._buckets.pop((who, old), None)
        shared = self._buckets.get((who, named))
        if mine is not None and shared is None:
            self._buckets[(who, named)] = mine
        elif mine is not None and shared is not None:  # its calls out are answered there
            shared.outgoing += mine.outgoing


def _number(raw: object) -> float | None:
    """A header's or body's number of seconds or calls; None for anything else."""
    if isinstance(raw, bool) or raw is None:
        return None
    try:
        value = float(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None
