"""A cog that owns one background task: started when the cog loads, cancelled (and
awaited) when it unloads, as RoboDanny's cogs keep theirs."""

from __future__ import annotations

import asyncio
import contextlib

from discord.ext import commands


class BackgroundCog(commands.Cog):
    task_name = "ttt-background"
    _task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        raise NotImplementedError

    async def cog_load(self) -> None:
        self._task = asyncio.create_task(self._run(), name=self.task_name)

    async def cog_unload(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
