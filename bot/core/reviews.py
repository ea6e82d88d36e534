"""A finished game's review, worked out once (STYLE.md rule 17): a game's moves never
change once it is over, so neither does its review. On 3×3 it is worked out on the
spot, in microseconds, every time (keeping it would cost more than that). Past 3×3 (4×4,
5×5, ultimate: seconds of engine time) it is kept in the database, where every process
(chat, a page's, one without the gateway) reads it; within a process, members asking
for a review being worked out wait for that same computation (single flight), and a new
computation waits its turn in the :class:`~bot.core.engine_gate.EngineGate`'s fair line
(by the game's server) or is refused.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from bot.core import review_codec
from bot.core.budgets import place_of
from bot.core.engine_gate import EngineGate, Turn
from bot.core.models import Game
from bot.core.repository import Store
from bot.core.review import instant
from bot.core.variants import Review, Runner, variant_of

log = logging.getLogger(__name__)

RECENT = 32
"""Reviews just worked out that a process keeps at hand besides the database: a member
who read nothing kept, just before the computation they would have joined ended and
kept it, finds it here instead of starting another."""

Waiting = Callable[[], Awaitable[None]]


class Reviews:
    """Finished games' reviews, read from ``store`` or worked out by ``run`` (in the
    reviews' worker) under ``gate``, and kept in ``store`` at ``clock``'s time."""

    def __init__(
        self, store: Store, run: Runner, gate: EngineGate,
        clock: Callable[[], float] = time.time,
    ) -> None:  # fmt: skip
        self.store = store
        self._run = run
        self.gate = gate
        self.clock = clock
        self.computed = 0
        """Reviews this process worked out past 3×3 (for tests and /metrics)."""
        self._flights: OrderedDict[int, asyncio.Task[Review]] = OrderedDict()
        """Each game's computation under way, or done lately (see :data:`RECENT`)."""

    async def of(self, game: Game, member: int, *, waiting: Waiting | None = None) -> Review:
        """The review of the finished ``game`` that ``member`` asks for. ``waiting`` is
        called (to say "thinking") before waiting for a computation, never for a review
        that is kept or on 3×3.

        Raises:
            Refusal: ``engine.busy_member``, ``member`` has a hint or a review being worked
                out; ``engine.busy``, the reviews' worker and its line have as many as
                they take and the game's server its share (at once, or while waiting
                its turn: a less busy server's took its place in line).
            IllegalMove: ``game``'s moves are not a legal game.
        """
        if instant(game):  # on the event loop, at once
            return await variant_of(game.variant).review(game, self._run)
        flight = self._flights.get(game.id)
        if flight is None:
            kept = await self._kept(game)
            if kept is not None:
                return kept
            flight = self._flights.get(game.id)  # started while the store was read
        if flight is not None and flight.done() and not flight.cancelled():
            if flight.exception() is None:
                return flight.result()
            flight = None  # failed: a new ask works it out again
        with self.gate.member(member):  # joining costs no engine time, but counts
            if flight is None:
                flight = self._start(game)
            if waiting is not None:
                await waiting()
            return await asyncio.shield(flight)  # a member who leaves stops nobody's

    async def _kept(self, game: Game) -> Review | None:
        body = await self.store.review_of(game.id)
        if body is None:
            return None
        try:
            return review_codec.decode(body, game)
        except ValueError:  # another release's shape: worked out again, kept in ours
            log.warning("game %d: its kept review is not of this release; working it out "
                        "again", game.id)  # fmt: skip
            return None

    def _start(self, game: Game) -> asyncio.Task[Review]:
        """The computation, once its turn comes (those who join it wait for it too).

        Raises:
            Refusal: ``engine.busy``, nothing started.
        """
        turn = self.gate.enter("review", place_of(game.guild_id, game.channel_id))
        task = asyncio.ensure_future(self._work_out(game, turn))
        self._flights[game.id] = task
        task.add_done_callback(lambda done: self._landed(game.id, done, turn))
        return task

    async def _work_out(self, game: Game, turn: Turn) -> Review:
        await turn.wait()
        review = await variant_of(game.variant).review(game, self._run)
        self.computed += 1
        try:
            kept = await self.store.keep_review(game.id, review_codec.encode(review), self.clock())
        except Exception:  # the review stands; asked for again, it is worked out again
            log.exception("game %d: its review could not be kept", game.id)
        else:
            if not kept:
                log.info("game %d was forgotten while its review was worked out", game.id)
        return review

    def _landed(self, game_id: int, task: asyncio.Task[Review], turn: Turn) -> None:
        """Give the computation's place in the pool back, or its place in line (here,
        not in the task: one cancelled before it began never runs its own ``finally``);
        forget it if it failed (retrieving its error: whoever waited has it), and all
        but the :data:`RECENT` latest done ones."""
        turn.close()
        failed = task.cancelled() or task.exception() is not None
        if failed and self._flights.get(game_id) is task:
            del self._flights[game_id]
        done = [g for g, t in self._flights.items() if t.done()]
        for old in done[: max(0, len(done) - RECENT)]:
            del self._flights[old]
