"""The puzzles' part of :class:`~bot.storage.store.SqlStore`: each
:class:`~bot.core.puzzles.store.PuzzleStore` method is one query of
:mod:`bot.storage.puzzle_queries`, run on the store's connection (or transaction's)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from bot.core.doubts import Touched
from bot.core.models import Game
from bot.core.puzzles.models import Attempt, PuzzleBoard, PuzzlePlayer, PuzzleRating
from bot.storage import forgotten_queries as forgotten
from bot.storage import puzzle_queries as puzzles

T = TypeVar("T")


class PuzzleSql:
    async def _call(
        self, fn: Callable[..., Awaitable[T]], *args: Any, touches: Sequence[Touched] = ()
    ) -> T:
        raise NotImplementedError

    async def insert_puzzle_attempt(self, attempt: Attempt) -> Attempt:
        return await self._call(puzzles.insert_attempt, attempt)

    async def get_puzzle_attempt(self, attempt_id: int) -> Attempt | None:
        return await self._call(puzzles.get_attempt, attempt_id)

    async def open_puzzle_attempt(self, user_id: int) -> Attempt | None:
        return await self._call(puzzles.open_attempt, user_id)

    async def latest_puzzle_attempt(self, user_id: int, puzzle_id: str) -> Attempt | None:
        return await self._call(puzzles.latest_attempt, user_id, puzzle_id)

    async def tried_puzzles(self, user_id: int) -> set[str]:
        return await self._call(puzzles.tried_puzzles, user_id)

    async def tried_before_forgetting(self, user_id: int, puzzle_id: str) -> bool:
        return await self._call(forgotten.tried_before_forgetting, user_id, puzzle_id)

    async def save_puzzle_attempt(self, attempt: Attempt, expected_ply: int) -> None:
        await self._call(puzzles.save_attempt, attempt, expected_ply)

    async def drop_puzzle_attempt(self, attempt_id: int) -> bool:
        return await self._call(puzzles.drop_attempt, attempt_id)

    async def mark_puzzle_shared(self, attempt_id: int) -> bool:
        return await self._call(puzzles.mark_shared, attempt_id)

    async def puzzle_player(self, user_id: int) -> PuzzlePlayer | None:
        return await self._call(puzzles.get_player, user_id)

    async def lock_puzzle_player(self, user_id: int, start: PuzzleRating) -> PuzzlePlayer:
        return await self._call(puzzles.lock_player, user_id, start)

    async def count_puzzle_player(
        self, user_id: int, start: PuzzleRating, solved: int, tried: int
    ) -> PuzzlePlayer:
        return await self._call(puzzles.count_player, user_id, start, solved, tried)

    async def save_puzzle_player(self, player: PuzzlePlayer) -> None:
        await self._call(puzzles.save_player, player)

    async def lock_puzzle_rating(self, puzzle_id: str, start: PuzzleRating) -> PuzzleRating:
        return await self._call(puzzles.lock_rating, puzzle_id, start)

    async def save_puzzle_rating(self, puzzle_id: str, rating: PuzzleRating) -> None:
        await self._call(puzzles.save_rating, puzzle_id, rating)

    async def puzzle_ratings(self) -> dict[str, float]:
        return await self._call(puzzles.ratings)

    async def solved_dailies(
        self, user_id: int, up_to: int | None = None
    ) -> list[tuple[int, float]]:
        return await self._call(puzzles.solved_dailies, user_id, up_to)

    async def puzzle_leaderboard(
        self, guild_id: int, limit: int, now: float, growth: float, max_deviation: float
    ) -> PuzzleBoard:
        return await self._call(puzzles.leaderboard, guild_id, limit, now, growth, max_deviation)

    async def recent_classic_games(self, user_id: int, limit: int) -> list[Game]:
        return await self._call(puzzles.recent_classic_games, user_id, limit)
