"""A new attempt for ``/ttt puzzle``'s three modes (the service stores and shows it):
today's daily, a training puzzle near the member's rating, or a position from their own
games. Each is only built here; nothing is written.

Rated: the member's first attempt at a set puzzle past 3×3 (an own-game puzzle, a
Retry and a 3×3 puzzle never are; a failed attempt shows the solution, so a later one
is never a first).
"""

from __future__ import annotations

import contextlib
import random

from bot.core.puzzles import training
from bot.core.puzzles.engine_calls import GameSpec, PuzzleEngine, Searching
from bot.core.puzzles.glicko2 import MEMBER_START
from bot.core.puzzles.models import Attempt, Mode, PuzzleKind
from bot.core.puzzles.store import PuzzleStore
from bot.core.puzzles.streaks import day_number, utc_day
from bot.core.refusals import Refusal
from engine.puzzles import NoDailyPuzzle, Puzzle, daily, load
from engine.puzzles.schedule import schedule

OWN_GAMES = 20
"""How many of a member's newest finished classic games the own-puzzle scan reads."""


def new_attempt(
    user_id: int, guild_id: int | None, puzzle: Puzzle, mode: Mode, first: bool, now: float,
    number: int | None = None,
) -> Attempt:  # fmt: skip
    """An attempt at a set puzzle, rated if ``first`` and past 3×3."""
    return Attempt(
        0, user_id, puzzle.id, puzzle.kind, mode, puzzle.position,  # type: ignore[arg-type]
        puzzle.to_move, puzzle.n, first and puzzle.kind != "3x3", now, guild_id, daily=number,
    )  # fmt: skip


async def daily_attempt(
    repo: PuzzleStore, user_id: int, guild_id: int | None, now: float
) -> Attempt:
    """Today's daily (UTC): a new attempt, or the member's finished one of today.

    Raises:
        Refusal: ``puzzle.no_daily``, before daily #1 (the schedule never ends).
    """
    try:
        puzzle = daily(utc_day(now))
    except NoDailyPuzzle:
        raise Refusal("puzzle.no_daily") from None
    number = day_number(now)
    last = await repo.latest_puzzle_attempt(user_id, puzzle.id)
    if last is not None and last.daily == number:
        return last  # over (an open one is resumed before): shown again
    return new_attempt(user_id, guild_id, puzzle, "daily", last is None, now, number)


async def training_attempt(
    repo: PuzzleStore, user_id: int, guild_id: int | None, kind: PuzzleKind | None,
    now: float, rng: random.Random,
) -> Attempt:  # fmt: skip
    """An untried puzzle of ``kind`` near the member's rating (:mod:`training`).

    Raises:
        Refusal: ``puzzle.none_left``, every puzzle of the board tried.
    """
    tried = await repo.tried_puzzles(user_id)
    with contextlib.suppress(NoDailyPuzzle):  # kept for the daily (training would unrate it)
        tried.add(daily(utc_day(now)).id)
    me = await repo.puzzle_player(user_id)
    rating = (me.rating if me is not None else MEMBER_START).rating
    moved = await repo.puzzle_ratings()
    # The dailies still to come are kept for their day too (a puzzle tried in training
    # would be an unrated daily), while the board has others: 20 of 4×4's 34 and all of
    # 3×3's are scheduled, so once the others are tried training gives them out rather
    # than nothing.
    coming = set(schedule()[max(0, day_number(now) - 1) :])
    puzzle = training.pick(load(), kind, tried | coming, rating, moved, rng) or training.pick(
        load(), kind, tried, rating, moved, rng
    )
    if puzzle is None:
        raise Refusal("puzzle.none_left")
    return new_attempt(user_id, guild_id, puzzle, "training", True, now)


async def own_attempt(
    repo: PuzzleStore, engine: PuzzleEngine, user_id: int, guild_id: int | None, now: float,
    searching: Searching = None,
) -> Attempt:  # fmt: skip
    """A missed win of the member's newest finished classic games, not tried yet
    (unrated).

    Raises:
        Refusal: ``puzzle.no_own`` (none found), ``puzzle.busy`` (the scan ran out of
            time or the engine pool failed).
    """
    specs: list[GameSpec] = []
    for game in await repo.recent_classic_games(user_id, OWN_GAMES):
        mark = game.mark_of(user_id)
        if mark is not None:
            specs.append((game.id, game.size, game.k, game.moves, mark))
    found = await engine.own(specs, await repo.tried_puzzles(user_id), searching)
    if found is None:
        raise Refusal("puzzle.no_own")
    return Attempt(
        0, user_id, f"own-{found.game_id}-{found.ply}", found.kind, "own", found.position,
        found.to_move, found.n, False, now, guild_id,
    )  # fmt: skip
