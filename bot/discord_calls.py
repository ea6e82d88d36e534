"""How the process's calls to Discord are made and watched, for the parts that do not hold
discord.py's client themselves: the bot's REST client handed to the web service (its
buckets and global lock, shared with every other call), and the count of the answers
that get an address banned (401, 403 and 429: 10,000 in ten minutes), read from every
HTTP session that talks to Discord through an aiohttp trace.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import Counter, deque
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import aiohttp
import discord
from discord.http import Route

log = logging.getLogger(__name__)

CALL_TIMEOUT = 5.0
"""Seconds a web request's call may take, its waits for Discord's limits included."""
INVALID = (401, 403, 429)
"""The answers Discord counts against an address (Cloudflare bans it at 10,000 in ten
minutes), except a 429 of a shared resource's limit."""
WARN_AT = 1_000
WINDOW = 600.0
WARN_EVERY = 60.0
"""Seconds between two warnings while the count stays past :data:`WARN_AT`."""


class DiscordPyRest:
    """The web service's bot-token calls (:class:`bot.web.bot_rest.BotRest`), made by
    discord.py's HTTP client: they wait for its buckets and its global lock as any call
    of the bot does."""

    def __init__(self, http: discord.http.HTTPClient, *, timeout: float = CALL_TIMEOUT) -> None:
        self.http = http
        self.timeout = timeout

    async def get(self, path: str, /, **params: int | str) -> tuple[int, dict[str, Any]]:
        """Raises: OSError: no answer within :attr:`timeout` (waits included) or at all."""
        try:
            async with asyncio.timeout(self.timeout):
                fill: dict[str, Any] = dict(params)  # Route's keywords: metadata, or a name
                data = await self.http.request(Route("GET", path, **fill))
        except discord.HTTPException as exc:
            return exc.status, {"code": exc.code, "message": exc.text}
        except aiohttp.ClientError as exc:
            raise ConnectionError(f"{type(exc).__name__}: {exc}") from exc
        return 200, data if isinstance(data, dict) else {}


class InvalidAnswers:
    """The 401, 403 and 429 answers this process drew from Discord: by status since the
    start (``on_answer`` is told each, for /metrics), and within the last
    :data:`WINDOW` seconds, past :data:`WARN_AT` of which the log warns (again at most
    every :data:`WARN_EVERY` seconds while it stays past)."""

    def __init__(
        self, on_answer: Callable[[int], None] | None = None, *,
        clock: Callable[[], float] = time.monotonic, warn_at: int = WARN_AT,
        window: float = WINDOW,
    ) -> None:  # fmt: skip
        self.on_answer = on_answer
        self.clock = clock
        self.warn_at = warn_at
        self.window = window
        self.total: Counter[int] = Counter()
        self._times: deque[float] = deque(maxlen=10 * warn_at)  # "at least" past that
        self._warned = -math.inf

    def drew(self, status: int, *, shared: bool = False) -> None:
        """One answer of ``status`` (any: only 401, 403 and 429 count); ``shared``: a
        429 of a shared resource's limit, which Discord does not hold against the
        address."""
        if status not in INVALID:
            return
        self.total[status] += 1
        if self.on_answer is not None:
            self.on_answer(status)
        if shared and status == 429:
            return
        now = self.clock()
        self._times.append(now)
        count = self.recent(now)
        if count >= self.warn_at and now - self._warned >= WARN_EVERY:
            self._warned = now
            log.warning(
                "Discord answered %d requests of this process with 401, 403 or 429 in the last "
                "%d minutes (by status since the start: %s); at 10,000 Discord bans the address "
                "for every process on it: look for what keeps asking", count,
                round(self.window / 60), dict(sorted(self.total.items())),
            )  # fmt: skip

    def recent(self, now: float | None = None) -> int:
        """The answers counted within the last :attr:`window` seconds."""
        now = self.clock() if now is None else now
        while self._times and self._times[0] <= now - self.window:
            self._times.popleft()
        return len(self._times)


def answers_trace(invalid: InvalidAnswers) -> aiohttp.TraceConfig:
    """A trace for an aiohttp session to Discord: each answer's status told to
    ``invalid`` (a fresh trace for each session)."""
    trace = aiohttp.TraceConfig()

    async def answered(
        session: aiohttp.ClientSession, context: SimpleNamespace,
        params: aiohttp.TraceRequestEndParams,
    ) -> None:  # fmt: skip
        response = params.response
        invalid.drew(response.status,
                     shared=response.headers.get("X-RateLimit-Scope") == "shared")  # fmt: skip

    trace.on_request_end.append(answered)
    return trace
