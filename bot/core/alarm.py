"""When the timekeeper must wake: a deadline sooner than the one it sleeps until.

A move pushes its game's deadline later, an ending removes it: neither needs the
timekeeper, which wakes at its planned time, finds nothing due, and plans again. Only a
new deadline sooner than that plan (a new game or challenge, a short turn timeout) or a
word from another process wakes it early, so a click costs the timekeeper nothing.
"""

from __future__ import annotations

import asyncio
import math


class DeadlineAlarm:
    def __init__(self) -> None:
        self._event = asyncio.Event()
        self._wake_at = math.inf
        """While a pass runs, every new deadline counts (the pass may have read the
        deadlines before it was stored): the next sleep then ends at once."""

    def note(self, deadline: float | None) -> None:
        """A deadline was stored (None: one went away, which never needs a wake)."""
        if deadline is not None and deadline < self._wake_at:
            self._event.set()

    def ring(self) -> None:
        """Wake the timekeeper whatever it planned (another process started something)."""
        self._event.set()

    def begin_pass(self) -> None:
        self._wake_at = math.inf
        self._event.clear()

    async def sleep_until(self, wake_at: float, seconds: float) -> None:
        """Sleep ``seconds`` (until ``wake_at`` on the service's clock) unless a sooner
        deadline is noted or the alarm is rung meanwhile."""
        self._wake_at = wake_at
        try:
            # asyncio.timeout, not wait_for: on 3.11 wait_for swallows a cancellation that
            # arrives as the event is set, and cog_unload would then wait forever.
            async with asyncio.timeout(max(0.0, seconds)):
                await self._event.wait()
        except TimeoutError:
            pass
        finally:
            self._wake_at = math.inf

    def is_set(self) -> bool:
        return self._event.is_set()

    async def wait(self) -> None:
        """Until the alarm rings or a sooner deadline is noted (for tests)."""
        await self._event.wait()
