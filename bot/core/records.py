"""The rules behind /ttt stats, leaderboard, history, review and forget-me: who may see
what, and what there is to show. Rendering is the interface's job."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.core.engine_gate import EngineGate
from bot.core.models import DM_SCOPE, Game, Variant
from bot.core.rating import elo_update
from bot.core.refusals import Refusal
from bot.core.repository import BotRecord, Rating, Store
from bot.core.review import reviewable
from bot.core.reviews import Reviews, Waiting
from bot.core.stats import PlayerStats, player_stats
from bot.core.variants import Review, Runner, run_here

LEADERBOARD_SIZE = 10
BOT_BOARD_SIZE = 5
HISTORY_SIZE = 10
CHART_GAMES = 200
"""Rated games the rating chart in /ttt stats covers (the latest)."""
CHAMPION_LEVELS = ("unbeatable", "hard")


@dataclass(frozen=True, slots=True)
class Tally:
    """What one finished game adds to a member's record: a row for storage to write."""

    user_id: int
    wins: int
    losses: int
    draws: int

    @property
    def points(self) -> int:
        """Towards the best records against the bot: a win 2, a draw 1."""
        return 2 * self.wins + self.draws


@dataclass(frozen=True, slots=True)
class RatingChange:
    tally: Tally
    rating: float
    """The member's new rating."""


def tally(game: Game, mark: str) -> Tally:
    score = game.ending.score(mark) if game.ending else None
    return Tally(game.player(mark), int(score == 1.0), int(score == 0.0), int(score == 0.5))


def rating_changes(game: Game, current: dict[int, float]) -> list[RatingChange]:
    """The new ratings and tallies of both members of a finished game between members,
    from their ``current`` ratings; none for a game without a result (abandoned, stopped)
    or against the bot."""
    if game.bot_side is not None or game.ending is None or game.ending.result is None:
        return []
    new_x, new_o = elo_update(
        current[game.player_x], current[game.player_o], game.ending.score("X") or 0.0
    )
    return [RatingChange(tally(game, "X"), new_x), RatingChange(tally(game, "O"), new_o)]


def bot_record_change(game: Game) -> Tally | None:
    """What a finished game against the bot adds to the member's record at its level;
    None when it does not count: no result, or a hint was used."""
    if game.bot_side is None or game.ending is None or game.ending.result is None:
        return None
    if game.hinted:
        return None
    return tally(game, "O" if game.bot_side == "X" else "X")


@dataclass(frozen=True, slots=True)
class Leaderboard:
    top: list[Rating]
    mine: tuple[int, Rating] | None
    """The caller's rank and rating, None if unrated."""
    against_bot: dict[str, list[BotRecord]]
    """Best records against each champion level."""
    variant: Variant = "classic"
    """The game ranked (each has its own ratings and records against the bot)."""


class RecordsService:
    def __init__(
        self, store: Store, bot_user_id: int, run: Runner = run_here,
        gate: EngineGate | None = None, clock: Callable[[], float] = time.time,
    ) -> None:  # fmt: skip
        """``run`` runs a review's engine work: in a process of its own in the bot (a 5×5
        review can take seconds), on the caller's thread in tests; ``gate`` admits it
        (the process's one, which the hints share)."""
        self.store = store
        self.bot_user_id = bot_user_id
        self.clock = clock
        self.reviews = Reviews(store, run, gate or EngineGate(), clock)

    async def stats(
        self, guild_id: int | None, user_id: int, viewer_id: int | None = None,
        *, guest: bool = False, variant: Variant = "classic",
    ) -> PlayerStats:  # fmt: skip
        """A member's record at ``variant`` in a server, or (``guild_id`` None) their
        personal records (DMs with the bot, and with ``guest`` where only members' own
        installs reach), as ``viewer_id`` asks for it.

        Raises:
            Refusal: the bot's own stats, someone else's DM games, or no finished game
                (at ``variant``: ``stats.none_<variant>`` when only the other game's).
        """
        if user_id == self.bot_user_id:
            raise Refusal("stats.me")
        self._check_dm_privacy(guild_id, user_id, viewer_id)
        every = await self.store.finished_games_of(guild_id, user_id)
        games = [game for game in every if game.variant == variant]
        if not games:
            key = f"stats.none_{variant}" if every else _none_key("stats", guild_id, guest)
            raise Refusal(key, name=f"<@{user_id}>")
        scope = DM_SCOPE if guild_id is None else guild_id
        ratings = await self.store.rating_series(scope, user_id, CHART_GAMES, variant)
        found = player_stats(games, user_id)
        return dataclasses.replace(found, ratings=tuple(ratings), variant=variant)

    @staticmethod
    def _check_dm_privacy(guild_id: int | None, user_id: int, viewer_id: int | None) -> None:
        """Games in direct messages are seen by the member and the bot alone, and so are
        their records.

        Raises:
            Refusal: ``dm.own_records_only``.
        """
        if guild_id is None and viewer_id is not None and viewer_id != user_id:
            raise Refusal("dm.own_records_only")

    async def leaderboard(
        self, guild_id: int, user_id: int, variant: Variant = "classic"
    ) -> Leaderboard:
        """The server's best players at ``variant`` (each game has its own ratings)."""
        top = await self.store.leaderboard(guild_id, LEADERBOARD_SIZE, variant)
        mine = await self.store.rank_of(guild_id, user_id, variant)
        against_bot = {
            level: await self.store.best_against_bot(guild_id, level, BOT_BOARD_SIZE, variant)
            for level in CHAMPION_LEVELS
        }
        return Leaderboard(top, mine, against_bot, variant)

    async def history(
        self, guild_id: int | None, user_id: int, viewer_id: int | None = None,
        *, guest: bool = False,
    ) -> list[Game]:  # fmt: skip
        """A member's last games in a server or in direct messages (None), newest first.

        Raises:
            Refusal: someone else's DM games, or none yet.
        """
        self._check_dm_privacy(guild_id, user_id, viewer_id)
        games = await self.store.finished_games_of(guild_id, user_id, limit=HISTORY_SIZE)
        if not games:
            raise Refusal(_none_key("history", guild_id, guest), name=f"<@{user_id}>")
        return games

    async def review(
        self, guild_id: int | None, user_id: int, game_id: int | None = None
    ) -> Review:
        """Every move of a finished game with the engine's verdict: ``game_id``'s, or the
        member's last game (see :meth:`review_target` and :meth:`analyze` for what
        raises)."""
        game = await self.review_target(guild_id, user_id, game_id)
        return await self.analyze(game, user_id)

    async def analyze(self, game: Game, user_id: int, *, waiting: Waiting | None = None) -> Review:
        """The verdicts of a finished game that ``user_id`` asks for, as its variant works
        them out: at once on 3×3, else once, away from the event loop, and kept (an
        ultimate game's by the engine's estimate). ``waiting`` is called before waiting
        for the engine (to say "thinking"), never for a review already kept.

        Raises:
            Refusal: ``engine.busy_member`` or ``engine.busy`` (see
                :class:`~bot.core.engine_gate.EngineGate`), before anything is called.
        """
        return await self.reviews.of(game, user_id, waiting=waiting)

    async def review_target(
        self, guild_id: int | None, user_id: int, game_id: int | None = None,
        *, guest: bool = False,
    ) -> Game:  # fmt: skip
        """The game a review asks for: ``game_id``, or the member's last finished game in
        the server (None: in direct messages).

        Raises:
            Refusal: no such game, no game yet, or still running.
        """
        if game_id is None:
            games = await self.store.finished_games_of(guild_id, user_id, limit=1)
            if not games:
                raise Refusal(_none_key("review", guild_id, guest))
            game = games[0]
        else:
            found = await self.store.get_game(game_id)
            if found is None:
                raise Refusal("game.unknown")
            game = found
        if not reviewable(game):
            raise Refusal("review.running")
        return game

    async def forget(self, user_id: int, owner_id: int, confirmed: bool) -> int | None:
        """Delete ``owner_id``'s records if ``confirmed``: the number of games deleted, or
        None when they cancelled.

        Raises:
            Refusal: someone else's confirmation, or a game of theirs still runs.
        """
        if user_id != owner_id:
            raise Refusal("forget.not_yours")
        if not confirmed:
            return None
        if any(g.mark_of(user_id) for g in await self.store.running_games()):
            raise Refusal("forget.running")
        # first: a page signed in before must not read what is being deleted
        await self.revoke_sessions(user_id)
        return await self.store.forget_player(user_id)

    async def revoke_sessions(self, user_id: int) -> None:
        """End the member's Activity sessions now, in every process (forget-me, a ban):
        the page signs in again, which a member no longer in the Activity cannot."""
        await self.store.revoke_sessions(user_id, self.clock())


def _none_key(command: str, guild_id: int | None, guest: bool = False) -> str:
    """The refusal for a member with no games: in this server, in our DMs, or (a guest:
    only their own install reaches here) anywhere outside the servers that added ttt."""
    if guild_id is not None:
        return f"{command}.none"
    return f"{command}.none_guest" if guest else f"{command}.none_dm"
