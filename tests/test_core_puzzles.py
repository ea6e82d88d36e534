"""Puzzles without Discord, on SQLite and PostgreSQL: a daily played along its stored
line, a wrong and a slow move, a deviation judged by search, the 30 minutes, a double
click, Retry, and the refusals. The positions are the shipped set's dailies; what a
move should do is asked of the engine here, independently of the service."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.core.policy import ServerPolicy
from bot.core.puzzles.engine_calls import Judged, PuzzleEngine, Searching, judge_move
from bot.core.puzzles.glicko2 import MEMBER_START, duel, puzzle_start
from bot.core.puzzles.models import EXPIRY, Attempt, PuzzleBoard
from bot.core.puzzles.service import PuzzleService
from bot.core.refusals import Refusal
from engine import EnginePool
from engine.puzzles import Puzzle, reply
from engine.puzzles.records import PuzzleBoard as Position

from core_harness import CHANNEL, GUILD, Core, open_core, refusal_key
from puzzle_harness import ALICE, BOB, day_clock, puzzle_of, solve_daily

DAY = 24 * 3600.0


def today(core: Core):  # type: ignore[no-untyped-def]
    return core.puzzles.today()[1]  # type: ignore[index]


async def test_a_daily_solved_along_its_line_moves_the_rating_once(make_core) -> None:  # type: ignore[no-untyped-def]
    core: Core = await make_core(clock=day_clock(1))
    puzzle = puzzle_of(1)
    view = await core.puzzles.open(ALICE, GUILD)
    attempt = view.attempt
    assert (attempt.puzzle_id, attempt.daily, attempt.rated) == (puzzle.id, 1, True)
    assert view.board == puzzle.position and view.moves_left == puzzle.n and view.number == 1
    for ply in range(0, len(puzzle.line) - 1, 2):
        view = await core.puzzles.move(ALICE, attempt.id, ply, puzzle.line[ply])
        assert view.last_reply == puzzle.line[ply + 1] and not view.attempt.over
        assert view.moves_left == puzzle.n - ply // 2 - 1
    view = await core.puzzles.move(ALICE, attempt.id, len(puzzle.line) - 1, puzzle.line[-1])
    done = view.attempt
    assert (done.status, done.outcome, done.moves) == ("solved", "solved", puzzle.line)
    assert done.rating_before == 1500 and done.rating_after is not None
    assert done.rating_after > 1500 and view.solution == ()
    assert core.puzzles.engine.searches == 0  # every reply came from the stored line
    player = await core.puzzles.player(ALICE)
    assert player is not None and (player.solved, player.tried, player.streak) == (1, 1, 1)
    assert player.rating.rating == done.rating_after
    again = await core.puzzles.open(ALICE, GUILD)  # today's, over: shown again
    assert again.attempt.id == attempt.id and again.attempt.over and not again.resumed
    stale = await core.puzzles.move(ALICE, attempt.id, 0, puzzle.line[0])
    assert stale.stale and (await core.puzzles.player(ALICE)) == player


async def test_a_wrong_move_fails_with_the_refutation_and_the_solution(make_core) -> None:  # type: ignore[no-untyped-def]
    core: Core = await make_core(clock=day_clock(2))
    puzzle = puzzle_of(2)  # ultimate: 40 is the only winning move
    view = await core.puzzles.open(ALICE, None)
    board = puzzle.board()
    view = await core.puzzles.move(ALICE, view.attempt.id, 0, 27)
    done = view.attempt
    assert (done.status, done.outcome) == ("failed", "wrong")
    expected = reply(board.play(27), puzzle.n - 1)
    assert view.refutation == expected and done.moves == (27, expected)
    assert view.solution == puzzle.line
    assert done.rating_after is not None and done.rating_after < 1500
    assert view.player is not None and view.player.tried == 1 and view.player.solved == 0


async def test_a_wrong_5x5_move_along_the_line_is_answered_from_the_set(make_core) -> None:  # type: ignore[no-untyped-def]
    """Daily #1 is a 5×5: a move off its line, made on it, is judged from the set's stored
    refutations (no search: the exact solver cost a wrong 5×5 click 2.1× a game click)
    and answered exactly as the search answers it."""
    core: Core = await make_core(clock=day_clock(1))
    puzzle = puzzle_of(1)
    assert puzzle.kind == "5x5" and puzzle.refutations
    attempt = (await core.puzzles.open(ALICE, GUILD)).attempt
    await core.puzzles.move(ALICE, attempt.id, 0, puzzle.line[0])
    board = puzzle.board().play(puzzle.line[0]).play(puzzle.line[1])
    searched = {
        cell: judge_move("5x5", puzzle.position, puzzle.line[:2], cell, puzzle.n, puzzle.line)
        for cell in board.legal_moves() if cell != puzzle.line[2]
    }  # fmt: skip
    cell = next(c for c, judged in searched.items() if judged.verdict in ("wrong", "slow"))
    view = await core.puzzles.move(ALICE, attempt.id, 2, cell)
    assert core.puzzles.engine.searches == 0
    assert view.attempt.outcome == searched[cell].verdict and view.attempt.status == "failed"
    assert view.refutation == searched[cell].reply and view.solution == puzzle.line


async def test_a_slow_move_fails_as_slow(make_core) -> None:  # type: ignore[no-untyped-def]
    core: Core = await make_core(clock=day_clock(9))
    puzzle = puzzle_of(9)  # ultimate: 0 wins, but not within n
    view = await core.puzzles.open(ALICE, GUILD)
    view = await core.puzzles.move(ALICE, view.attempt.id, 0, 0)
    assert (view.attempt.status, view.attempt.outcome) == ("failed", "slow")
    assert view.solution == puzzle.line and view.refutation is not None


async def test_a_deviation_that_still_wins_is_judged_by_search(make_core) -> None:  # type: ignore[no-untyped-def]
    core: Core = await make_core(clock=day_clock(47))
    puzzle = puzzle_of(47)  # ultimate, n 3: at ply 2, 68 wins as well as the line's 67
    view = await core.puzzles.open(ALICE, GUILD)
    attempt = view.attempt
    await core.puzzles.move(ALICE, attempt.id, 0, puzzle.line[0])
    assert core.puzzles.engine.searches == 0
    view = await core.puzzles.move(ALICE, attempt.id, 2, 68)
    assert core.puzzles.engine.searches == 1 and not view.attempt.over
    board = puzzle.board().play(puzzle.line[0]).play(puzzle.line[1]).play(68)
    assert view.last_reply == reply(board, puzzle.n - 2)  # the longest defence
    assert view.moves_left == 1


async def test_a_rated_attempt_expires_after_30_minutes_once(make_core) -> None:  # type: ignore[no-untyped-def]
    clock = day_clock(1)
    core: Core = await make_core(clock=clock)
    puzzle = puzzle_of(1)
    attempt = (await core.puzzles.open(ALICE, GUILD)).attempt
    await core.puzzles.move(ALICE, attempt.id, 0, puzzle.line[0])
    clock.advance(EXPIRY - 1)
    assert (await core.puzzles.current(ALICE)) is not None
    clock.advance(1)
    assert (await core.puzzles.current(ALICE)) is None
    view = await core.puzzles.show(ALICE, attempt.id)
    assert (view.attempt.status, view.attempt.outcome) == ("failed", "expired")
    assert view.solution == puzzle.line
    rating = view.attempt.rating_after
    assert rating is not None and rating < 1500
    stale = await core.puzzles.move(ALICE, attempt.id, 2, puzzle.line[2])
    assert stale.stale and stale.attempt.moves == puzzle.line[:2]
    player = await core.puzzles.player(ALICE)
    assert player is not None and player.tried == 1 and player.rating.rating == rating


async def test_an_expired_attempt_moves_the_members_rating_not_the_puzzles(make_core) -> None:  # type: ignore[no-untyped-def]
    clock = day_clock(1)
    core: Core = await make_core(clock=clock)
    puzzle = puzzle_of(1)
    attempt = (await core.puzzles.open(ALICE, GUILD)).attempt
    clock.advance(EXPIRY)
    done = (await core.puzzles.show(ALICE, attempt.id)).attempt
    assert (done.status, done.outcome) == ("failed", "expired")
    member, _ = duel(MEMBER_START, puzzle_start(puzzle.rating), solved=False)
    assert done.rating_after == pytest.approx(member.rating) and member.rating < 1500
    ratings = await core.repo.puzzle_ratings()
    assert ratings.get(puzzle.id, puzzle.rating) == puzzle.rating  # nobody played it
    bob = (await core.puzzles.open(BOB, GUILD)).attempt  # a member who plays it out
    other = next(c for c, m in enumerate(puzzle.position) if m == "." and c != puzzle.line[0])
    await core.puzzles.move(BOB, bob.id, 0, other)  # not the one winning move: failed
    assert (await core.repo.puzzle_ratings())[puzzle.id] > puzzle.rating


class PairedEngine(PuzzleEngine):
    """The engine, each judgement held until two are under way: two clicks on the same
    ply, both read before either is stored."""

    def __init__(self) -> None:
        super().__init__()
        self.both = asyncio.Event()
        self.calls = 0

    async def judge(
        self, attempt: Attempt, cell: int, puzzle: Puzzle | None, searching: Searching = None,
        board: Position | None = None,
    ) -> Judged:  # fmt: skip
        self.calls += 1
        if self.calls == 2:
            self.both.set()
        await self.both.wait()
        return await super().judge(attempt, cell, puzzle, searching, board)


async def test_a_double_move_counts_once(make_core) -> None:  # type: ignore[no-untyped-def]
    core: Core = await make_core(clock=day_clock(2))
    attempt = (await core.puzzles.open(ALICE, GUILD)).attempt
    puzzle = puzzle_of(2)
    first, second = await asyncio.gather(  # in one process: the second waits its turn
        core.puzzles.move(ALICE, attempt.id, 0, puzzle.line[0]),
        core.puzzles.move(ALICE, attempt.id, 0, puzzle.line[0]),
    )
    assert [first.stale, second.stale] == [False, True]
    # two processes (two services on one store): both judged, one stored, rated once
    engine = PairedEngine()
    one, two = (
        PuzzleService(core.repo, core.puzzles.policies, clock=core.clock, engine=engine)
        for _ in range(2)
    )
    views = await asyncio.gather(
        one.move(ALICE, attempt.id, 2, 27),
        two.move(ALICE, attempt.id, 2, 27),  # wrong: ends it
    )
    assert engine.calls == 2 and sorted(view.stale for view in views) == [False, True]
    player = await core.puzzles.player(ALICE)
    member, _ = duel(MEMBER_START, puzzle_start(puzzle.rating), solved=False)
    assert player is not None and player.tried == 1
    assert player.rating.rating == pytest.approx(member.rating)  # moved once
    stored = await core.repo.get_puzzle_attempt(attempt.id)
    assert stored is not None and stored.ply == 4 and stored.outcome == "wrong"


async def test_retry_is_unrated_and_refusals(make_core) -> None:  # type: ignore[no-untyped-def]
    core: Core = await make_core(clock=day_clock(2))
    puzzle = puzzle_of(2)
    first = (await core.puzzles.open(ALICE, GUILD)).attempt
    assert await refusal_key(core.puzzles.retry(ALICE, first.id)) == "puzzle.still_open"
    assert await refusal_key(core.puzzles.share(ALICE, first.id, GUILD)) == "puzzle.still_open"
    assert await refusal_key(core.puzzles.move(BOB, first.id, 0, 40)) == "puzzle.not_yours"
    assert await refusal_key(core.puzzles.show(BOB, first.id)) == "puzzle.not_yours"
    assert await refusal_key(core.puzzles.move(ALICE, first.id + 99, 0, 40)) == "puzzle.unknown"
    taken = next(c for c in range(81) if puzzle.board()[c] is not None)
    assert await refusal_key(core.puzzles.move(ALICE, first.id, 0, taken)) == "puzzle.bad_cell"
    await core.puzzles.move(ALICE, first.id, 0, 27)  # wrong: failed, rated
    rated = await core.puzzles.player(ALICE)
    view = await core.puzzles.retry(ALICE, first.id)
    again = view.attempt
    assert again.id != first.id and not again.rated and again.retry_of == first.id
    assert again.daily == 2 and view.board == puzzle.position
    for ply in range(0, len(puzzle.line), 2):
        view = await core.puzzles.move(ALICE, again.id, ply, puzzle.line[ply])
    assert view.attempt.status == "solved" and view.attempt.rating_after is None
    player = await core.puzzles.player(ALICE)
    assert rated is not None and player is not None
    # the record counts first attempts: the Retry's solve is not one
    assert player.rating == rated.rating and (player.solved, player.tried) == (0, 1)
    assert player.streak == 1  # a Retry solved the same day counts for the streak
    line = await core.puzzles.share(ALICE, again.id, GUILD)
    assert (line.daily, line.solved, line.retry, line.streak, line.moves_used) == (
        2, True, True, 1, puzzle.n)  # fmt: skip
    assert await refusal_key(core.puzzles.share(ALICE, again.id, GUILD)) == "puzzle.share.again"
    first_line = await core.puzzles.share(ALICE, first.id, GUILD)  # another attempt: its own
    assert (first_line.solved, first_line.streak, first_line.retry) == (False, 0, False)


async def test_share_shows_the_streak_at_that_attempt_once(make_core) -> None:  # type: ignore[no-untyped-def]
    clock = day_clock(1)
    core: Core = await make_core(clock=clock)
    attempts = []
    for _ in range(3):  # dailies #1, #2 and #3 solved: a streak of 3
        await solve_daily(core, ALICE)
        attempts.append(await core.repo.latest_puzzle_attempt(ALICE, today(core).id))
        clock.advance(DAY)
    clock.advance(5 * DAY)  # days missed: the streak now is 0
    player = await core.puzzles.player(ALICE)
    assert player is not None and (player.streak, player.best_streak) == (0, 3)
    for number, attempt in enumerate(attempts, start=1):
        assert attempt is not None
        line = await core.puzzles.share(ALICE, attempt.id, GUILD)
        assert (line.daily, line.streak) == (number, number)  # as it stood then
        again = core.puzzles.share(ALICE, attempt.id, GUILD)
        assert await refusal_key(again) == "puzzle.share.again"


async def test_an_attempt_at_a_puzzle_no_longer_in_the_set_is_withdrawn(make_core) -> None:  # type: ignore[no-untyped-def]
    clock = day_clock(2)
    core: Core = await make_core(clock=clock)
    gone = puzzle_of(1)  # as a set before a regeneration held it, under an id now unknown
    stale = Attempt(
        0, ALICE, "5x5-0000000000", "5x5", "training", gone.position, gone.to_move, gone.n,
        True, clock() - 2 * EXPIRY, GUILD,
    )  # fmt: skip
    stale = await core.repo.insert_puzzle_attempt(stale)  # open, past its 30 minutes
    view = await core.puzzles.open(ALICE, GUILD)  # /ttt puzzle: said once, not a crash
    done = view.attempt
    assert (done.id, done.status, done.outcome, done.rated) == (
        stale.id, "failed", "withdrawn", False)  # fmt: skip
    assert view.solution == () and not view.resumed and view.player is None
    assert await core.puzzles.player(ALICE) is None  # counted nowhere, no rating moved
    assert await core.puzzles.leaderboard(GUILD) == PuzzleBoard((), 0)
    assert await refusal_key(core.puzzles.retry(ALICE, done.id)) == "puzzle.unknown"
    fresh = (await core.puzzles.open(ALICE, GUILD)).attempt  # the next: today's daily
    assert fresh.daily == 2 and fresh.rated and not fresh.over
    again = await core.puzzles.show(ALICE, done.id)  # the old message still shows
    assert again.attempt.outcome == "withdrawn"


async def test_puzzles_off_in_a_server(make_core) -> None:  # type: ignore[no-untyped-def]
    core: Core = await make_core(clock=day_clock(2))
    await core.puzzles.policies.configure(GUILD, {"puzzles": False})  # /ttt config
    assert await refusal_key(core.puzzles.open(ALICE, GUILD)) == "puzzle.off"
    view = await core.puzzles.open(ALICE, None)  # in DMs the defaults hold
    await core.puzzles.move(ALICE, view.attempt.id, 0, 27)
    assert await refusal_key(core.puzzles.share(ALICE, view.attempt.id, GUILD)) == "puzzle.off"
    assert await refusal_key(core.puzzles.leaderboard(GUILD)) == "puzzle.off"


async def test_share_is_kept_to_the_servers_allowed_channels(make_core) -> None:  # type: ignore[no-untyped-def]
    core: Core = await make_core(clock=day_clock(2))
    view = await core.puzzles.open(ALICE, GUILD)
    await core.puzzles.move(ALICE, view.attempt.id, 0, 27)  # over, either way
    await core.puzzles.policies.configure(GUILD, {"allowed_channels": [CHANNEL]})
    with pytest.raises(Refusal) as refused:
        await core.puzzles.share(ALICE, view.attempt.id, GUILD, CHANNEL + 1)
    assert refused.value.key == "puzzle.share.channel"
    assert refused.value.params == {"channels": f"<#{CHANNEL}>"}
    line = await core.puzzles.share(ALICE, view.attempt.id, GUILD, CHANNEL)
    assert line.user_id == ALICE and line.daily == 2


async def test_no_daily_before_the_first(make_core) -> None:  # type: ignore[no-untyped-def]
    core: Core = await make_core(clock=day_clock(0))
    assert await refusal_key(core.puzzles.open(ALICE, GUILD)) == "puzzle.no_daily"


async def test_puzzles_off_everywhere_by_the_environment(make_core) -> None:  # type: ignore[no-untyped-def]
    core: Core = await make_core(ServerPolicy(puzzles=False), clock=day_clock(2))
    assert await refusal_key(core.puzzles.open(ALICE, None)) == "puzzle.off"


@pytest.mark.postgres
async def test_two_processes_count_a_start_a_move_and_a_rating_once(pg_database: str) -> None:
    clock = day_clock(2)
    one, two = await open_core(pg_database, clock), await open_core(pg_database, clock)
    try:
        opened = await asyncio.gather(*(core.puzzles.open(ALICE, GUILD) for core in (one, two)))
        attempt = opened[0].attempt
        assert opened[1].attempt.id == attempt.id  # one attempt: the other resumed it
        first, second = await asyncio.gather(
            one.puzzles.move(ALICE, attempt.id, 0, 27), two.puzzles.move(ALICE, attempt.id, 0, 27)
        )
        assert sorted([first.stale, second.stale]) == [False, True]
        member, puzzle = duel(MEMBER_START, puzzle_start(puzzle_of(2).rating), solved=False)
        player = await two.puzzles.player(ALICE)
        assert player is not None and player.tried == 1
        assert player.rating.rating == pytest.approx(member.rating)  # moved once, not twice
        moved = (await one.repo.puzzle_ratings())[attempt.puzzle_id]
        assert moved == pytest.approx(puzzle.rating)
    finally:
        await one.repo.close()
        await two.repo.close()


async def test_big_boards_are_judged_in_the_pool_and_3x3_inline(tmp_path: Path) -> None:
    pool = EnginePool(1)
    clock = day_clock(2)
    core = await open_core(tmp_path / "ttt.sqlite3", clock)
    core.puzzles.engine.pool = pool  # as build_core hands it the bot's pool
    try:
        attempt = (await core.puzzles.open(ALICE, GUILD)).attempt  # ultimate
        told: list[int] = []

        async def searching() -> None:  # the interface defers its answer here
            told.append(core.puzzles.engine.pooled)

        view = await core.puzzles.move(ALICE, attempt.id, 0, 27, searching=searching)
        assert told == [1]  # once, before the pool answered
        assert view.attempt.outcome == "wrong" and view.solution == puzzle_of(2).line
        assert (core.puzzles.engine.searches, core.puzzles.engine.pooled) == (1, 1)
        clock.advance(5 * 24 * 3600.0)  # daily #7: a 3×3
        attempt = (await core.puzzles.open(ALICE, GUILD)).attempt
        assert attempt.kind == "3x3" and not attempt.rated
        wrong = next(c for c in puzzle_of(7).board().legal_moves() if c != puzzle_of(7).first)
        view = await core.puzzles.move(ALICE, attempt.id, 0, wrong, searching=searching)
        assert view.attempt.outcome == "wrong" and told == [1]  # 3×3: inline, no deferral
        assert (core.puzzles.engine.searches, core.puzzles.engine.pooled) == (2, 1)
    finally:
        pool.close()
        await core.repo.close()
