"""Two cores on one database, as two bot processes on one PostgreSQL: a write that lost
the race is a refusal or nothing to do, never an error. (SQLite is one process per file,
so these run on PostgreSQL only.)"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.core.models import GameUpdate, Outcome
from bot.core.policy import ServerPolicy
from bot.core.refusals import Refusal

from core_harness import Core, FakeClock, member_game

ALICE, BOB = 101, 102


@pytest.fixture
async def two(make_core, database) -> tuple[Core, Core]:
    if isinstance(database, Path):
        pytest.skip("one bot process per SQLite file: the second is refused at start")
    clock = FakeClock()
    policy = ServerPolicy(turn_timeout=30)
    return await make_core(policy, clock=clock), await make_core(policy, clock=clock)


async def test_the_same_click_in_two_processes_applies_once(two) -> None:
    first, second = two
    game_id = await member_game(first, ALICE, BOB)
    results = await asyncio.gather(
        first.games.play_turn(game_id, 0, 4, ALICE),
        second.games.play_turn(game_id, 0, 4, ALICE),
        return_exceptions=True,
    )
    assert sum(isinstance(r, GameUpdate) for r in results) == 1, results
    assert [r.key for r in results if isinstance(r, Refusal)] == ["move.stale"]
    stored = await second.repo.get_game(game_id)
    assert stored is not None and stored.moves == (4,)


async def test_a_timeout_seen_by_two_processes_ends_the_game_once(two) -> None:
    first, second = two
    game_id = await member_game(first, ALICE, BOB)
    first.clock.advance(30)
    results = await asyncio.gather(first.games.time_out(game_id), second.games.time_out(game_id))
    ended = [r for r in results if r is not None]
    assert len(ended) == 1 and ended[0].game.outcome == Outcome("timeout", "O")
    board = await first.records.leaderboard(1, BOB)
    assert sorted((r.user_id, r.wins, r.losses) for r in board.top) == [(ALICE, 0, 1), (BOB, 1, 0)]


async def test_resigning_while_the_other_process_stores_a_move(two) -> None:
    first, second = two
    game_id = await member_game(first, ALICE, BOB)
    results = await asyncio.gather(
        first.games.play_turn(game_id, 0, 4, ALICE),
        second.games.resign(BOB, game_id=game_id),
        return_exceptions=True,
    )
    assert not [r for r in results if isinstance(r, Exception) and not isinstance(r, Refusal)]
    stored = await first.repo.get_game(game_id)
    assert stored is not None and stored.outcome == Outcome("resign", "X")  # BOB resigned
