"""Two cores on one database, as two bot processes on one PostgreSQL: a write that lost
the race is a refusal or nothing to do, never an error. (SQLite is one process per file,
so these run on PostgreSQL only.)"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.core.models import Ending, GameUpdate
from bot.core.policy import ServerPolicy
from bot.core.refusals import Refusal
from bot.core.repository import DEADLINES_TOPIC

from bot_harness import eventually
from core_harness import CHANNEL, Core, FakeClock, member_game, open_core
from discord_emulator.interactions import WAIT_CEILING

ALICE, BOB = 101, 102


pytestmark = pytest.mark.postgres


@pytest.fixture
async def two(pg_database: str) -> AsyncIterator[tuple[Core, Core]]:
    clock = FakeClock()
    policy = ServerPolicy(turn_timeout=30)
    cores = (
        await open_core(pg_database, clock, policy),
        await open_core(pg_database, clock, policy),
    )
    yield cores
    for core in cores:
        await core.repo.close()


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
    assert len(ended) == 1 and ended[0].game.ending == Ending("timeout", "O")
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
    assert stored is not None and stored.ending == Ending("resign", "X")  # BOB resigned


async def test_a_config_change_is_seen_by_the_other_process_at_once(two) -> None:
    first, second = two
    await second.games.policies.listen()
    assert (await second.games.policies.policy(1)).emoji_set == "classic"  # now cached
    await first.games.policies.configure(1, {"emoji_set": "hearts"})

    async def seen() -> bool:  # the notification arrives within milliseconds
        return (await second.games.policies.policy(1)).emoji_set == "hearts"

    await eventually(seen, "the change seen", every=0.01)
    assert (await second.games.policies.policy(1)).emoji_set == "hearts"


async def test_a_new_deadline_wakes_the_other_processes_timekeeper(two) -> None:
    first, second = two
    await second.deadlines.listen()
    second.deadlines.alarm.begin_pass()
    await member_game(first, ALICE, BOB)
    await asyncio.wait_for(second.deadlines.alarm.wait(), WAIT_CEILING)


async def test_a_deadline_later_than_the_plan_wakes_no_timekeeper(two) -> None:
    """A start tells the other processes when its deadlines fall (the challenge's in 60 s,
    the game's turn in 30 s): a timekeeper planning to wake sooner sleeps on, and the
    process that stored them is not woken by its own word coming back."""
    first, second = two
    await first.deadlines.listen()
    await second.deadlines.listen()

    def sleepers(planned: float) -> list[asyncio.Task[None]]:
        return [
            asyncio.create_task(core.deadlines.alarm.sleep_until(first.clock() + planned, 5))
            for core in (first, second)
        ]

    asleep = sleepers(planned=20)
    await asyncio.sleep(0.05)
    await member_game(first, ALICE, BOB)
    await asyncio.sleep(0.3)  # the notifications arrive within milliseconds
    assert not any(task.done() for task in asleep)
    for task in asleep:
        task.cancel()
    first.clock.advance(31)  # the deadlines announced have passed
    asleep = sleepers(planned=40)  # and the next turn deadline, 30 s away, is sooner
    await asyncio.sleep(0.05)
    await member_game(first, 103, 104, channel=CHANNEL + 1)
    await asyncio.wait_for(asyncio.gather(*asleep), WAIT_CEILING)


async def test_a_deadline_after_one_announced_is_not_announced_again(two) -> None:
    """Others were told of the sooner deadline: the pass they make then reads the later
    ones from the store. A sooner one, or any once the announced one passed, is told."""
    first, second = two
    heard: list[str] = []
    await second.repo.listen(DEADLINES_TOPIC, heard.append)
    await member_game(first, ALICE, BOB)  # challenge expiry in 60 s, turn in 30 s: both told
    await member_game(first, 103, 104, channel=CHANNEL + 1)  # 60 s, 30 s again: neither
    first.clock.advance(31)
    await member_game(first, 105, 106, channel=CHANNEL + 2)  # the 30 s has passed: told
    await eventually(lambda: len(heard) >= 4, "the deadlines told")
    await asyncio.sleep(0.3)  # and no more
    now = first.clock()
    told = [float(word.split()[1]) - now for word in heard]
    assert told == [60 - 31, 30 - 31, 60, 30]


async def test_a_deadline_left_unannounced_is_still_read_when_the_announced_one_falls(
    two,
) -> None:
    """The announcing process counts on the others' pass at the deadline it announced to
    read the later ones it stored silently. That pass is planned even when the announced
    deadline's game ended meanwhile, so a process that died after storing them leaves
    none to sleep past (before, the others slept up to the longest sleep, 60 s)."""
    first, second = two
    await second.deadlines.listen()
    told = first.clock() + 30  # the turn of the first game: announced
    ended = await member_game(first, ALICE, BOB)
    await eventually(lambda: second.deadlines.alarm.promised(first.clock()) == told,
                     "the turn deadline heard")  # fmt: skip
    await first.games.resign(BOB, game_id=ended)
    assert await second.deadlines.next_deadline() is None  # the store holds no deadline
    first.clock.advance(5)
    later = await member_game(first, 103, 104, channel=CHANNEL + 1)  # in 30 s: not told
    await asyncio.sleep(0.3)  # a word would arrive within milliseconds
    assert second.deadlines.alarm.promised(first.clock()) == told
    assert await second.deadlines.next_wake() == told  # the pass the first one counts on
    first.clock.advance(25)  # that pass reads the game left unannounced
    stored = await second.repo.get_game(later)
    assert stored is not None and stored.turn_deadline == told + 5
    assert await second.deadlines.next_wake() == told + 5
    assert second.deadlines.alarm.promised(first.clock()) is None


async def test_two_admins_configuring_at_once_lose_neither_change(two) -> None:
    first, second = two
    await asyncio.gather(
        first.games.policies.configure(1, {"emoji_set": "fruit"}),
        second.games.policies.configure(1, {"games_per_channel": 3}),
    )
    stored = await first.repo.guild_overrides(1)  # what every process will read
    assert stored == {"emoji_set": "fruit", "games_per_channel": 3}


async def test_a_rounds_pairings_are_drawn_once_when_both_processes_settle(two) -> None:
    from bot.core.tournaments.signup import Setup

    first, second = two
    view = await first.tournaments.create(
        Setup("Cup", "single"), guild_id=1, channel_id=CHANNEL, organiser_id=9, may_manage=True
    )
    for player in (1, 2, 3, 4):
        view = await second.tournaments.join(view.tournament.id, player)
    view = await first.tournaments.start(CHANNEL, 9, may_manage=True)
    for match in view.round_matches(1):
        for player in match.players:
            view = await second.tournaments.ready(match.id, player)
    for game in view.games:  # X wins each: both round-1 games end, neither told yet
        for user, cell in zip((game.player_x, game.player_o) * 3, (0, 3, 1, 4, 2), strict=False):
            current = await first.repo.get_game(game.id)
            assert current is not None
            await first.games.play_turn(game.id, current.ply, cell, user)
    ended = [await first.repo.get_game(g.id) for g in view.games]
    steps = await asyncio.gather(*(
        core.tournaments.game_ended(game) for core in (first, second) for game in ended if game
    ))  # fmt: skip
    finals = [m for m in await first.repo.matches(view.tournament.id) if m.round == 2]
    assert len(finals) == 1  # four settles at once, one draw of round 2
    assert sum(len(step.opened) for step in steps if step is not None) == 1
