"""The reminders' part of :class:`~bot.storage.store.SqlStore`: each
:class:`~bot.core.reminders.store.ReminderStore` method is one query of
:mod:`bot.storage.reminder_queries`, on whatever connection the store provides."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from bot.core.doubts import Touched
from bot.core.models import Game
from bot.core.reminders.models import Reminder, ReminderSetting
from bot.storage import reminder_queries as q

T = TypeVar("T")


class ReminderSql:
    async def _call(
        self, fn: Callable[..., Awaitable[T]], *args: Any, touches: Sequence[Touched] = ()
    ) -> T:
        raise NotImplementedError

    async def reminder_setting(self, member_id: int) -> ReminderSetting | None:
        return await self._call(q.reminder_setting, member_id)

    async def set_reminder_setting(self, setting: ReminderSetting, now: float) -> None:
        await self._call(q.set_reminder_setting, setting, now)

    async def offer_reminders_once(self, member_id: int, now: float) -> bool:
        return await self._call(q.offer_reminders_once, member_id, now)

    async def claim_reminders(self, now: float, limit: int) -> list[Reminder]:
        return await self._call(q.claim_reminders, now, limit)

    async def reminder_sent(self, reminder_id: int) -> None:
        await self._call(q.reminder_sent, reminder_id)

    async def reminder_dropped(self, reminder_id: int) -> None:
        await self._call(q.reminder_dropped, reminder_id)

    async def reminder_retry(self, reminder_id: int, at: float) -> None:
        await self._call(q.reminder_retry, reminder_id, at)

    async def prune_outbox(self, before: float) -> int:
        return await self._call(q.prune_outbox, before)

    async def reminder_challenge_posted(self, challenge_id: int, now: float) -> None:
        await self._call(q.challenge_posted, challenge_id, now)

    async def next_reminder_due(self) -> float | None:
        return await self._call(q.next_reminder_due)

    async def mark_unreachable(self, member_id: int) -> None:
        await self._call(q.mark_unreachable, member_id)

    async def untold_unreachable(self) -> set[int]:
        return await self._call(q.untold_unreachable)

    async def take_told(self, member_id: int) -> bool:
        return await self._call(q.take_told, member_id)

    async def claim_digests(self, now: float, limit: int) -> int:
        return await self._call(q.claim_digests, now, limit)

    async def games_waiting_on(self, member_id: int) -> list[Game]:
        return await self._call(q.games_waiting_on, member_id)
