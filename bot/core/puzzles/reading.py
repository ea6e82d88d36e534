"""Reading a member's attempt for the service: whose it is, and what it has become by
now (withdrawn from a regenerated set, or expired past its 30 minutes), each check
written through :mod:`bot.core.puzzles.finish` so it happens once."""

from __future__ import annotations

from bot.core.puzzles.finish import finish, in_set, withdraw
from bot.core.puzzles.models import EXPIRY, Attempt
from bot.core.refusals import Refusal
from bot.core.repository import Conflict, Repository


async def mine(repo: Repository, user_id: int, attempt_id: int) -> Attempt:
    """Raises: Refusal: ``puzzle.unknown``, ``puzzle.not_yours``."""
    attempt = await repo.get_puzzle_attempt(attempt_id)
    if attempt is None:
        raise Refusal("puzzle.unknown")
    if attempt.user_id != user_id:
        raise Refusal("puzzle.not_yours")
    return attempt


async def reread(repo: Repository, attempt: Attempt) -> Attempt:
    """The attempt as stored now. Raises: Refusal: ``puzzle.unknown`` (forgotten)."""
    again = await repo.get_puzzle_attempt(attempt.id)
    if again is None:  # forgotten (forget-me) meanwhile
        raise Refusal("puzzle.unknown")
    return again


async def checked(repo: Repository, attempt: Attempt, now: float) -> Attempt:
    """The attempt, closed (``withdrawn``, unrated) if open at a puzzle the set no
    longer holds, failed (``expired``, rating moved) if it is a rated one open past
    :data:`EXPIRY` at ``now``; as stored now if another process ended it first."""
    if attempt.over:
        return attempt
    try:
        if not in_set(attempt):
            return await withdraw(repo, attempt, now)
        if not attempt.rated or now - attempt.started_at < EXPIRY:
            return attempt
        return await finish(repo, attempt, attempt.moves, "expired", now)
    except Conflict:
        return await reread(repo, attempt)


async def open_of(
    repo: Repository, user_id: int, now: float, withdrawn_too: bool = False
) -> Attempt | None:
    """The member's open attempt after :func:`checked`; with ``withdrawn_too``, also one
    this check just closed as ``withdrawn`` (to be shown once, saying why)."""
    attempt = await repo.open_puzzle_attempt(user_id)
    if attempt is None:
        return None
    attempt = await checked(repo, attempt, now)
    shown = withdrawn_too and attempt.outcome == "withdrawn"
    return None if attempt.over and not shown else attempt
