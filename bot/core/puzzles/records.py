"""What a member's puzzles add up to: their record with its streaks, the one public line
a finished attempt may be shared as, and the refusal that names an open rated puzzle.
Worked out here from what the repository keeps; only Share writes (its flag)."""

from __future__ import annotations

from dataclasses import replace

from bot.core.puzzles.models import Attempt, PuzzlePlayer, ShareLine
from bot.core.puzzles.store import PuzzleStore
from bot.core.puzzles.streaks import day_number, streaks
from bot.core.refusals import Refusal


async def player_record(repo: PuzzleStore, user_id: int, now: float) -> PuzzlePlayer | None:
    """The member's puzzle record at ``now`` (None: never finished an attempt)."""
    stored = await repo.puzzle_player(user_id)
    return None if stored is None else await with_streaks(repo, stored, now)


async def with_streaks(repo: PuzzleStore, stored: PuzzlePlayer, now: float) -> PuzzlePlayer:
    """The member's stored record (as a finish returns it) with its streaks at ``now``."""
    current, best = streaks(await repo.solved_dailies(stored.user_id), day_number(now))
    return replace(stored, streak=current, best_streak=best)


async def share_line(repo: PuzzleStore, attempt: Attempt) -> ShareLine:
    """The public line of a finished attempt, once: the daily streak as it stood when the
    attempt ended (the dailies solved by it and the attempts before it, on its last
    day), not as it is now.

    Raises:
        Refusal: ``puzzle.share.again`` (this attempt was shared before).
    """
    assert attempt.finished_at is not None  # over
    if not await repo.mark_puzzle_shared(attempt.id):
        raise Refusal("puzzle.share.again")
    by_then = await repo.solved_dailies(attempt.user_id, up_to=attempt.id)
    streak, _ = streaks(by_then, day_number(attempt.finished_at))
    return ShareLine(
        attempt.user_id, attempt.kind, attempt.daily, attempt.status == "solved", attempt.n,
        (attempt.ply + 1) // 2, streak, attempt.retry_of is not None,
    )  # fmt: skip


def rated_open(left: Attempt) -> Refusal:
    """The refusal of a Retry while ``left``, a rated attempt, is open: it names it."""
    board = f"puzzle.kind.{left.kind}"
    if left.daily is not None:
        return Refusal("puzzle.retry.open_daily", number=left.daily, board_key=board)
    return Refusal("puzzle.retry.open_training", board_key=board)
