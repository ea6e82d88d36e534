"""How a running game ends other than by its last move: a member resigns, a moderator
stops it, its mover's time runs out, or its message is gone. Part of
:class:`~bot.core.service.GameService` (its base class), which supplies the reads and the
writes these share with the moves."""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.core import rules
from bot.core.locks import LockRegistry
from bot.core.models import Game, GameUpdate
from bot.core.refusals import Refusal
from bot.core.repository import Conflict, Repository

log = logging.getLogger("bot.core.service")  # the service's log, as before the split


class GameEndings:
    """The endings of :class:`~bot.core.service.GameService`, which provides these:"""

    repo: Repository
    locks: LockRegistry
    clock: Callable[[], float]

    async def update(self, game: Game) -> GameUpdate:
        raise NotImplementedError  # GameService's

    async def _running_game(self, game_id: int, message_id: int | None = None) -> Game:
        raise NotImplementedError  # GameService's

    async def _save(self, before: Game, after: Game) -> Game:
        raise NotImplementedError  # GameService's

    async def resign(
        self, user_id: int, *, game_id: int | None = None, channel_id: int | None = None,
        message_id: int | None = None,
    ) -> GameUpdate:  # fmt: skip
        """End the user's game as a loss, by game id (button, on the message
        ``message_id``) or channel (command).

        Raises:
            Refusal: no such running game, the user does not play in it, or the button's
                board was posted again since.
        """
        if game_id is None:
            games = await self.repo.running_games_in(channel_id or 0)
            mine = [g for g in games if g.mark_of(user_id)]
            if not mine:
                raise Refusal("resign.none")
            game_id = mine[0].id

        def resigned(game: Game) -> Game:
            mark = game.mark_of(user_id)
            if mark is None:
                raise Refusal("move.not_player")
            return rules.ended(game, "resign", mark, self.clock())

        game = await self._end(game_id, resigned, message_id)
        return await self.update(game)

    async def stop(
        self, moderator_id: int, channel_id: int, *, may_moderate: bool,
        member_id: int | None = None,
    ) -> GameUpdate:  # fmt: skip
        """A moderator ends a running game in the channel: no result, nobody rated. With
        several running there, ``member_id`` says whose.

        Raises:
            Refusal: not a moderator (``may_moderate``: Manage Messages), no such game, or
                several and no way to tell which.
        """
        if not may_moderate:
            raise Refusal("stop.not_moderator")
        games = await self.repo.running_games_in(channel_id)
        if member_id is not None:
            games = [g for g in games if member_id in (g.player_x, g.player_o)]
        if not games:
            raise Refusal("stop.none" if member_id is None else "stop.member_none",
                          member_id=member_id)  # fmt: skip
        if len(games) > 1:
            raise Refusal("stop.which", games=games, count=len(games))
        if games[0].mark_of(moderator_id) is not None:  # no way out of a loss unrated
            raise Refusal("stop.own_game")
        game = await self._end(
            games[0].id, lambda game: rules.stopped(game, moderator_id, self.clock())
        )
        return await self.update(game)

    async def time_out(self, game_id: int) -> GameUpdate | None:
        """End a game whose mover let the turn deadline pass (lost on time; a
        correspondence game nobody moved in is cancelled, see :func:`rules.timed_out`);
        None if it moved or ended meanwhile."""
        now = self.clock()
        async with self.locks.game(game_id):
            game = await self.repo.get_game(game_id)
            if game is None or not game.running or (game.turn_deadline or now) > now:
                return None
            ended = rules.timed_out(game, now)
            try:
                game = await self._save(game, ended)
            except Conflict:  # moved or ended meanwhile, by another process
                return None
        return await self.update(game)

    async def abandon(self, game_id: int) -> Game | None:
        """End a running game with no result: its message is gone (deleted, or it could
        never be posted). Returns the ended game, or None if it was already over."""
        async with self.locks.game(game_id):
            game = await self.repo.get_game(game_id)
            if game is None or not game.running:
                return None
            try:
                game = await self._save(game, rules.ended(game, "abandoned", None, self.clock()))
            except Conflict:  # ended meanwhile, by another process
                return None
        log.info("game %s abandoned: its message is gone", game_id)
        return game

    async def _end(
        self, game_id: int, ending: Callable[[Game], Game], message_id: int | None = None
    ) -> Game:
        """Store ``ending(game)`` for the running game, read again if a move elsewhere
        landed between the read and the write (a move keeps the game running, so the
        ending still applies to what follows it).

        Raises:
            Refusal: the game is over or unknown (or ``ending`` refuses).
            Conflict: three moves in a row got in first.
        """
        async with self.locks.game(game_id):
            for attempt in range(3):
                game = await self._running_game(game_id, message_id)
                try:
                    return await self._save(game, ending(game))
                except Conflict:
                    if attempt == 2:
                        raise
        raise AssertionError("unreachable")
