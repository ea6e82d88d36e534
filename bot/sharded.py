"""The bot for a process's settings: :class:`~bot.app.TTTBot` running every gateway
shard, or :class:`ShardedTTTBot` running a range of them, one of several processes on
one PostgreSQL database that take turns to IDENTIFY."""

from __future__ import annotations

from discord.ext import commands

from bot.app import TTTBot
from bot.core.repository import Repository
from bot.settings import Settings

IDENTIFY_SPACING = 5.5
"""Seconds between two IDENTIFYs of one concurrency bucket: Discord's 5, and a margin for
the time between claiming the turn and the IDENTIFY reaching the gateway."""


class ShardedTTTBot(TTTBot, commands.AutoShardedBot):
    """The bot running the gateway shards ``TTT_SHARD_IDS`` of ``TTT_SHARD_COUNT``, one
    of several processes sharing one PostgreSQL database."""

    _max_concurrency: int | None = None

    async def launch_shards(self) -> None:
        """Connect this process's shards, each in its turn to IDENTIFY: part of the start,
        which a stop cancels (discord.py retries a shard whose connection failed, every
        5 s and for ever, so a :meth:`close` under it never ended the process)."""
        self.starting = "while connecting to the gateway"
        try:
            await super().launch_shards()
        finally:
            self.starting = None

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """Take turns with every process of the bot: Discord refuses a second IDENTIFY of
        one concurrency bucket within 5 seconds (discord.py alone only spaces a
        process's own shards)."""
        if self._max_concurrency is None:
            _, _, limits = await self.http.get_bot_gateway()
            self._max_concurrency = max(1, int(limits.get("max_concurrency", 1)))
        bucket = (shard_id or 0) % self._max_concurrency
        await self.repo.identify_turn(bucket, IDENTIFY_SPACING)


def make_bot(settings: Settings, repo: Repository, *, settings_source: str = "") -> TTTBot:
    """The bot for these settings: one process running every shard, or a range of shards."""
    if settings.shard_count is None:
        return TTTBot(settings, repo, settings_source=settings_source)
    return ShardedTTTBot(
        settings, repo, settings_source=settings_source, shard_count=settings.shard_count,
        shard_ids=list(settings.shard_ids) if settings.shard_ids is not None else None,
    )  # fmt: skip
