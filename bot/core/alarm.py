"""When the timekeeper must wake: a deadline sooner than the one it sleeps until.

A move pushes its game's deadline later, an ending removes it: neither needs the
timekeeper, which wakes at its planned time, finds nothing due, and plans again. Only a
new deadline sooner than that plan (a new game or challenge, a short turn timeout) wakes
it early, whichever process stored it: processes sharing a database tell each other of
the deadlines they store (:meth:`DeadlineAlarm.announce`, :meth:`DeadlineAlarm.hear`),
so a click costs the timekeeper nothing and a start costs it a pass only where it is
sooner; and only a deadline sooner than the last one announced needs a word at all. The
others keep each process's last word as a pass of their own (:meth:`DeadlineAlarm.promised`),
which reads the deadlines stored without a word, whatever became of the announced one.
"""

from __future__ import annotations

import asyncio
import math
import secrets
from collections.abc import Awaitable, Callable

from bot.core.repository import DEADLINES_TOPIC


class DeadlineAlarm:
    def __init__(self) -> None:
        self.origin = secrets.token_hex(8)
        """This process's name in the words it sends, to know its own when they return."""
        self._announced = -math.inf
        """The deadline this process last told the others of."""
        self._event = asyncio.Event()
        self._wake_at = math.inf
        """While a pass runs, every new deadline counts (the pass may have read the
        deadlines before it was stored): the next sleep then ends at once."""
        self._told: dict[str, float] = {}
        """The last deadline each other process announced (see :meth:`promised`)."""

    def note(self, deadline: float | None) -> None:
        """A deadline was stored (None: one went away, which never needs a wake)."""
        if deadline is not None and deadline < self._wake_at:
            self._event.set()

    def announce(self, deadline: float, now: float) -> str | None:
        """What other processes are told of a deadline stored here (a notification's
        payload: who stored it, and when it falls), or None if they need no word: they
        were told of a sooner one still to come, and the pass they make then reads this
        one from the store. With one turn timeout, that is a word per timeout's length,
        however many games start meanwhile."""
        if now < self._announced <= deadline:
            return None
        self._announced = deadline
        return f"{self.origin} {deadline!r}"

    def hear(self, word: str) -> None:
        """A word from the database: another process's deadline is noted like one of
        ours; our own, which the database sends back to us too, was noted already. A word
        without a deadline (an older version's, or MISSED after notifications were lost)
        rings the alarm: the pass it makes reads every deadline from the store."""
        origin, _, when = word.partition(" ")
        if origin == self.origin:
            return
        try:
            deadline = float(when)
        except ValueError:
            self.ring()
            return
        self._told[origin] = deadline
        self.note(deadline)

    def promised(self, now: float) -> float | None:
        """The soonest deadline another process announced that is still to come: a pass
        is due then even if the store no longer holds it (its game moved on or ended
        since). Until then that process announces none of the later deadlines it stores
        (:meth:`announce`), counting on that pass to read them; if it died meanwhile,
        nobody else would wake for them before the longest sleep."""
        self._told = {origin: when for origin, when in self._told.items() if when > now}
        return min(self._told.values(), default=None)

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


async def deadline_added(
    alarm: DeadlineAlarm, notify: Callable[[str, str], Awaitable[None]], deadline: float | None,
    now: float,
) -> None:  # fmt: skip
    """Wake this process's timekeeper if ``deadline`` is sooner than it planned, and,
    through the store's ``notify`` on the deadlines topic, every other one's."""
    alarm.note(deadline)
    word = None if deadline is None else alarm.announce(deadline, now)
    if word is not None:
        await notify(DEADLINES_TOPIC, word)
