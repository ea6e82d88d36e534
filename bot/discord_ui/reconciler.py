"""Boards brought back in line with the store after a database fault.

A write whose outcome was unknown (the server froze, a connection was cut mid-COMMIT), or
one stored by an interaction that then failed, leaves its game, challenge or tournament in
:class:`~bot.core.doubts.Doubts`. This task re-reads each as soon as the database answers
again and edits its message to match, through the same publishers as any change: so what
a member was told ("not confirmed: the board will show what was stored") comes true
within a second or two of the recovery, whatever the store holds.
"""

from __future__ import annotations

import asyncio
import logging

from bot.core.doubts import Doubts, Touched
from bot.core.models import GameUpdate
from bot.core.reconcile import ReadBack, Shown
from bot.core.tournaments.view import TournamentView
from bot.discord_ui.background import BackgroundCog
from bot.discord_ui.publisher import Publisher
from bot.discord_ui.tournament_publisher import TournamentPublisher
from bot.discord_ui.turn_pinger import TurnPinger

log = logging.getLogger(__name__)

RETRY = 0.5
"""Seconds between tries while the database still does not answer: what a recovery
waits at most before its boards are read again."""


def _order(item: Touched) -> tuple[str, int, float]:
    return (item.kind, item.id, item.created_at)


class Reconciler(BackgroundCog):
    task_name = "ttt-reconciler"

    def __init__(
        self, doubts: Doubts, read_back: ReadBack, publisher: Publisher, pinger: TurnPinger,
        shows: TournamentPublisher,
    ) -> None:  # fmt: skip
        self.doubts = doubts
        self.read_back = read_back
        self.publisher = publisher
        self.pinger = pinger
        self.shows = shows

    async def _run(self) -> None:
        while True:
            await self.doubts.wait()
            left = await self.reconcile(self.doubts.take())
            if left is not None:  # the database does not answer yet
                self.doubts.add(left)
                await asyncio.sleep(RETRY)

    async def reconcile(self, touched: set[Touched]) -> set[Touched] | None:
        """Show each of ``touched`` as stored, once every write whose fate was unknown is
        final; returns what is left to try again (None: nothing). Never raises."""
        try:
            await self.read_back.settle()
        except Exception as exc:
            if self.read_back.unreachable(exc):  # still out of reach: next time
                log.debug("writes not settled yet (%s)", exc)
                return touched
            # a fault, not an outage: retrying every RETRY seconds would only repeat it
            named = ", ".join(f"{t.kind} {t.id}" for t in sorted(touched, key=_order))
            log.exception("writes could not be settled; not showing again: %s", named)
            return None
        left: set[Touched] = set()
        for item in sorted(touched, key=_order):
            try:
                shown = await self.read_back.current(item)
            except Exception as exc:
                if self.read_back.unreachable(exc):  # still out of reach: next time
                    log.debug("%s %s: not read again yet (%s)", item.kind, item.id, exc)
                    left.add(item)
                else:  # a fault: once in the log, and given up on
                    log.exception("%s %s: reading it again failed; not showing it again",
                                  item.kind, item.id)  # fmt: skip
                continue
            failed = False
            for thing in shown:
                try:
                    await self._show(thing)  # reads the game again, under its lock
                except Exception as exc:
                    failed = True
                    if self.read_back.unreachable(exc):  # out of reach again: next time
                        log.debug("%s %s: not shown yet (%s)", item.kind, item.id, exc)
                        left.add(item)
                    else:
                        log.exception("%s %s: showing it as stored failed", item.kind, item.id)
            if not failed:
                log.info("%s %s: shown as stored after a write whose outcome was unknown",
                         item.kind, item.id)  # fmt: skip
        return left or None

    async def _show(self, thing: Shown) -> None:
        if isinstance(thing, GameUpdate):
            async with self.read_back.latest(thing) as latest:  # no click overtakes it
                if latest is None:
                    return
                shown = await self.publisher.show(latest)
            if shown == "deleted" and latest.game.running:
                await self.publisher.abandon(latest.game)  # takes the game's lock
            await self.pinger.game_changed(latest.game)
        elif isinstance(thing, TournamentView):
            await self.shows.show(thing)
        else:
            await self.publisher.publish(thing)
