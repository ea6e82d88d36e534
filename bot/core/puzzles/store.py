"""What the puzzles need from storage: a part of the one repository interface
(:class:`bot.core.repository.Store` inherits it), implemented once in SQL for SQLite and
PostgreSQL by :mod:`bot.storage.puzzle_queries`. Storage keeps what the core decided (a
rating, an outcome, a start value); it never decides one."""

from __future__ import annotations

from typing import Protocol

from bot.core.models import Game
from bot.core.puzzles.models import Attempt, PuzzleBoard, PuzzlePlayer, PuzzleRating


class PuzzleStore(Protocol):
    async def insert_puzzle_attempt(self, attempt: Attempt) -> Attempt:
        """Insert ``attempt`` (its id is ignored) and return it with its new id.

        Raises:
            Conflict: the member has an open attempt already (at most one each).
        """

    async def get_puzzle_attempt(self, attempt_id: int) -> Attempt | None: ...

    async def open_puzzle_attempt(self, user_id: int) -> Attempt | None:
        """The member's open attempt, if any."""

    async def latest_puzzle_attempt(self, user_id: int, puzzle_id: str) -> Attempt | None:
        """The member's newest attempt at the puzzle, if any."""

    async def tried_puzzles(self, user_id: int) -> set[str]:
        """The ids of every puzzle the member has an attempt at (open or over)."""

    async def tried_before_forgetting(self, user_id: int, puzzle_id: str) -> bool:
        """True when the member tried the puzzle before a forget-me (only that is kept,
        unlinked from the member: :mod:`bot.storage.forgotten_queries`)."""

    async def save_puzzle_attempt(self, attempt: Attempt, expected_ply: int) -> None:
        """Store an open attempt's moves, status, outcome, end and ratings around it,
        if it is still open at ``expected_ply`` (compare-and-set: of two writers of the
        same ply, one wins).

        Raises:
            Conflict: the stored attempt is no longer open at ``expected_ply``.
        """

    async def drop_puzzle_attempt(self, attempt_id: int) -> bool:
        """Delete an open attempt (an unrated one given up for a Retry); False if it was
        no longer open."""

    async def mark_puzzle_shared(self, attempt_id: int) -> bool:
        """Set a finished attempt's Share flag; False if it was set already (of two
        processes sharing at once, one is told True)."""

    async def puzzle_player(self, user_id: int) -> PuzzlePlayer | None:
        """The member's stored rating and counts (``streak`` is the core's to work out:
        0 here), or None if they never finished an attempt."""

    async def lock_puzzle_player(self, user_id: int, start: PuzzleRating) -> PuzzlePlayer:
        """Inside :meth:`Repository.atomic`: the member's record, created at ``start`` if
        new, held until the transaction ends (another process's finish waits for it)."""

    async def count_puzzle_player(
        self, user_id: int, start: PuzzleRating, solved: int, tried: int
    ) -> PuzzlePlayer:
        """Inside :meth:`Repository.atomic`: add ``solved`` and ``tried`` to the member's
        counts (the record created at ``start`` if new), in one statement; the record as
        it now stands, held until the transaction ends (an unrated end's whole write)."""

    async def save_puzzle_player(self, player: PuzzlePlayer) -> None:
        """Its rating, solved and tried (after :meth:`lock_puzzle_player`)."""

    async def lock_puzzle_rating(self, puzzle_id: str, start: PuzzleRating) -> PuzzleRating:
        """Inside :meth:`Repository.atomic`: the puzzle's rating, created at ``start`` if
        no rated attempt moved it yet, held until the transaction ends."""

    async def save_puzzle_rating(self, puzzle_id: str, rating: PuzzleRating) -> None: ...

    async def puzzle_ratings(self) -> dict[str, float]:
        """Every puzzle's rating that rated attempts have moved (the rest stand at their
        seed rating)."""

    async def solved_dailies(
        self, user_id: int, up_to: int | None = None
    ) -> list[tuple[int, float]]:
        """``(daily number, started_at)`` of each of the member's solved daily attempts
        (``up_to``: only those with an id no higher, the attempts started by then)."""

    async def puzzle_leaderboard(
        self, guild_id: int, limit: int, now: float, growth: float, max_deviation: float
    ) -> PuzzleBoard:
        """The members with a finished rated attempt started through the server whose
        deviation, grown for the time since their last rated attempt to ``now``
        (deviation² + ``growth``·volatility²·seconds), is at most ``max_deviation``, by
        puzzle rating (ties: the lower user id first), and how many others there are."""

    async def recent_classic_games(self, user_id: int, limit: int) -> list[Game]:
        """The member's newest finished classic games (any server, DMs), newest first: at
        most ``limit``."""
