"""Discord's per-route rate limits, on the routes the emulator limits (the OAuth2 token
route, and opening a DM): ``limit`` calls a ``window`` of seconds from the first call of
a window, every answer telling the bucket's state in ``X-RateLimit-*`` headers, and a
call past the limit answered 429 with ``Retry-After`` (topics/rate-limits: the headers,
the body ``{"message", "retry_after", "global"}``, and ``Via`` as Discord's answers come
through its proxy; discord.py takes a 429 without it for a Cloudflare ban).

It counts what a test asserts: the calls made, the 429s drawn, and the calls made while a
Retry-After it had given (or a 429 injected on the route) was still running, which a
client obeying Discord never makes."""

from __future__ import annotations

import json
import math
import time
from typing import TYPE_CHECKING

from aiohttp import web

if TYPE_CHECKING:
    from .server import DiscordEmulator

TOKEN_LIMIT, TOKEN_WINDOW = 50, 1.0
"""The token route's default bucket: wide enough for the suite's sign-ins one after
another; a test of limits sets its own (:meth:`RouteLimit.set`). Discord documents no
figure: a client must read the headers, which is what is tested."""


DM_LIMIT, DM_WINDOW = 50, 1.0
"""``POST /users/@me/channels``'s default bucket (Discord documents none, and answers
429s there to bots that open many DMs): wide for the suite; a test of it sets its own."""


class RouteLimit:
    """One route's bucket (shared by every caller: the token route is the application's)."""

    def __init__(self, emu: DiscordEmulator, bucket: str, limit: int, window: float) -> None:
        self.emu = emu
        self.bucket = bucket
        self.limit = limit
        self.window = window
        self.calls = 0
        """Calls that reached the route."""
        self.limited = 0
        """Calls answered 429 for being past the limit."""
        self.early = 0
        """Calls made while a Retry-After the route had given was still running."""
        self._used = 0
        self._reset: float | None = None
        self._retry_until = -math.inf

    def set(self, limit: int, window: float) -> None:
        """``limit`` calls a ``window`` of seconds from now on (a new window)."""
        self.limit, self.window, self._reset = limit, window, None

    def admit(self) -> tuple[dict[str, str], web.Response | None]:
        """The headers of a call's answer, and the 429 itself when it is past the limit."""
        now = self.emu.now()
        self.calls += 1
        if now < self._retry_until:
            self.early += 1
        if self._reset is None or now >= self._reset:
            self._reset, self._used = now + self.window, 0
        self._used += 1
        reset_after = self._reset - now
        headers = {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(max(0, self.limit - self._used)),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": self.bucket,
        }
        if self._used <= self.limit:
            return headers, None
        self.limited += 1
        self._retry_until = max(self._retry_until, self._reset)
        body = {"message": "You are being rate limited.", "retry_after": round(reset_after, 3),
                "global": False}  # fmt: skip
        headers |= {"Retry-After": str(math.ceil(reset_after)), "X-RateLimit-Scope": "user",
                    "Via": "1.1 google", "Content-Type": "application/json"}  # fmt: skip
        return headers, web.Response(body=json.dumps(body).encode(), status=429, headers=headers)

    def told_to_wait(self, seconds: float) -> None:
        """A 429 answered on the route otherwise (injected): calls within it are early."""
        self._retry_until = max(self._retry_until, self.emu.now() + seconds)


class RateLimits:
    """The emulator's limited routes, by REST handler name."""

    def __init__(self, emu: DiscordEmulator) -> None:
        self.token = RouteLimit(emu, "oauth2-token", TOKEN_LIMIT, TOKEN_WINDOW)
        """``POST /oauth2/token``."""
        self.dm = RouteLimit(emu, "create-dm", DM_LIMIT, DM_WINDOW)
        """``POST /users/@me/channels`` (opening a DM)."""
        self.routes = {"oauth_token": self.token, "create_dm": self.dm}
