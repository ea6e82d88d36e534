"""What reminders need from storage: a part of the one repository interface
(:class:`bot.core.repository.Store` inherits it), implemented once in SQL for SQLite and
PostgreSQL by :mod:`bot.storage.reminder_queries`. The outbox's rows for a move are
written by ``save_game`` itself, in the move's transaction."""

from __future__ import annotations

from typing import Protocol

from bot.core.models import Game
from bot.core.reminders.models import Reminder, ReminderSetting


class ReminderStore(Protocol):
    async def reminder_setting(self, member_id: int) -> ReminderSetting | None:
        """The member's choice, None if they never made one (off)."""

    async def set_reminder_setting(self, setting: ReminderSetting, now: float) -> None:
        """Store the member's choice (as given: it clears ``unreachable`` and ``told``),
        keeping whether they were offered reminders."""

    async def offer_reminders_once(self, member_id: int, now: float) -> bool:
        """Mark the member offered reminders; True the first time only, and never for a
        member who chose some already."""

    async def claim_reminders(self, now: float, limit: int) -> list[Reminder]:
        """At most ``limit`` due rows, oldest first, each marked ``sending`` (committed)
        before this returns: no other claim takes them, and a process killed before it
        marks them leaves them unsent for good. Rows another process is claiming are
        skipped, not waited for."""

    async def reminder_sent(self, reminder_id: int) -> None: ...

    async def reminder_dropped(self, reminder_id: int) -> None:
        """Not sent, for good (the game moved on or ended, the member unreachable)."""

    async def reminder_retry(self, reminder_id: int, at: float) -> None:
        """Due again at ``at`` (Discord failed for a while)."""

    async def prune_outbox(self, before: float) -> int:
        """Forget the rows done with (sent, dropped, or left ``sending`` by a process
        killed mid-send) since before ``before``; how many."""

    async def reminder_challenge_posted(self, challenge_id: int, now: float) -> None:
        """The challenge's message is posted: its DM, put back while it had no link to
        give, is due now."""

    async def next_reminder_due(self) -> float | None:
        """When the soonest due row (or digest) falls."""

    async def mark_unreachable(self, member_id: int) -> None:
        """Discord refused them a DM (50007): nothing more is tried for them until they
        choose again; their due rows are dropped."""

    async def untold_unreachable(self) -> set[int]:
        """Members marked unreachable and not yet told so."""

    async def take_told(self, member_id: int) -> bool:
        """Mark an unreachable member told; True for the one caller that does it."""

    async def claim_digests(self, now: float, limit: int) -> int:
        """Members whose digest time came: a ``digest`` row written for each (due now)
        and their next digest set a day on, in one transaction; how many."""

    async def games_waiting_on(self, member_id: int) -> list[Game]:
        """The member's running correspondence games (the core filters those waiting for
        their move)."""
