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
from bot.core.puzzles.models import Attempt, Outcome
from bot.core.puzzles.store import PuzzleStore
from bot.core.repository import Repository
from engine.puzzles import UnknownPuzzle, by_id

NOT_PLAYED: frozenset[Outcome] = frozenset({"expired", "abandoned"})
"""Outcomes of an attempt that was never played out: the puzzle's rating stays."""


async def finish(
    repo: Repository, attempt: Attempt, moves: tuple[int, ...], how: Outcome, now: float
) -> Attempt:
    """The attempt ended at ``now`` with ``moves`` (solved, or failed ``how``), and the
    member's record (and the ratings, when rated) in one transaction. The member's row
    is locked first, then the puzzle's rating, then the attempt is written: the order
    forget-me takes too (:func:`bot.storage.record_queries.forget_player`).

    Raises:
        Conflict: it was no longer open at its ply (nothing written).
    """
    solved = how == "solved"
    async with repo.atomic() as tx:
        player = await tx.lock_puzzle_player(attempt.user_id, MEMBER_START)
        rating, before, after, rated_at = player.rating, None, None, player.rated_at
        if attempt.rated:
            seed = puzzle_start(by_id(attempt.puzzle_id).rating)
            puzzle = await tx.lock_puzzle_rating(attempt.puzzle_id, seed)
            member = rating if rated_at is None else away(rating, attempt.started_at - rated_at)
            rating, moved = duel(member, puzzle, solved)
            if how not in NOT_PLAYED:
                await tx.save_puzzle_rating(attempt.puzzle_id, moved)
            before, after, rated_at = player.rating.rating, rating.rating, now
        done = replace(
            attempt, moves=moves, status="solved" if solved else "failed", outcome=how,
            finished_at=now, rating_before=before, rating_after=after,
        )  # fmt: skip
        await tx.save_puzzle_attempt(done, attempt.ply)
        first = attempt.retry_of is None  # a Retry counts for the streak, not the record
        counts = {"solved": player.solved + (solved and first), "tried": player.tried + first}
        await tx.save_puzzle_player(replace(player, rating=rating, rated_at=rated_at, **counts))
    return done


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
