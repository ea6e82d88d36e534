"""Fault injection: make the next matching REST requests fail the way Discord can, or
answer them late, or hold them until the test releases them."""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from typing import Any

from aiohttp import web

KNOWN = {
    (429, None): "You are being rate limited.",
    (500, None): "500: Internal Server Error",
    (502, None): "502: Bad Gateway",
    (403, 50013): "Missing Permissions",
    (404, 10008): "Unknown Message",
    (404, 10062): "Unknown interaction",
}


@dataclass
class Fault:
    method: str
    pattern: re.Pattern[str]
    status: int
    code: int | None
    retry_after: float | None
    times: int
    hold: float = 0.0
    """Seconds the request waits before it is handled as usual (a hold, not an error)."""

    @property
    def held(self) -> bool:
        return self.hold > 0

    async def wait(self) -> None:
        await asyncio.sleep(self.hold)

    def matches(self, method: str, path: str) -> bool:
        return self.times > 0 and method == self.method and bool(self.pattern.search(path))

    def response(self) -> web.Response:
        message = KNOWN.get((self.status, self.code), f"{self.status}: injected")
        headers = {}
        if self.status == 429:
            retry = self.retry_after or 0.1
            body: dict[str, Any] = {"message": message, "retry_after": retry, "global": False}
            headers = {
                "Retry-After": str(retry),
                "X-RateLimit-Limit": "5",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset-After": str(retry),
                "X-RateLimit-Bucket": "injected",
                "X-RateLimit-Scope": "user",
                # Discord's own 429s come through its proxy; discord.py only retries a 429
                # that has this header (one without it means a Cloudflare ban).
                "Via": "1.1 google",
            }
            return _json(body, 429, headers)
        if self.status >= 500:
            return web.Response(status=self.status, text=message)
        return _json({"code": self.code or 0, "message": message}, self.status)


def _json(data: dict[str, Any], status: int, headers: dict[str, str] | None = None) -> web.Response:
    # exactly "application/json", as Discord sends: discord.py parses nothing else as JSON
    return web.Response(
        body=json.dumps(data).encode(), status=status,
        headers={"Content-Type": "application/json", **(headers or {})},
    )  # fmt: skip


class Hold:
    """Requests held where they arrived until :meth:`release`: a test acts while the bot
    waits for Discord's answer (a stop signal in the middle of its sign-in, say)."""

    def __init__(self, method: str, pattern: re.Pattern[str], times: int) -> None:
        self.method, self.pattern, self.times = method, pattern, times
        self.reached = asyncio.Event()
        """Set once a matching request arrived and is being held."""
        self.paths: list[str] = []
        """The paths of the requests held, in order."""
        self._released = asyncio.Event()

    def matches(self, method: str, path: str) -> bool:
        return self.times > 0 and method == self.method and bool(self.pattern.search(path))

    def release(self) -> None:
        """Let every request held, and any later match, be handled as usual."""
        self._released.set()

    async def wait(self, path: str) -> None:
        self.paths.append(path)
        self.reached.set()
        await self._released.wait()


class FaultPlan:
    """The faults still to inject, first match wins."""

    def __init__(self) -> None:
        self.faults: list[Fault] = []
        self.injected: list[tuple[str, str, int]] = []
        self.holds: list[Hold] = []

    def add(
        self, method: str, path: str, status: int, *, code: int | None = None,
        retry_after: float | None = None, times: int = 1,
    ) -> Fault:  # fmt: skip
        """Fail the next ``times`` requests whose path (relative to /api/v10) matches the
        regex ``path``."""
        fault = Fault(method.upper(), re.compile(path), status, code, retry_after, times)
        self.faults.append(fault)
        return fault

    def hold(self, method: str, path: str, seconds: float = 0.0, *, times: int = 1) -> Fault:
        """Answer the next ``times`` requests whose path matches the regex ``path`` only
        ``seconds`` after they arrived, as a slow Discord does; they are then handled as
        usual (an interaction's answer is judged by when it arrived). To hold one until
        the test says: :meth:`hold_until_released`."""
        fault = Fault(method.upper(), re.compile(path), 0, None, None, times, hold=seconds)
        self.faults.append(fault)
        return fault

    def hold_until_released(self, method: str, path: str, *, times: int = 1) -> Hold:
        """Hold the next ``times`` requests whose path matches the regex ``path`` until
        the returned hold is released (then they are handled as usual, faults included),
        as a Discord that has not answered yet."""
        hold = Hold(method.upper(), re.compile(path), times)
        self.holds.append(hold)
        return hold

    def held(self, method: str, path: str) -> Hold | None:
        """The first hold for this request, its count used up by one."""
        for hold in self.holds:
            if hold.matches(method, path):
                hold.times -= 1
                return hold
        return None

    def release_all(self) -> None:
        for hold in self.holds:
            hold.release()

    def take(self, method: str, path: str) -> Fault | None:
        """The first fault for this request, its count used up by one (the errors it
        answers are listed in :attr:`injected`)."""
        for fault in self.faults:
            if fault.matches(method, path):
                fault.times -= 1
                if not fault.held:
                    self.injected.append((method, path, fault.status))
                return fault
        return None
