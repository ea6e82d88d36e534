"""Which policy is in force in each server: the environment's defaults with the server's
own choices (stored with /ttt config) on top, cached until they change."""

from __future__ import annotations

import time
from collections.abc import Callable

from bot.core.policy import BOUNDS, CHOICES, LABELS, MARK_SETTINGS, ServerPolicy, parse_mark
from bot.core.refusals import Refusal
from bot.core.repository import MISSED, POLICY_TOPIC, Repository

CACHE_SECONDS = 60.0
"""How long a cached policy is trusted without a notification: the safety net should one
be lost (a dropped listener connection)."""


class PolicyBook:
    def __init__(
        self, store: Repository, defaults: ServerPolicy,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:  # fmt: skip
        self._store = store
        self.defaults = defaults
        self._direct_messages = defaults.in_direct_messages()
        self._clock = clock
        self._cache: dict[int, tuple[float, ServerPolicy]] = {}

    async def listen(self) -> None:
        """Forget a server's cached policy whenever any process sharing the store changes
        it, so a /ttt config change holds everywhere at once."""
        await self._store.listen(POLICY_TOPIC, self._forget)

    def _forget(self, payload: str) -> None:
        if payload.isdigit():
            self._cache.pop(int(payload), None)
        elif payload == MISSED:  # changes may have been missed: forget every server's
            self._cache.clear()

    async def policy(self, guild_id: int | None) -> ServerPolicy:
        """The policy in force in a server; None, in direct messages with the bot: the
        environment's defaults without the server-only rules."""
        if guild_id is None:
            return self._direct_messages
        cached = self._cache.get(guild_id)
        if cached is not None and cached[0] > self._clock():
            return cached[1]
        overrides = await self._store.guild_overrides(guild_id)
        rules = self.defaults.with_overrides(overrides)
        self._cache[guild_id] = (self._clock() + CACHE_SECONDS, rules)
        return rules

    async def configure(self, guild_id: int, changes: dict[str, object]) -> ServerPolicy:
        """Store a server's new choices (merged into its earlier ones; None puts a setting
        back to the default) and return the policy now in force there.

        Raises:
            Refusal: ``config.out_of_range``, a value outside its bounds or choices;
                ``config.bad_mark``, a mark that is not one emoji; ``config.marks_same``,
                two of X, O and the empty square alike. Nothing is stored then.
        """
        for name, value in changes.items():
            if value is not None:
                check(name, value)
        async with self._store.atomic() as tx:  # two admins at once: neither change is lost
            await tx.serialize(("guild", guild_id))
            overrides = await tx.guild_overrides(guild_id)
            overrides.update(changes)
            for name, value in changes.items():
                if value is None:
                    overrides.pop(name, None)
            marks = self.defaults.with_overrides(overrides).marks
            if len({marks.x, marks.o, marks.empty}) < 3:
                raise Refusal("config.marks_same", x=marks.x, o=marks.o, empty=marks.empty)
            await tx.set_guild_overrides(guild_id, overrides)
        self._cache.pop(guild_id, None)
        await self._store.notify(POLICY_TOPIC, str(guild_id))
        return await self.policy(guild_id)


def check(name: str, value: object) -> None:
    """Raises: Refusal: ``value`` is outside the bounds or choices of setting ``name``."""
    if name in BOUNDS:
        low, high = BOUNDS[name]
        if (
            not isinstance(value, int | float)
            or isinstance(value, bool)
            or not (low <= value <= high)
        ):
            raise Refusal("config.out_of_range", setting_key=LABELS[name], low=low, high=high,
                          value=value)  # fmt: skip
    elif name in MARK_SETTINGS:
        if not isinstance(value, str) or parse_mark(value) != value:
            raise Refusal("config.bad_mark", value=str(value)[:40])
    elif name in CHOICES and value not in CHOICES[name]:
        choices = CHOICES[name]
        raise Refusal("config.out_of_range", setting_key=LABELS[name], low=choices[0],
                      high=choices[-1], value=value)  # fmt: skip
