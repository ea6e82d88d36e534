"""How an attempt ends: the attempt, the member's record and the ratings, written in
one transaction (:func:`finish`), as the core decides them; or, when its puzzle is no
longer in the shipped set (a regenerated set), closed unrated (:func:`withdraw`).

Before a rated attempt's result, the member's deviation grows for the time from the end
of their last rated attempt to this one's start (:func:`~bot.core.puzzles.glicko2.away`).
Both ratings move when the member played the puzzle out (solved, or failed by a wrong or
slow move). An attempt that ended without being played out (``expired``: left open past
the 30 minutes; ``abandoned``) moves the member's rating only: nobody played the puzzle,
so its own rating learns nothing.
"""

from __future__ import annotations

from dataclasses import replace

from bot.core.puzzles.glicko2 import MEMBER_START, away, duel, puzzle_start
from bot.core.puzzles.models import Attempt, Outcome, PuzzlePlayer
from bot.core.puzzles.store import PuzzleStore
from bot.core.repository import Repository
from engine.puzzles import UnknownPuzzle, by_id

NOT_PLAYED: frozenset[Outcome] = frozenset({"expired", "abandoned"})
"""Outcomes of an attempt that was never played out: the puzzle's rating stays."""


async def finish(
    repo: Repository, attempt: Attempt, moves: tuple[int, ...], how: Outcome, now: float
) -> Attempt:
    """:func:`finished`'s attempt."""
    return (await finished(repo, attempt, moves, how, now))[0]


async def finished(
    repo: Repository, attempt: Attempt, moves: tuple[int, ...], how: Outcome, now: float
) -> tuple[Attempt, PuzzlePlayer]:
    """The attempt ended at ``now`` with ``moves`` (solved, or failed ``how``), and the
    member's record (and the ratings, when rated) in one transaction; with the member's
    record as it now stands (without streaks: :mod:`bot.core.puzzles.records` adds
    them), so the end is shown without reading it again. The member's row is locked
    first, then the puzzle's rating, then the attempt is written: the order forget-me
    takes too (:func:`bot.storage.record_queries.forget_player`). An unrated end writes
    two statements: the record's counts (one upsert) and the attempt.

    Raises:
        Conflict: it was no longer open at its ply (nothing written).
    """
    solved = how == "solved"
    first = attempt.retry_of is None  # a Retry counts for the streak, not the record
    counted = int(solved and first), int(first)
    done = replace(
        attempt, moves=moves, status="solved" if solved else "failed", outcome=how,
        finished_at=now,
    )  # fmt: skip
    async with repo.atomic() as tx:
        if not attempt.rated:
            player = await tx.count_puzzle_player(attempt.user_id, MEMBER_START, *counted)
            await tx.save_puzzle_attempt(done, attempt.ply)
            return done, player
        player = await tx.lock_puzzle_player(attempt.user_id, MEMBER_START)
        seed = puzzle_start(by_id(attempt.puzzle_id).rating)
        puzzle = await tx.lock_puzzle_rating(attempt.puzzle_id, seed)
        rated_at = player.rated_at
        member = player.rating if rated_at is None else away(
            player.rating, attempt.started_at - rated_at
        )  # fmt: skip
        rating, moved = duel(member, puzzle, solved)
        if how not in NOT_PLAYED:
            await tx.save_puzzle_rating(attempt.puzzle_id, moved)
        done = replace(done, rating_before=player.rating.rating, rating_after=rating.rating)
        await tx.save_puzzle_attempt(done, attempt.ply)
        after = replace(
            player, rating=rating, rated_at=now, solved=player.solved + counted[0],
            tried=player.tried + counted[1],
        )  # fmt: skip
        await tx.save_puzzle_player(after)
    return done, after


def in_set(attempt: Attempt) -> bool:
    """Whether the attempt's puzzle is one the shipped set holds (an own-game puzzle
    always is: the attempt carries all it needs)."""
    if attempt.mode == "own":
        return True
    try:
        by_id(attempt.puzzle_id)
    except UnknownPuzzle:
        return False
    return True


async def withdraw(repo: PuzzleStore, attempt: Attempt, now: float) -> Attempt:
    """Close an open attempt whose puzzle the set no longer holds: failed, ``withdrawn``,
    unrated (its rating cannot be looked up, and the member did nothing wrong), and
    counted nowhere: the member's record stays as it was.

    Raises:
        Conflict: it was no longer open at its ply (nothing written).
    """
    done = replace(attempt, rated=False, status="failed", outcome="withdrawn", finished_at=now)
    await repo.save_puzzle_attempt(done, attempt.ply)
    return done
