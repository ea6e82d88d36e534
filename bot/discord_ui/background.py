"""A cog that owns one background task: started when the cog loads, cancelled (and
awaited) when it unloads, as RoboDanny's cogs keep theirs; and the failed passes of such
a task's loop (:class:`FailedPasses`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from discord.ext import commands


class FailedPasses:
    """A background loop's passes failed in a row (the database down, say): the seconds
    before the next try, from ``first`` doubling to ``most``; the first failure of an
    outage logged with its traceback, the others in one line each."""

    def __init__(self, log: logging.Logger, what: str, first: float, most: float) -> None:
        self.log, self.what, self.first, self.most = log, what, first, most
        self.count = 0

    def failed(self, exc: Exception) -> float:
        """Count a failure (call it in the ``except`` block); the seconds to wait."""
        self.count += 1
        retry = min(self.first * 2 ** (self.count - 1), self.most)
        if self.count == 1:
            self.log.exception("%s pass failed; retrying in %g s", self.what, retry)
        else:  # the same outage: one line, no traceback
            self.log.warning("%s pass failed again (%s); retrying in %g s", self.what, exc, retry)
        return retry

    def worked(self) -> int:
        """A pass worked: how many had failed before it (counting starts again)."""
        failed, self.count = self.count, 0
        return failed


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
