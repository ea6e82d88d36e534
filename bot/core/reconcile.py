"""What a write whose outcome was unknown touched, read again once the database answers:
each game, challenge or tournament as stored, for the interface to show as it shows any
change (see :mod:`bot.core.doubts`)."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator

from bot.core.doubts import Touched
from bot.core.models import Challenge, GameUpdate
from bot.core.repository import OutcomeUnknown, Repository
from bot.core.service import GameService
from bot.core.tournaments.progress import read
from bot.core.tournaments.view import TournamentView

Shown = GameUpdate | Challenge | TournamentView


class ReadBack:
    def __init__(self, games: GameService, *, repo: Repository) -> None:
        self.games = games
        self.repo = repo

    async def settle(self) -> None:
        """Wait until every write whose outcome was unknown is final (see
        :meth:`Repository.settle_writes`), so what is read next stays true.

        Raises:
            Exception: the database does not answer yet.
        """
        await self.repo.settle_writes()

    def unreachable(self, exc: BaseException) -> bool:
        """Whether ``exc``, raised by :meth:`settle` or :meth:`current`, is the database
        out of reach (try again later) rather than a fault (trying again will not mend
        it: a programming error, SQL the server refuses, a row that cannot be read)."""
        return isinstance(exc, OutcomeUnknown) or self.repo.unreachable(exc)

    async def current(self, touched: Touched) -> list[Shown]:
        """What ``touched`` is as stored now, to show: nothing if it does not exist (a
        creation that was never applied).

        Raises:
            Exception: whatever the store raises while the database still does not answer.
        """
        match touched.kind:
            case "game":
                return await self._game(touched.id)
            case "new_game":  # found by where and when it was made: it has no board yet
                games = await self.repo.running_games_in(touched.id)
                return [
                    await self.games.update(g)
                    for g in games
                    if g.message_id is None and g.created_at == touched.created_at
                ]
            case "challenge":
                challenge = await self.repo.get_challenge(touched.id)
                if challenge is None:
                    return []
                if challenge.status == "accepted" and challenge.game_id is not None:
                    return await self._game(challenge.game_id)  # its message is the board now
                return [challenge]
            case "new_challenge":  # found likewise (a channel may hold several)
                pending = await self.repo.pending_challenges_in(touched.id)
                made: list[Shown] = [
                    c for c in pending
                    if c.message_id is None and c.created_at == touched.created_at
                ]  # fmt: skip
                return made[:1]
            case "tournament":
                t = await self.repo.get_tournament(touched.id)
                if t is None:
                    return []
                view = await read(self.repo, t)
                shown = tuple(m for m in view.matches if m.message_id is not None)
                return [dataclasses.replace(view, changed=shown)]

    @contextlib.asynccontextmanager
    async def latest(self, update: GameUpdate) -> AsyncIterator[GameUpdate | None]:
        """``update``'s game as stored now (None: gone), read again under the game's lock
        and held until the block ends, so the block shows it before any click stores a
        newer move: what :meth:`current` read earlier may be older than a move a click
        stored and showed since, and showing it then would set the board back.

        Raises:
            Exception: whatever the store raises while the database does not answer.
        """
        async with self.games.locks.game(update.game.id):
            game = await self.games.read_again(update.game.id)
            yield None if game is None else await self.games.update(game)

    async def _game(self, game_id: int) -> list[Shown]:
        game = await self.games.read_again(game_id)
        return [] if game is None else [await self.games.update(game)]
