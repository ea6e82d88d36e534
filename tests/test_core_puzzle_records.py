"""Puzzle records without Discord, on SQLite and PostgreSQL: the daily streak over fake
days, training near the member's rating, a puzzle from the member's own finished game,
the server leaderboard and forget-me."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import asyncpg
import pytest

from bot.core.puzzles.glicko2 import MEMBER_START, PROVISIONAL, away, duel, puzzle_start
from bot.core.puzzles.models import EXPIRY, Attempt, PuzzleBoard, PuzzleRating
from bot.core.puzzles.starts import COMING_DAYS
from bot.core.refusals import Refusal
from bot.i18n import text
from bot.i18n.texts import with_keys
from engine import Board
from engine.puzzles import by_id, load, move_wins, reply, winning_moves
from engine.puzzles.schedule import coming

from core_harness import GUILD, Core, member_game, open_core, play, refusal_key
from fault_harness import waiting_backend
from puzzle_harness import ALICE, BOB, CAROL, day_clock, puzzle_of, solve_daily

DAY = 24 * 3600.0


async def test_the_streak_counts_days_in_a_row_and_keeps_the_best(make_core) -> None:  # type: ignore[no-untyped-def]
    clock = day_clock(1)
    core: Core = await make_core(clock=clock)
    await solve_daily(core, ALICE)
    clock.advance(DAY)  # day 2: today's not solved yet, yesterday's streak still shows
    player = await core.puzzles.player(ALICE)
    assert player is not None and (player.streak, player.best_streak) == (1, 1)
    await solve_daily(core, ALICE)
    player = await core.puzzles.player(ALICE)
    assert player is not None and (player.streak, player.best_streak) == (2, 2)
    clock.advance(2 * DAY)  # day 4: day 3 was missed
    player = await core.puzzles.player(ALICE)
    assert player is not None and (player.streak, player.best_streak) == (0, 2)
    await solve_daily(core, ALICE)
    player = await core.puzzles.player(ALICE)
    assert player is not None and (player.streak, player.best_streak, player.solved) == (1, 2, 3)
    share = await core.puzzles.share(ALICE, (await core.puzzles.open(ALICE, GUILD)).attempt.id,
                                     GUILD)  # fmt: skip
    assert (share.daily, share.streak, share.retry) == (4, 1, False)


async def test_a_daily_begun_before_midnight_counts_for_its_day(make_core) -> None:  # type: ignore[no-untyped-def]
    clock = day_clock(1, hour=23)
    core: Core = await make_core(clock=clock)
    attempt = (await core.puzzles.open(ALICE, GUILD)).attempt
    clock.advance(3600 + 60)  # past midnight, past the 30 minutes too: expired
    view = await core.puzzles.show(ALICE, attempt.id)
    assert view.attempt.outcome == "expired"
    retry = (await core.puzzles.retry(ALICE, attempt.id)).attempt
    line = puzzle_of(1).line
    for ply in range(0, len(line), 2):
        view = await core.puzzles.move(ALICE, retry.id, ply, line[ply])
    assert view.attempt.status == "solved" and view.attempt.daily == 1
    player = await core.puzzles.player(ALICE)  # a Retry of #1 started on day 2: no day
    assert player is not None and player.streak == 0 and player.solved == 0  # nor a solve


def puzzle_of_id(attempt: Attempt) -> int:
    """The one winning first move of a set puzzle's attempt."""
    return next(p.first for p in load() if p.id == attempt.puzzle_id)


async def fail(core: Core, user: int, attempt: Attempt) -> None:
    """End an attempt with a wrong first move (an unrated one never expires)."""
    puzzle = by_id(attempt.puzzle_id)
    wrong = next(m for m in puzzle.board().legal_moves() if m != puzzle.first)
    assert (await core.puzzles.move(user, attempt.id, 0, wrong)).attempt.over


def nearest(rating: float, kind: str, tried: set[str]) -> list[float]:
    """The distances of the untried puzzles of ``kind`` from ``rating``, nearest first
    (every puzzle stands at its seed rating: nobody else moved one)."""
    return sorted(abs(p.rating - rating) for p in load() if p.kind == kind and p.id not in tried)


async def test_training_is_near_the_rating_and_never_a_tried_puzzle(make_core) -> None:  # type: ignore[no-untyped-def]
    clock = day_clock(1)  # the daily is a 5×5
    core: Core = await make_core(clock=clock)
    tried: set[str] = set()
    rating = 1500.0
    kept = coming(1, COMING_DAYS)  # first dailies of the next three years: never given
    assert sum(p.kind == "4x4" for p in load()) - len({i for i in kept if i[:3] == "4x4"}) > 1000
    for _ in range(12):
        view = await core.puzzles.open(ALICE, GUILD, "training", "4x4")
        attempt = view.attempt
        assert attempt.kind == "4x4" and attempt.rated and attempt.puzzle_id not in tried
        assert attempt.puzzle_id not in kept
        seed = next(p.rating for p in load() if p.id == attempt.puzzle_id)
        near = nearest(rating, "4x4", tried | kept)
        assert abs(seed - rating) <= near[4]  # among the five nearest
        tried.add(attempt.puzzle_id)
        clock.advance(EXPIRY)  # failed at the next open: the rating goes down
        rating = (await core.puzzles.show(ALICE, attempt.id)).attempt.rating_after or rating
    any_board = (await core.puzzles.open(BOB, GUILD, "training")).attempt
    assert any_board.kind in ("4x4", "5x5", "ultimate") and any_board.rated


async def test_training_never_gives_a_daily_to_come_and_says_so_when_none_is_left(
    make_core,
) -> None:  # type: ignore[no-untyped-def]
    # Every 3×3 puzzle is a daily of the first year (#7, #14, ..., #357): on day 1 none
    # is training's; on day 8 only #7's; a year on, all of them, and then none is left.
    clock = day_clock(1)
    core: Core = await make_core(clock=clock)
    assert await refusal_key(core.puzzles.open(ALICE, GUILD, "training", "3x3")) == (
        "puzzle.none_left_dailies")  # fmt: skip
    clock.advance(7 * DAY)
    beginner = (await core.puzzles.open(ALICE, GUILD, "training", "3x3")).attempt
    assert beginner.puzzle_id == puzzle_of(7).id and not beginner.rated
    await fail(core, ALICE, beginner)
    assert await refusal_key(core.puzzles.open(ALICE, GUILD, "training", "3x3")) == (
        "puzzle.none_left_dailies")  # fmt: skip
    assert "coming daily" in text("puzzle.none_left_dailies", "en")
    clock.advance(400 * DAY)  # every 3×3 daily is past: all 51 are training's
    given = {beginner.puzzle_id}
    for _ in range(50):
        attempt = (await core.puzzles.open(ALICE, GUILD, "training", "3x3")).attempt
        assert attempt.kind == "3x3" and attempt.puzzle_id not in given
        given.add(attempt.puzzle_id)
        await fail(core, ALICE, attempt)
    assert given == {p.id for p in load() if p.kind == "3x3"}
    assert await refusal_key(core.puzzles.open(ALICE, GUILD, "training", "3x3")) == (
        "puzzle.none_left")  # fmt: skip


async def test_an_own_puzzle_from_a_missed_win_in_a_real_game(make_core) -> None:  # type: ignore[no-untyped-def]
    core: Core = await make_core(clock=day_clock(1))
    game_id = await member_game(core, ALICE, BOB)
    # X 0, O 1, X 4, O 8: X forks with 3 or 6 (a win in two) and plays 7 instead
    await play(core, game_id, (ALICE, 0), (BOB, 1), (ALICE, 4), (BOB, 8), (ALICE, 7))
    await core.games.resign(ALICE, game_id=game_id)
    view = await core.puzzles.open(ALICE, GUILD, "own")
    attempt = view.attempt
    board = Board.from_string("XO..X...O")
    assert (attempt.puzzle_id, attempt.mode, attempt.rated) == (f"own-{game_id}-4", "own", False)
    assert (attempt.position, attempt.n, attempt.to_move) == (board.to_string(), 2, "X")
    assert winning_moves(board, 2) == [3, 6]  # several first moves are right
    view = await core.puzzles.move(ALICE, attempt.id, 0, 3)
    assert view.last_reply == reply(board.play(3), 1) and not view.attempt.over
    after = board.play(3).play(view.last_reply)
    win = next(c for c in after.legal_moves() if move_wins(after, c, 1))
    view = await core.puzzles.move(ALICE, attempt.id, 2, win)
    assert view.attempt.status == "solved" and view.attempt.rating_after is None
    player = await core.puzzles.player(ALICE)
    assert player is not None and player.rating.rating == 1500.0
    assert await refusal_key(core.puzzles.open(ALICE, GUILD, "own")) == "puzzle.no_own"
    assert await refusal_key(core.puzzles.open(CAROL, GUILD, "own")) == "puzzle.no_own"


async def establish(core: Core, *members: int, deviation: float = 100.0) -> None:
    """Each member's deviation set to ``deviation`` as of now, their rating kept: what a
    dozen rated puzzles would leave, without playing them."""
    for member in members:
        async with core.repo.atomic() as tx:
            player = await tx.lock_puzzle_player(member, MEMBER_START)
            rating = replace(player.rating, deviation=deviation)
            await tx.save_puzzle_player(replace(player, rating=rating, rated_at=core.clock()))


async def test_the_leaderboard_ranks_established_ratings_and_counts_provisional_ones(
    make_core,
) -> None:  # type: ignore[no-untyped-def]
    clock = day_clock(2)
    core: Core = await make_core(clock=clock)
    await solve_daily(core, ALICE, GUILD)
    bob = (await core.puzzles.open(BOB, GUILD)).attempt
    await core.puzzles.move(BOB, bob.id, 0, 27)  # wrong
    one = await core.puzzles.player(ALICE)  # one solve: a high rating, deviation 268
    assert one is not None and one.rating.rating > 1600 and one.rating.deviation > PROVISIONAL
    assert await core.puzzles.leaderboard(GUILD) == PuzzleBoard((), 2)
    await establish(core, BOB)
    (standing,) = (await core.puzzles.leaderboard(GUILD)).standings
    assert standing.user_id == BOB and (await core.puzzles.leaderboard(GUILD)).provisional == 1
    # bob stays away: 100 grows past 110 in about 90 days (the time-away step)
    assert away(PuzzleRating(0, 100, 0.06), 89 * DAY).deviation < PROVISIONAL
    assert away(PuzzleRating(0, 100, 0.06), 91 * DAY).deviation > PROVISIONAL
    clock.advance(89 * DAY)
    assert [s.user_id for s in (await core.puzzles.leaderboard(GUILD)).standings] == [BOB]
    clock.advance(2 * DAY)
    assert await core.puzzles.leaderboard(GUILD) == PuzzleBoard((), 2)


async def test_the_leaderboard_is_per_server_and_forget_me_removes_puzzles(make_core) -> None:  # type: ignore[no-untyped-def]
    clock = day_clock(9)  # #7's 3×3 is training's by then
    core: Core = await make_core(clock=clock)
    await solve_daily(core, ALICE, GUILD)
    await solve_daily(core, BOB, GUILD + 1)
    carol = (await core.puzzles.open(CAROL, GUILD)).attempt
    await fail(core, CAROL, carol)
    dave = 104  # a record from an unrated 3×3, and today's daily open here: not listed yet
    beginner = (await core.puzzles.open(dave, None, "training", "3x3")).attempt
    first = puzzle_of_id(beginner)
    wrong = next(c for c in range(9) if beginner.position[c] == "." and c != first)
    await core.puzzles.move(dave, beginner.id, 0, wrong)
    assert (await core.puzzles.player(dave)) is not None
    await core.puzzles.open(dave, GUILD)
    await establish(core, ALICE, CAROL)  # as if each had played a dozen rated puzzles
    board = (await core.puzzles.leaderboard(GUILD)).standings
    assert [s.user_id for s in board] == [ALICE, CAROL]
    assert board[0].rating > 1500 > board[1].rating and (board[0].solved, board[0].tried) == (1, 1)
    assert (await core.puzzles.leaderboard(GUILD + 1)) == PuzzleBoard((), 1)  # bob: provisional
    puzzle = puzzle_of(9).id
    moved = (await core.repo.puzzle_ratings())[puzzle]
    assert await core.records.forget(ALICE, ALICE, confirmed=True) == 0
    assert await core.puzzles.player(ALICE) is None
    assert await core.repo.tried_puzzles(ALICE) == set()
    assert [s.user_id for s in (await core.puzzles.leaderboard(GUILD)).standings] == [CAROL]
    assert (await core.repo.puzzle_ratings())[puzzle] == moved  # the puzzle's own stays
    again = (await core.puzzles.open(ALICE, GUILD)).attempt
    assert not again.rated and again.id != carol.id  # tried before forget-me: not a first


async def test_a_year_away_widens_the_deviation_before_the_next_rated_attempt(make_core) -> None:  # type: ignore[no-untyped-def]
    clock = day_clock(1)
    core: Core = await make_core(clock=clock)
    await solve_daily(core, ALICE)
    back = await core.puzzles.player(ALICE)
    assert back is not None and back.rated_at == clock()
    clock.advance(365 * DAY)  # daily #366: a year later
    attempt = (await core.puzzles.open(ALICE, GUILD)).attempt
    puzzle = puzzle_of(366)
    assert attempt.rated and attempt.puzzle_id == puzzle.id
    other = next(c for c, m in enumerate(puzzle.position) if m == "." and c != puzzle.first)
    done = (await core.puzzles.move(ALICE, attempt.id, 0, other)).attempt
    grown = away(back.rating, 365 * DAY)
    assert grown.deviation > back.rating.deviation + 10
    expected, _ = duel(grown, puzzle_start(puzzle.rating), solved=False)
    kept, _ = duel(back.rating, puzzle_start(puzzle.rating), solved=False)
    player = await core.puzzles.player(ALICE)
    assert player is not None and player.rated_at == clock()
    assert player.rating.rating == pytest.approx(expected.rating) == done.rating_after
    assert player.rating.deviation == pytest.approx(expected.deviation)
    assert abs(expected.rating - kept.rating) > 1  # the step made a difference


async def test_retry_never_fails_a_rated_open_attempt_and_drops_an_unrated_one(make_core) -> None:  # type: ignore[no-untyped-def]
    core: Core = await make_core(clock=day_clock(2))
    done = (await core.puzzles.open(ALICE, GUILD)).attempt
    await core.puzzles.move(ALICE, done.id, 0, 27)  # wrong: over
    training = (await core.puzzles.open(ALICE, GUILD, "training", "4x4")).attempt
    assert training.rated and not training.over
    before = await core.puzzles.player(ALICE)
    with pytest.raises(Refusal) as refused:  # Retry on the old daily's message
        await core.puzzles.retry(ALICE, done.id)
    assert refused.value.key == "puzzle.retry.open_training"
    assert refused.value.params == {"board_key": "puzzle.kind.4x4"}
    assert text(refused.value.key, "en", **with_keys(refused.value.params, "en")) == (
        "Your rated 4×4 training puzzle is still open, and a Retry now would count it as"
        " failed. Finish it first (`/ttt puzzle` shows it), then Retry."
    )
    assert await core.puzzles.player(ALICE) == before  # nothing changed
    assert (await core.puzzles.current(ALICE)).attempt == training  # type: ignore[union-attr]
    line = by_id(training.puzzle_id).line  # finished: now a Retry may start
    for ply in range(0, len(line), 2):
        await core.puzzles.move(ALICE, training.id, ply, line[ply])
    retry = (await core.puzzles.retry(ALICE, done.id)).attempt
    assert not retry.rated and retry.retry_of == done.id
    beginner = (await core.puzzles.retry(ALICE, training.id)).attempt  # drops the open retry
    assert await core.repo.get_puzzle_attempt(retry.id) is None and not beginner.rated
    assert (await core.puzzles.current(ALICE)).attempt.id == beginner.id  # type: ignore[union-attr]


async def test_retry_names_an_open_rated_daily(make_core) -> None:  # type: ignore[no-untyped-def]
    clock = day_clock(9)  # #7's 3×3 is training's by then
    core: Core = await make_core(clock=clock)
    beginner = (await core.puzzles.open(ALICE, None, "training", "3x3")).attempt
    first = by_id(beginner.puzzle_id).line[0]
    wrong = next(c for c in range(9) if beginner.position[c] == "." and c != first)
    await core.puzzles.move(ALICE, beginner.id, 0, wrong)  # an unrated puzzle, over
    daily = (await core.puzzles.open(ALICE, GUILD)).attempt
    assert daily.rated
    with pytest.raises(Refusal) as refused:
        await core.puzzles.retry(ALICE, beginner.id)
    assert (refused.value.key, refused.value.params) == (
        "puzzle.retry.open_daily", {"number": 9, "board_key": "puzzle.kind.ultimate"})  # fmt: skip
    shown = (await core.puzzles.show(ALICE, daily.id)).attempt
    assert shown == daily  # still open, as it was


@pytest.mark.postgres
async def test_a_finish_and_forget_me_take_the_same_lock_order(pg_database: str) -> None:
    """A finish holds the member's puzzle row; forget-me, started then, waits for it
    before it touches an attempt, so the finish writes its attempt and ends, and then
    forget-me deletes it all (the other order deadlocked: PostgreSQL aborted one)."""
    core = await open_core(pg_database, day_clock(2))
    observer = await asyncpg.connect(pg_database)
    try:
        await solve_daily(core, ALICE)  # a record to hold
        attempt = (await core.puzzles.open(ALICE, GUILD, "training", "4x4")).attempt
        async with core.repo.atomic() as tx:  # a finish, as finish.finish runs it
            player = await tx.lock_puzzle_player(ALICE, MEMBER_START)
            forgetting = asyncio.ensure_future(core.records.forget(ALICE, ALICE, confirmed=True))
            await waiting_backend(observer)  # forget-me waits for the member's row
            done = replace(attempt, status="failed", outcome="wrong", finished_at=core.clock())
            await tx.save_puzzle_attempt(done, 0)
            await tx.save_puzzle_player(replace(player, tried=player.tried + 1))
        await forgetting
        assert await core.repo.get_puzzle_attempt(attempt.id) is None
        assert await core.puzzles.player(ALICE) is None
    finally:
        await observer.close()
        await core.repo.close()
