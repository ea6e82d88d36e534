"""The reminders' sender: a background loop that takes the outbox's due rows one at a
time (:class:`~bot.core.reminders.service.Reminders` claims each ``sending`` before it
goes) and sends each as a DM, spread evenly at most ``per_minute`` a minute
(``TTT_DM_PER_MINUTE``): never a burst, never on a click's path.

Discord's answers: 50007 (no server shared, DMs closed, the bot blocked) marks the
member unreachable, and they get the turn's mention in the game's channel instead
(:meth:`TurnPinger.ping_instead`); a 429 is waited out by discord.py's HTTP client
(its Retry-After, then the same request again); a 5xx is retried by discord.py a few
times, then the row is due again after a backoff, as after 50001 or a connection
failure. Every DM carries the row's id as its nonce with ``enforce_nonce``: a send
retried after Discord created the message (a 5xx answered late) is answered with the
message already there, never a second one.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict

import aiohttp
import discord

from bot.core.reminders.service import Reminders, ToSend
from bot.discord_ui import render_reminder
from bot.discord_ui.background import BackgroundCog, FailedPasses
from bot.discord_ui.turn_pinger import TurnPinger

log = logging.getLogger(__name__)

MAX_SLEEP = 60.0
"""Seconds between passes when nothing is due sooner: a move made in another process is
reminded within a minute (one made in this one wakes the loop at once)."""
RETRY_FIRST, RETRY_MAX = 1.0, 60.0
"""Seconds before a failed pass is tried again (the database away), doubling."""
CANNOT_MESSAGE = 50007
KNOWN_DMS = 10_000
"""Members' DM channels kept per process, the least recently used forgotten first (a
forgotten one is opened again: Discord answers the same channel)."""
DM_PER_MINUTE = 120
"""The default of ``TTT_DM_PER_MINUTE``: two DMs a second (four requests with the DM
channel's opening) against Discord's 50 requests a second for a bot's every call, and a
digest hour of 5,000 members sent in 42 minutes, within the hour."""


class ReminderSender(BackgroundCog):
    task_name = "ttt-reminders"

    def __init__(
        self, client: discord.Client, reminders: Reminders, pinger: TurnPinger, *,
        per_minute: int = DM_PER_MINUTE,
    ) -> None:  # fmt: skip
        self.client = client
        self.reminders = reminders
        self.pinger = pinger
        self.interval = 60.0 / per_minute
        """Seconds between two DMs, at least (on the event loop's clock: Discord's
        limits run in real time, whatever the games' clock says)."""
        self._next_send = 0.0
        self._dms: OrderedDict[int, int] = OrderedDict()
        """Members' DM channels, once opened (Discord answers the same one every time;
        opening one is a call of its own, rate limited), at most :data:`KNOWN_DMS`."""

    async def _run(self) -> None:
        failures = FailedPasses(log, "reminders", RETRY_FIRST, RETRY_MAX)
        reminders = self.reminders
        while True:
            reminders.wake.clear()
            try:
                await reminders.refresh_untold()
                await self.send_due()
                await reminders.prune()
                soonest = await reminders.next_due()
                failures.worked()
            except Exception as exc:
                soonest = reminders.clock() + failures.failed(exc)
            delay = MAX_SLEEP if soonest is None else max(0.0, soonest - reminders.clock())
            try:
                async with asyncio.timeout(min(delay, MAX_SLEEP)):
                    await reminders.wake.wait()
            except TimeoutError:
                pass

    async def send_due(self) -> int:
        """Send every reminder due now, spaced by :attr:`interval`; how many went. A row
        is claimed only when its turn to go comes: a crash loses at most the one being
        sent."""
        sent = 0
        while True:
            await self._pace()
            item = await self.reminders.next()
            if item is None:
                return sent
            await self.deliver(item)
            sent += 1

    async def _pace(self) -> None:
        loop = asyncio.get_running_loop()
        wait = self._next_send - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)
        self._next_send = max(loop.time(), self._next_send) + self.interval

    async def deliver(self, item: ToSend) -> None:
        """Send one claimed reminder and mark it. Never raises for Discord's answers."""
        reminder = item.reminder
        locale = render_reminder.locale_of(item)
        try:
            channel_id = await self._dm_channel(reminder.member_id)
            content, view = render_reminder.reminder_message(item, locale)
            channel = self.client.get_partial_messageable(
                channel_id, type=discord.ChannelType.private
            )
            mentions = discord.AllowedMentions.none()
            if isinstance(view, discord.ui.LayoutView):  # a 5×5 or ultimate board: its text
                await channel.send(view=view, allowed_mentions=mentions, nonce=reminder.id)
            elif view is None:
                await channel.send(content, allowed_mentions=mentions, nonce=reminder.id)
            else:
                await channel.send(content, view=view, allowed_mentions=mentions,
                                   nonce=reminder.id)  # fmt: skip
        except discord.Forbidden as exc:
            if exc.code != CANNOT_MESSAGE:
                await self._failed(item, exc)
                return
            log.info("member %s takes no DMs from the bot: reminders stopped for them",
                     reminder.member_id)  # fmt: skip
            await self.reminders.unreachable(reminder)
            for update in item.games:
                await self.pinger.ping_instead(update.game, reminder.member_id)
            return
        except (discord.HTTPException, aiohttp.ClientError, OSError, TimeoutError) as exc:
            await self._failed(item, exc)
            return
        await self.reminders.sent(reminder)

    async def _failed(self, item: ToSend, exc: BaseException) -> None:
        at = await self.reminders.failed(item.reminder)
        log.warning("reminder %s to %s failed (%s); %s", item.reminder.id,
                    item.reminder.member_id, exc,
                    "dropped" if at is None else "tried again later")  # fmt: skip

    async def _dm_channel(self, member_id: int) -> int:
        channel_id = self._dms.get(member_id)
        if channel_id is None:
            data = await self.client.http.start_private_message(member_id)
            channel_id = self._dms[member_id] = int(data["id"])
            if len(self._dms) > KNOWN_DMS:
                self._dms.popitem(last=False)
        else:
            self._dms.move_to_end(member_id)
        return channel_id
