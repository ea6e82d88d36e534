"""A new attempt for ``/ttt puzzle``'s three modes (the service stores and shows it):
today's daily, a training puzzle near the member's rating, or a position from their own
games. Each is only built here; nothing is written.

Rated: the member's first attempt at a set puzzle past 3×3 (an own-game puzzle, a
Retry and a 3×3 puzzle never are; a failed attempt shows the solution, so a later one
is never a first, nor one at a puzzle tried before the member's forget-me).
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
from engine.puzzles.schedule import coming

COMING_DAYS = 1100
"""How far ahead training keeps puzzles for their first daily: the shipped schedule's
length (about three years). Further ahead, a puzzle is training's: the first pass of the
schedule runs a dozen years, and keeping all of it would leave training a few puzzles."""
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
    first = last is None and not await repo.tried_before_forgetting(user_id, puzzle.id)
    return new_attempt(user_id, guild_id, puzzle, "daily", first, now, number)


async def training_attempt(
    repo: PuzzleStore, user_id: int, guild_id: int | None, kind: PuzzleKind | None,
    now: float, rng: random.Random,
) -> Attempt:  # fmt: skip
    """An untried puzzle of ``kind`` near the member's rating (:mod:`training`), never
    one whose first daily is still to come (:data:`COMING_DAYS`, by ``now``): tried in
    training, it would be an unrated daily on its day.

    Raises:
        Refusal: ``puzzle.none_left``, every puzzle of the board tried;
            ``puzzle.none_left_dailies``, the board's untried puzzles are all dailies to
            come.
    """
    tried = await repo.tried_puzzles(user_id)
    with contextlib.suppress(NoDailyPuzzle):  # kept for the daily (training would unrate it)
        tried.add(daily(utc_day(now)).id)
    me = await repo.puzzle_player(user_id)
    rating = (me.rating if me is not None else MEMBER_START).rating
    moved = await repo.puzzle_ratings()
    kept = coming(day_number(now), COMING_DAYS)
    puzzle = training.pick(load(), kind, tried | kept, rating, moved, rng)
    if puzzle is None:
        untried = training.pick(load(), kind, tried, rating, moved, rng)
        raise Refusal("puzzle.none_left" if untried is None else "puzzle.none_left_dailies")
    # Tried before a forget-me (which keeps no list to pick around): unrated.
    first = not await repo.tried_before_forgetting(user_id, puzzle.id)
    return new_attempt(user_id, guild_id, puzzle, "training", first, now)


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
