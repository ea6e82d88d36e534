"""Which policy is in force in each server: the environment's defaults with the server's
own choices (stored with /ttt config) on top, cached until they change."""

from __future__ import annotations

from bot.core.policy import BOUNDS, CHOICES, LABELS, ServerPolicy
from bot.core.refusals import Refusal
from bot.core.repository import Store


class PolicyBook:
    def __init__(self, store: Store, defaults: ServerPolicy, *, cache: bool = True) -> None:
        """``cache=False`` when other processes share the store: a server's /ttt config
        change must be seen by every process at once (it is one primary-key read)."""
        self._store = store
        self.defaults = defaults
        self._caching = cache
        self._cache: dict[int, ServerPolicy] = {}

    async def policy(self, guild_id: int | None) -> ServerPolicy:
        """The policy in force in a server (the defaults outside one)."""
        if guild_id is None:
            return self.defaults
        rules = self._cache.get(guild_id)
        if rules is None:
            overrides = await self._store.guild_overrides(guild_id)
            rules = self.defaults.with_overrides(overrides)
            if self._caching:
                self._cache[guild_id] = rules
        return rules

    async def configure(self, guild_id: int, changes: dict[str, object]) -> ServerPolicy:
        """Store a server's new choices (merged into its earlier ones; None puts a setting
        back to the default) and return the policy now in force there.

        Raises:
            Refusal: ``config.out_of_range``, a value outside its bounds or choices;
                nothing is stored then.
        """
        for name, value in changes.items():
            if value is not None:
                check(name, value)
        overrides = await self._store.guild_overrides(guild_id)
        overrides.update(changes)
        for name, value in changes.items():
            if value is None:
                overrides.pop(name, None)
        await self._store.set_guild_overrides(guild_id, overrides)
        self._cache.pop(guild_id, None)
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
    elif name in CHOICES and value not in CHOICES[name]:
        choices = CHOICES[name]
        raise Refusal("config.out_of_range", setting_key=LABELS[name], low=choices[0],
                      high=choices[-1], value=value)  # fmt: skip
