"""The engine pool keeps a game's search tree from one move to the next: a game's moves
go to the worker that searched its last one, each worker keeps a tree per game (bounded,
least recently searched dropped first), and a dead worker costs only its own games'
trees. The first tests run the worker's side in this process; the rest start workers."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.core.opponent import BotOpponent
from bot.core.policies import PolicyBook
from bot.core.policy import ServerPolicy
from bot.core.wiring import build_core
from engine import EnginePool, UltimateBoard
from engine import pool_worker as worker

from core_harness import BOT, CHANNEL, GUILD, FakeClock, open_repo

ALICE = 1001
THINK = 0.3
"""Enough for thousands of compiled iterations on a busy machine: every reply to the
chosen move is in the tree by then, so the next move finds it (tests are no faster for
less)."""


@pytest.fixture(autouse=True)
def fresh_worker() -> Iterator[None]:
    """This process as a new worker: no agents, no kept trees."""
    worker._agents.clear()
    worker._games.clear()
    yield
    worker._agents.clear()
    worker._games.clear()


def move(board: UltimateBoard, game: int | None, seed: int = 1) -> worker.Chosen:
    return worker.choose(board, "unbeatable", seed, THINK, time.time() + THINK, None, game)


def reply(board: UltimateBoard) -> UltimateBoard:
    """``board`` after the reference's kind of reply: the first legal move."""
    return board.play(board.legal_moves()[0])


def test_a_worker_keeps_a_tree_for_each_game_it_searches() -> None:
    """Two games' moves interleaved on one worker: each game's next search starts from
    its own tree (one agent for both would have thrown each tree away for the other's)."""
    one, two = UltimateBoard.new().play(40), UltimateBoard.new().play(0)
    one = one.play(move(one, 1).move)
    two = two.play(move(two, 2).move)
    one, two = reply(one), reply(two)
    assert move(one, 1).kept > 0
    assert move(two, 2).kept > 0
    assert worker.kept_games() == [1, 2]
    assert move(reply(UltimateBoard.new().play(40)), None).kept == 0  # no game: a new tree


def test_the_kept_trees_are_bounded_least_recently_searched_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(worker, "KEPT_GAMES", 2)
    for game in (1, 2, 3):
        move(UltimateBoard.new().play(40), game)
    assert worker.kept_games() == [2, 3]
    move(UltimateBoard.new().play(40), 2)  # searched again: now the most recent
    assert worker.kept_games() == [3, 2]
    monkeypatch.setattr(worker, "KEPT_NODES", 1)  # one tree is over: only the current stays
    move(UltimateBoard.new().play(40), 4)
    assert worker.kept_games() == [4]


def a_game_won_in_one_move(seed: int = 3) -> UltimateBoard:
    """A position whose side to move wins the game with one of its moves (random games,
    seeded, until one comes)."""
    rng = random.Random(seed)
    while True:
        board = UltimateBoard.new()
        while not board.is_over():
            moves = board.legal_moves()
            if any(board.play(m).outcome() == board.to_move for m in moves):
                return board
            board = board.play(rng.choice(moves))


def test_a_game_the_workers_own_move_ends_drops_its_tree() -> None:
    board = a_game_won_in_one_move()
    chosen = move(board, 7)
    assert board.play(chosen.move).outcome() == board.to_move
    assert worker.kept_games() == []


@pytest.mark.slow  # starts engine worker processes
async def test_a_games_moves_reach_the_worker_that_keeps_its_tree() -> None:
    pool = EnginePool(workers=2)
    try:
        await pool.warm_up()
        boards = {1: UltimateBoard.new().play(40), 2: UltimateBoard.new().play(4)}
        pids: dict[int, set[int]] = {1: set(), 2: set()}
        kept: dict[int, list[int]] = {1: [], 2: []}
        for game in (1, 1, 2, 1, 2, 2):  # a game's moves back to back, and interleaved
            cell = await pool.choose(boards[game], "unbeatable", seed=1, time_budget=THINK,
                                     game=game)  # fmt: skip
            assert pool.last_chosen is not None
            pids[game].add(pool.last_chosen.pid)
            kept[game].append(pool.last_chosen.kept)
            boards[game] = reply(boards[game].play(cell))
        assert len(pids[1]) == len(pids[2]) == 1 and pids[1] != pids[2]
        assert kept[1][0] == kept[2][0] == 0 and all(kept[1][1:]) and all(kept[2][1:])
        assert pool.searches_kept == 4
        assert sorted(await pool.run(worker.kept_games, game=1)) == [1]
    finally:
        pool.close()


@pytest.mark.slow  # starts engine worker processes
async def test_a_move_whose_worker_is_busy_goes_to_an_idle_one() -> None:
    pool = EnginePool(workers=2)
    try:
        await pool.warm_up()
        home = await pool.run(os.getpid, game=5)
        busy = asyncio.ensure_future(pool.run(time.sleep, 1.0, game=6))
        await asyncio.sleep(0.1)  # the sleep has gone to the idle worker (not game 5's)
        assert await pool.run(os.getpid, game=5) == home
        # game 6's worker is asleep: its next call goes to the other worker, now its own
        assert await pool.run(os.getpid, game=6) == home
        await busy
        assert await pool.run(os.getpid, game=6) == home
    finally:
        pool.close()


DECIDED = (
    "XX..O.XX.OO..O.XXX.OXO..X..O.X..XX.XOXO.X...OOX.O.XOO...OO.OXOOXO.O.XX.O...XXXOXO:63",
    ".X.OX..XXOXO.O....O...XXX......OX.OXOXOX.OO.X..O.O...XX..XX.OO.XO.XX...XO..O..OO.:39",
)  # fmt: skip
"""Two late positions (from random games) that unbeatable decides in milliseconds, its
move, the first legal reply and its next move alike, whatever its seed and think time:
the search stops at a proof, so a move is answered as soon as its worker is up, and the
tree kept between the two moves is never empty (visits in the tens, the thousands)."""


@pytest.mark.slow  # starts engine worker processes and kills one
async def test_a_dead_workers_game_is_answered_and_the_others_keep_their_trees() -> None:
    pool = EnginePool(workers=2)
    try:
        await pool.warm_up()
        # decided positions: from the opening, unbeatable searches the whole budget, and
        # the test waited out the 30 s it gives the new worker to start
        boards = {1: UltimateBoard.from_string(DECIDED[0]),
                  2: UltimateBoard.from_string(DECIDED[1])}  # fmt: skip
        dead = 0
        for game in (1, 2):
            cell = await pool.choose(boards[game], "unbeatable", time_budget=THINK, game=game)
            assert pool.last_chosen is not None
            dead = dead or pool.last_chosen.pid
            boards[game] = reply(boards[game].play(cell))
        os.kill(dead, signal.SIGKILL)  # game 1's worker, as the out-of-memory killer would
        # a budget only a stuck worker exceeds: the new worker's start is inside it
        cell = await pool.choose(boards[1], "unbeatable", time_budget=30, game=1)
        assert cell in boards[1].legal_moves() and pool.restarts == 1
        assert pool.last_chosen is not None and pool.last_chosen.kept == 0  # a new tree:
        assert pool.last_chosen.pid != dead  # game 2's, below, shows a kept one is not empty
        await pool.choose(boards[2], "unbeatable", time_budget=THINK, game=2)
        assert pool.last_chosen.kept > 0  # game 2's worker lived on, and its tree
        assert pool.restarts == 1
    finally:
        pool.close()


@pytest.mark.slow  # starts an engine worker process
async def test_the_bots_moves_in_a_game_reach_its_kept_tree(tmp_path: Path) -> None:
    """Through the core: a member's clicks in an ultimate game against unbeatable make
    the bot's replies search the game's own tree, kept under the game's id."""
    pool = EnginePool(workers=1)
    repo = open_repo(tmp_path / "ttt.sqlite3")
    await repo.open()
    try:
        core = build_core(
            repo, PolicyBook(repo, ServerPolicy()),
            BotOpponent(think_time=THINK, pool=pool, rng=random.Random(1)),
            bot_user_id=BOT, clock=FakeClock(), rng=random.Random(1), patience=30.0,
        )  # fmt: skip
        await pool.warm_up()
        update = await core.lobby.start_bot_game(
            guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, difficulty="unbeatable",
            first="me", variant="ultimate",
        )  # fmt: skip
        game = update.game
        kept = []
        for _ in range(3):
            game = (await core.games.play_turn(game.id, game.ply, game.board.legal_moves()[0],
                                               ALICE)).game  # fmt: skip
            assert pool.last_chosen is not None
            kept.append(pool.last_chosen.kept)
        assert kept[0] == 0 and all(kept[1:])
        assert await pool.run(worker.kept_games) == [game.id]
    finally:
        pool.close()
        await repo.close()
