"""Turn timeouts and challenge expiries: what is due, resolved through the game service.

Deadlines live in the database, so they survive restarts: the first pass after a start
resolves what passed while the bot was down.
"""

from __future__ import annotations

from bot.core.alarm import DeadlineAlarm
from bot.core.lobby import Lobby
from bot.core.models import Challenge, GameUpdate
from bot.core.repository import DEADLINES_TOPIC, Repository
from bot.core.service import Clock, GameService


class Deadlines:
    def __init__(
        self, games: GameService, lobby: Lobby, *, repo: Repository, clock: Clock,
        alarm: DeadlineAlarm,
    ) -> None:  # fmt: skip
        self.games = games
        self.lobby = lobby
        self.repo = repo
        self.clock = clock
        self.alarm = alarm
        """Rung when a deadline sooner than the timekeeper's plan is stored."""

    async def listen(self) -> None:
        """Hear of the deadlines every process sharing the database stores, so the
        soonest one is never slept past, even where another process stored it."""
        await self.repo.listen(DEADLINES_TOPIC, self.alarm.hear)

    async def next_deadline(self) -> float | None:
        return await self.repo.next_deadline()

    async def next_wake(self) -> float | None:
        """When the timekeeper's next pass is due: the soonest deadline stored, or one
        another process announced (:meth:`DeadlineAlarm.promised`) if sooner."""
        stored = await self.repo.next_deadline()
        promised = self.alarm.promised(self.clock())
        return min((t for t in (stored, promised) if t is not None), default=None)

    async def expire_due(self) -> list[GameUpdate | Challenge]:
        """Resolve every turn timeout and challenge expiry that has passed (also those that
        passed while the bot was down) and return what changed."""
        now = self.clock()
        changed: list[GameUpdate | Challenge] = []
        for due in await self.repo.games_due(now):
            ended = await self.games.time_out(due.id)
            if ended is not None:
                changed.append(ended)
        for challenge in await self.repo.challenges_due(now):
            expired = await self.lobby.expire(challenge)
            if expired is not None:
                changed.append(expired)
        return changed

    async def resume_bot_turns(self) -> list[GameUpdate]:
        """Make the bot moves that a crash interrupted."""
        waiting = [g for g in await self.repo.running_games() if g.bot_side == g.board.to_move]
        resumed = [await self.games.resume_bot_turn(game.id) for game in waiting]
        return [update for update in resumed if update is not None]
