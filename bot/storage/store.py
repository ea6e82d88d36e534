"""Every :class:`~bot.core.repository.Store` method, once for both backends: each is one
query of the ``*_queries`` modules, run on
whatever :class:`~bot.storage.sql.Db` the subclass's ``_call`` provides (SQLite's
connection on its thread, a pooled PostgreSQL connection, or a transaction's)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from bot.core.doubts import Touched
from bot.core.models import Challenge, Game, Variant
from bot.core.repository import SESSIONS_TOPIC, BotRecord, Rating
from bot.core.tournaments.models import Entrant, Match, Tournament
from bot.storage import challenge_queries as challenges
from bot.storage import courtesy_queries as courtesy
from bot.storage import game_queries as games
from bot.storage import interaction_queries as claims
from bot.storage import list_queries as lists
from bot.storage import outages
from bot.storage import record_queries as records
from bot.storage import session_queries as sessions
from bot.storage import setting_queries as settings
from bot.storage import token_queries as tokens
from bot.storage import tournament_queries as tournaments
from bot.storage.board_writes import BoardWrites
from bot.storage.puzzle_store import PuzzleSql
from bot.storage.reminder_store import ReminderSql

T = TypeVar("T")


class SqlStore(PuzzleSql, ReminderSql):
    _boards: BoardWrites
    """Boards posted and not stored yet, shared by a repository and its transactions."""

    async def _call(
        self, fn: Callable[..., Awaitable[T]], *args: Any, touches: Sequence[Touched] = ()
    ) -> T:
        """``fn(db, *args)`` on this store's connection. ``touches``: what its writes
        change that is shown somewhere, re-read and shown again should their outcome be
        unknown (see :mod:`bot.core.doubts`).

        Raises:
            OutcomeUnknown: a write was sent and its answer never came.
        """
        raise NotImplementedError

    def unreachable(self, exc: BaseException) -> bool:
        return outages.unreachable(exc)

    # --- games ---
    async def create_game(self, game: Game) -> Game:
        return await self._call(games.insert_game, game, touches=[_new_game(game)])

    async def create_game_if_room(
        self, game: Game, room: int, locks: Sequence[tuple[str, int]] = ()
    ) -> Game | None:
        return await self._call(
            games.insert_game_if_room, game, room, locks, touches=[_new_game(game)]
        )

    async def import_finished_games(self, finished: list[Game]) -> None:
        """Store already-finished games (and fold them into the records) at once: for
        imports and benchmarks, not for games being played."""
        await self._call(games.import_finished_games, finished)

    async def get_game(self, game_id: int) -> Game | None:
        return self._boards.known(await self._call(games.get_game, game_id))

    async def save_game(self, game: Game, expected_ply: int, clicked: int | None = None) -> Game:
        saved = await self._call(
            games.save_game, game, expected_ply, clicked, touches=[Touched("game", game.id)]
        )
        return self._boards.known(saved)

    async def save_courtesy(self, game: Game, before: Game) -> None:
        await self._call(courtesy.save_courtesy, game, before, touches=[Touched("game", game.id)])

    async def block_member(self, blocker_id: int, blocked_id: int, now: float) -> bool:
        return await self._call(courtesy.block, blocker_id, blocked_id, now)

    async def unblock_member(self, blocker_id: int, blocked_id: int) -> bool:
        return await self._call(courtesy.unblock, blocker_id, blocked_id)

    async def blockers_between(self, first: int, second: int) -> set[int]:
        return await self._call(courtesy.blockers_between, first, second)

    async def set_game_message(self, game_id: int, message_id: int) -> None:
        """Stored by the first click on the board, or within a second (see
        :mod:`bot.storage.board_writes`); games read here show it at once."""
        self._boards.note(game_id, message_id)

    async def _set_game_message_if_none(self, game_id: int, message_id: int) -> bool:
        return await self._call(games.set_game_message_if_none, game_id, message_id)

    async def move_game_message(self, game_id: int, old: int | None, new: int) -> bool:
        await self._boards.write_now(game_id)  # ``old`` may be a board not stored yet
        return await self._call(
            games.move_game_message, game_id, old, new, touches=[Touched("game", game_id)]
        )

    async def set_ping_message(self, game_id: int, ply: int, message_id: int) -> bool:
        return await self._call(games.set_ping_message, game_id, ply, message_id)

    async def take_ping_message(self, game_id: int, message_id: int) -> bool:
        return await self._call(games.take_ping_message, game_id, message_id)

    async def mark_hinted(self, game_id: int, expected_ply: int) -> None:
        await self._call(
            games.mark_hinted, game_id, expected_ply, touches=[Touched("game", game_id)]
        )

    async def running_games(self) -> list[Game]:
        return self._boards.known(await self._call(games.running_games))

    async def running_games_in(self, channel_id: int) -> list[Game]:
        return self._boards.known(await self._call(games.running_games_in, channel_id))

    async def channel_load(self, channel_id: int) -> tuple[int, int]:
        return await self._call(games.channel_load, channel_id)

    async def running_game_of(self, guild_id: int | None, user_id: int) -> Game | None:
        return self._boards.known(await self._call(games.running_game_of, guild_id, user_id))

    async def correspondence_games_of(self, user_id: int, guild_id: int | None = None) -> int:
        return await self._call(games.correspondence_games_of, user_id, guild_id)

    async def games_list_of(self, user_id: int, now: float) -> tuple[list[Game], list[Challenge]]:
        running, pending = await self._call(lists.games_list_of, user_id, now)
        return self._boards.known(running), pending

    async def last_start(self, guild_id: int | None, user_id: int) -> float | None:
        return await self._call(games.last_start, guild_id, user_id)

    async def games_due(self, now: float) -> list[Game]:
        """Running games whose deadline passed (on PostgreSQL, claimed for this process
        for a while, so two timekeepers never race to end the same game)."""
        return self._boards.known(await self._call(games.games_due, now))

    async def next_deadline(self) -> float | None:
        return await self._call(games.next_deadline)

    # --- challenges ---
    async def create_challenge(self, challenge: Challenge) -> Challenge:
        new = Touched("new_challenge", challenge.channel_id, challenge.created_at)
        return await self._call(challenges.create_challenge, challenge, touches=[new])

    async def get_challenge(self, challenge_id: int) -> Challenge | None:
        return await self._call(challenges.get_challenge, challenge_id)

    async def pending_challenge_in(self, channel_id: int) -> Challenge | None:
        return await self._call(challenges.pending_challenge_in, channel_id)

    async def pending_challenges_in(self, channel_id: int) -> list[Challenge]:
        return await self._call(challenges.pending_challenges_in, channel_id)

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        await self._call(challenges.set_challenge_message, challenge_id, message_id)

    async def close_challenge(self, challenge: Challenge, status: str) -> None:
        await self._call(
            challenges.close_challenge, challenge, status,
            touches=[Touched("challenge", challenge.id)],
        )  # fmt: skip

    async def accept_challenge(self, challenge: Challenge, game: Game) -> Game:
        return await self._call(
            challenges.accept_challenge, challenge, game,
            touches=[Touched("challenge", challenge.id), _new_game(game)],
        )  # fmt: skip

    async def challenges_due(self, now: float) -> list[Challenge]:
        """Pending challenges whose time ran out (claimed as :meth:`games_due` claims)."""
        return await self._call(challenges.challenges_due, now)

    # --- records ---
    async def finished_games_of(
        self, guild_id: int | None, user_id: int, limit: int | None = None
    ) -> list[Game]:
        finished = await self._call(games.finished_games_of, guild_id, user_id, limit)
        return self._boards.known(finished)

    async def leaderboard(
        self, guild_id: int, limit: int, variant: Variant = "classic"
    ) -> list[Rating]:
        return await self._call(records.leaderboard, guild_id, limit, variant)

    async def rank_of(
        self, guild_id: int, user_id: int, variant: Variant = "classic"
    ) -> tuple[int, Rating] | None:
        return await self._call(records.rank_of, guild_id, user_id, variant)

    async def rating_series(
        self, scope: int, user_id: int, limit: int, variant: Variant = "classic"
    ) -> list[float]:
        return await self._call(records.rating_series, scope, user_id, limit, variant)

    async def best_against_bot(
        self, guild_id: int, difficulty: str, limit: int, variant: Variant = "classic"
    ) -> list[BotRecord]:
        return await self._call(records.best_against_bot, guild_id, difficulty, limit, variant)

    async def forget_player(self, user_id: int) -> int:
        return await self._call(records.forget_player, user_id)

    async def revoke_sessions(self, user_id: int, at: float) -> None:
        await self._call(sessions.revoke_sessions, user_id, at)
        await self._tell(SESSIONS_TOPIC, str(user_id))

    async def sessions_not_before(self, user_id: int) -> float | None:
        return await self._call(sessions.sessions_not_before, user_id)

    async def _tell(self, topic: str, payload: str) -> None:
        """Tell every process listening to ``topic`` (a repository does; a transaction
        tells nobody: what it wrote is not committed yet)."""

    async def review_of(self, game_id: int) -> str | None:
        return await self._call(records.review_of, game_id)

    async def keep_review(self, game_id: int, body: str, now: float) -> bool:
        return await self._call(records.keep_review, game_id, body, now)

    # --- tournaments ---
    async def create_tournament(self, tournament: Tournament) -> Tournament:
        return await self._call(tournaments.create_tournament, tournament)

    async def get_tournament(self, tournament_id: int) -> Tournament | None:
        return await self._call(tournaments.get_tournament, tournament_id)

    async def active_tournament_in(self, channel_id: int) -> Tournament | None:
        return await self._call(tournaments.active_tournament_in, channel_id)

    async def save_tournament(self, tournament: Tournament) -> None:
        await self._call(
            tournaments.save_tournament, tournament, touches=[_tournament(tournament.id)]
        )

    async def set_tournament_message(self, tournament_id: int, message_id: int) -> None:
        await self._call(
            tournaments.set_tournament_message, tournament_id, message_id,
            touches=[_tournament(tournament_id)],
        )  # fmt: skip

    async def running_tournaments(self) -> list[int]:
        return await self._call(tournaments.running_tournaments)

    async def tournaments_due(self, now: float) -> list[int]:
        return await self._call(tournaments.tournaments_due, now)

    async def tournaments_unshown(self, now: float, grace: float) -> list[int]:
        return await self._call(tournaments.tournaments_unshown, now, grace)

    async def entrants(self, tournament_id: int) -> list[Entrant]:
        return await self._call(tournaments.entrants, tournament_id)

    async def add_entrant(self, tournament_id: int, entrant: Entrant) -> None:
        await self._call(
            tournaments.add_entrant, tournament_id, entrant, touches=[_tournament(tournament_id)]
        )

    async def drop_entrant(self, tournament_id: int, user_id: int) -> bool:
        return await self._call(
            tournaments.drop_entrant, tournament_id, user_id,
            touches=[_tournament(tournament_id)],
        )  # fmt: skip

    async def save_entrant(self, tournament_id: int, entrant: Entrant) -> None:
        await self._call(
            tournaments.save_entrant, tournament_id, entrant, touches=[_tournament(tournament_id)]
        )

    async def ratings_of(
        self, scope: int, user_ids: list[int], variant: Variant = "classic"
    ) -> dict[int, float]:
        return await self._call(tournaments.ratings_of, scope, user_ids, variant)

    async def matches(self, tournament_id: int) -> list[Match]:
        return await self._call(tournaments.matches, tournament_id)

    async def get_match(self, match_id: int) -> Match | None:
        return await self._call(tournaments.get_match, match_id)

    async def insert_match(self, match: Match) -> Match:
        return await self._call(
            tournaments.insert_match, match, touches=[_tournament(match.tournament_id)]
        )

    async def save_match(self, match: Match) -> None:
        await self._call(tournaments.save_match, match, touches=[_tournament(match.tournament_id)])

    async def claim_match_opening(self, match_id: int, now: float, until: float) -> bool:
        return await self._call(tournaments.claim_match_opening, match_id, now, until)

    async def place_match(self, match_id: int, thread_id: int, message_id: int) -> bool:
        return await self._call(tournaments.place_match, match_id, thread_id, message_id)

    async def tournament_games(self, tournament_id: int) -> list[Game]:
        return self._boards.known(await self._call(tournaments.tournament_games, tournament_id))

    # --- server settings and bot state ---
    async def guild_overrides(self, guild_id: int) -> dict[str, object]:
        return await self._call(settings.guild_overrides, guild_id)

    async def set_guild_overrides(self, guild_id: int, overrides: dict[str, object]) -> None:
        await self._call(settings.set_guild_overrides, guild_id, overrides)

    # --- interaction tokens ---
    async def keep_token(
        self, kind: str, item_id: int, token: str, expires_at: float, now: float
    ) -> None:
        await self._call(tokens.keep_token, kind, item_id, token, expires_at, now)

    async def token_of(self, kind: str, item_id: int, now: float) -> str | None:
        return await self._call(tokens.token_of, kind, item_id, now)

    async def kept_token(self, kind: str, item_id: int, now: float) -> tuple[str, float] | None:
        return await self._call(tokens.kept_token, kind, item_id, now)

    async def forget_token(self, kind: str, item_id: int) -> None:
        await self._call(tokens.forget_token, kind, item_id)

    # --- interactions over HTTP ---
    async def claim_interaction(self, interaction_id: int, forget_below: int | None = None) -> bool:
        return await self._call(claims.claim_interaction, interaction_id, forget_below)

    async def get_meta(self, key: str) -> str | None:
        return await self._call(settings.get_meta, key)

    async def set_meta(self, key: str, value: str) -> None:
        await self._call(settings.set_meta, key, value)


def _new_game(game: Game) -> Touched:
    """A game being inserted, found again by its channel and creation time."""
    return Touched("new_game", game.channel_id, game.created_at)


def _tournament(tournament_id: int) -> Touched:
    return Touched("tournament", tournament_id)
