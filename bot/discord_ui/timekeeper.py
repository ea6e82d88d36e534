"""Turn timeouts and challenge expiries, kept across restarts.

Deadlines live in the database. One background task sleeps until the soonest one (or
until the service says deadlines changed), resolves whatever is due, and edits the
messages. At start-up it first resolves what expired while the bot was down and makes
any bot move that a crash interrupted.
"""

from __future__ import annotations

import logging

from bot.core.deadlines import Deadlines
from bot.core.models import GameUpdate
from bot.core.tournaments.service import TournamentService
from bot.discord_ui.background import BackgroundCog, FailedPasses
from bot.discord_ui.publisher import Publisher
from bot.discord_ui.tournament_publisher import TournamentPublisher
from bot.discord_ui.turn_pinger import TurnPinger

log = logging.getLogger(__name__)

MAX_SLEEP = 60.0
"""Seconds between checks even when nothing is due: a safety net, not the mechanism."""
RETRY_FIRST, RETRY_MAX = 1.0, 15.0
"""Seconds before a failed pass is tried again (the database down, say): doubling from
the first to the most, so a deadline that fell due meanwhile shows soon after it is back."""


class Timekeeper(BackgroundCog):
    task_name = "ttt-timekeeper"

    def __init__(
        self, deadlines: Deadlines, publisher: Publisher, pinger: TurnPinger,
        tournaments: TournamentService, shows: TournamentPublisher,
    ) -> None:  # fmt: skip
        self.deadlines = deadlines
        self.publisher = publisher
        self.pinger = pinger
        self.tournaments = tournaments
        self.shows = shows

    async def cog_load(self) -> None:
        await self.deadlines.listen()
        await super().cog_load()

    async def _run(self) -> None:
        deadlines, alarm = self.deadlines, self.deadlines.alarm
        try:
            for update in await deadlines.resume_bot_turns():
                await self.publisher.publish(update)
        except Exception:
            log.exception("could not resume games waiting on the bot")
        try:
            for view in await self.tournaments.catch_up():
                await self.shows.show(view)
        except Exception:
            log.exception("could not catch up the running tournaments")
        failures = FailedPasses(log, "timekeeper", RETRY_FIRST, RETRY_MAX)
        while True:
            try:
                alarm.begin_pass()
                for item in await deadlines.expire_due():
                    target = item.game if isinstance(item, GameUpdate) else item
                    log.info("%s %s ended by its deadline", type(target).__name__.lower(),
                             target.id)  # fmt: skip
                    await self.publisher.publish(item)
                    if isinstance(item, GameUpdate):
                        await self.pinger.game_changed(item.game)
                for view in await self.tournaments.expire_due():
                    log.info("tournament %s: a deadline passed", view.tournament.id)
                    await self.shows.show(view)
                for view in await self.tournaments.unshown():
                    log.info("tournament %s: showing what was not shown", view.tournament.id)
                    await self.shows.show(view)
                soonest = await deadlines.next_wake()
                if failed := failures.worked():
                    log.info("timekeeper passes work again after %d failed", failed)
            except Exception as exc:
                soonest = deadlines.clock() + failures.failed(exc)
            now = deadlines.clock()
            delay = MAX_SLEEP if soonest is None else max(0.0, soonest - now)
            await alarm.sleep_until(now + min(delay, MAX_SLEEP), min(delay, MAX_SLEEP))
