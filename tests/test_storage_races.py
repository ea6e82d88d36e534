"""Races between bot processes on one PostgreSQL database, each with three OS processes
that start together at a barrier and then fire all their requests at once.

Each test is a race that was measured before the database's locks kept processes apart:
two running games in one channel, a member in two games, lost Elo updates, one click
applied twice. The parent sets the scene and reads the outcome straight from the
database; the children are whole cores (service, lobby, repository) as a bot process has.
"""

from __future__ import annotations

import asyncio
import itertools
import multiprocessing
import traceback
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.core import rules
from bot.core.models import Ending
from bot.core.policy import ServerPolicy
from bot.core.refusals import Refusal

from core_harness import GUILD, Core, FakeClock, member_game, open_core, play

pytestmark = pytest.mark.postgres
PROCESSES = 3
ALICE, BOB = 101, 102
Scenario = Callable[[Core, int, dict[str, Any]], Awaitable[list[object]]]


def outcome_of(result: object) -> str:
    """What one request came to, as a word the parent can count."""
    if isinstance(result, Refusal):
        return result.key
    if isinstance(result, BaseException):
        return type(result).__name__
    return "done"


async def _child(name: str, dsn: str, index: int, options: dict[str, Any], barrier: Any) -> Any:
    core = await open_core(dsn, FakeClock(), ServerPolicy(**options.get("policy", {})))
    try:
        await core.repo.get_meta("warm")  # the pool's first connection, before the start
        barrier.wait()
        results = await SCENARIOS[name](core, index, options)
        return Counter(outcome_of(r) for r in results)
    finally:
        await core.repo.close()


def child(name: str, dsn: str, index: int, options: dict[str, Any], barrier: Any,
          results: Any) -> None:  # fmt: skip
    """One bot process: run its share of the scenario, report what each request gave."""
    try:
        results.put((index, asyncio.run(_child(name, dsn, index, options, barrier))))
    except BaseException:
        barrier.abort()
        results.put((index, traceback.format_exc()))


def race(name: str, dsn: str, **options: Any) -> Counter[str]:
    """Run scenario ``name`` in three processes at once; the summed outcomes."""
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(PROCESSES), ctx.Queue()
    processes = [
        ctx.Process(target=child, args=(name, dsn, i, options, barrier, results))
        for i in range(PROCESSES)
    ]
    for process in processes:
        process.start()
    reports = [results.get(timeout=60) for _ in processes]
    for process in processes:
        process.join(timeout=30)
    total: Counter[str] = Counter()
    for index, report in sorted(reports, key=lambda r: r[0]):
        assert not isinstance(report, str), f"process {index} failed:\n{report}"
        total += report
    assert [p.exitcode for p in processes] == [0] * PROCESSES
    return total


# --- what each process does -------------------------------------------------------------


async def _gather(calls: list[Awaitable[object]]) -> list[object]:
    return list(await asyncio.gather(*calls, return_exceptions=True))


async def starts_in_shared_channels(core: Core, index: int, options: dict[str, Any]) -> list:
    """Every process starts a game in each channel, each for a member of its own."""
    return await _gather([
        core.lobby.start_bot_game(guild_id=GUILD, channel_id=channel,
                                  user_id=10_000 * (index + 1) + channel,
                                  difficulty="easy", first="me")
        for channel in range(1, options["channels"] + 1)
    ])  # fmt: skip


async def starts_by_shared_members(core: Core, index: int, options: dict[str, Any]) -> list:
    """Every process starts a game for each member, each in a channel of its own."""
    return await _gather([
        core.lobby.start_bot_game(guild_id=GUILD, channel_id=1000 * (index + 1) + member,
                                  user_id=member, difficulty="easy", first="me")
        for member in range(1, options["members"] + 1)
    ])  # fmt: skip


async def finishing_moves(core: Core, index: int, options: dict[str, Any]) -> list:
    """This process's share of the games, each finished by one request."""
    calls: list[Awaitable[object]] = []
    for game_id, ending, x, o in options["games"][index::PROCESSES]:
        if ending == "resign_x":
            calls.append(core.games.resign(x, game_id=game_id))
        elif ending == "resign_o":
            calls.append(core.games.resign(o, game_id=game_id))
        else:  # "line" and "draw" were played up to their last move: X's
            calls.append(core.games.play_turn(game_id, 4 if ending == "line" else 8,
                                              2 if ending == "line" else 8, x))  # fmt: skip
    return await _gather(calls)


async def same_clicks(core: Core, index: int, options: dict[str, Any]) -> list:
    """Every process makes the same click (game, ply, cell) on the same games."""
    return await _gather([
        core.games.play_turn(game_id, ply, cell, ALICE) for game_id, ply, cell in options["clicks"]
    ])  # fmt: skip


async def accepts_against_starts(core: Core, index: int, options: dict[str, Any]) -> list:
    """The first process accepts the challenges; the others start games in their channels."""
    if index == 0:
        return await _gather([core.lobby.accept(challenge_id, BOB, None)
                              for challenge_id, _ in options["challenges"]])  # fmt: skip
    return await _gather([
        core.lobby.start_bot_game(guild_id=GUILD, channel_id=channel,
                                  user_id=10_000 * index + channel, difficulty="easy",
                                  first="me")
        for _, channel in options["challenges"]
    ])  # fmt: skip


async def expiries(core: Core, index: int, options: dict[str, Any]) -> list:
    """Every process's timekeeper wakes at once, after every deadline passed."""
    core.clock.advance(options["advance"])
    try:
        return list(await core.deadlines.expire_due())
    except Exception as exc:  # a pass that fails part-way: what the timekeeper would log
        return [exc]


SCENARIOS: dict[str, Scenario] = {
    "starts_in_shared_channels": starts_in_shared_channels,
    "starts_by_shared_members": starts_by_shared_members,
    "finishing_moves": finishing_moves,
    "same_clicks": same_clicks,
    "accepts_against_starts": accepts_against_starts,
    "expiries": expiries,
}


def hold_a_start_and_wait(dsn: str, held: Any) -> None:
    """A process that starts a game in channel 1 and is killed before it commits."""

    async def main() -> None:
        core = await open_core(dsn, FakeClock())
        async with core.repo.atomic() as tx:
            await tx.serialize(("channel", 1), ("member", ALICE))
            await tx.create_game(rules.new_game(
                guild_id=GUILD, channel_id=1, size=3, now=core.clock(), player_x=ALICE,
                player_o=BOB, bot_side=None, difficulty=None,
            ))  # fmt: skip
            held.set()
            await asyncio.sleep(60)  # wait-ok: holds the locks until the test cancels it

    asyncio.run(main())


# --- the races ----------------------------------------------------------------------------


@pytest.fixture
async def parent(pg_database: str):
    """The scene setter and referee: a core over the test's database."""
    core = await open_core(pg_database, FakeClock())
    yield core
    await core.repo.close()


async def test_concurrent_starts_never_put_two_games_in_a_channel(
    parent: Core, pg_database: str
) -> None:
    channels = 40
    outcomes = race("starts_in_shared_channels", pg_database, channels=channels)
    assert outcomes == {"done": channels, "start.busy_game": (PROCESSES - 1) * channels}
    running = await parent.repo.running_games()
    assert sorted(g.channel_id for g in running) == list(range(1, channels + 1))


async def test_an_accepted_challenge_and_a_start_never_share_a_channel(
    parent: Core, pg_database: str
) -> None:
    challenges = []
    for channel in range(1, 61):
        challenge = await parent.lobby.challenge(
            guild_id=GUILD, channel_id=channel, user_id=ALICE, opponent_id=BOB, first="me"
        )
        challenges.append((challenge.id, channel))
    outcomes = race("accepts_against_starts", pg_database, challenges=challenges)
    assert outcomes["done"] == len(challenges), outcomes  # every accept, and no start
    assert sum(outcomes.values()) == PROCESSES * len(challenges)
    running = await parent.repo.running_games()
    assert sorted(g.channel_id for g in running) == list(range(1, 61))
    assert {(g.player_x, g.player_o) for g in running} == {(ALICE, BOB)}


async def test_deadlines_are_resolved_once_by_three_timekeepers(
    parent: Core, pg_database: str
) -> None:
    for channel in range(1, 41):
        await member_game(parent, ALICE, BOB, channel=channel)
    for channel in range(41, 61):
        await parent.lobby.challenge(
            guild_id=GUILD, channel_id=channel, user_id=ALICE, opponent_id=BOB, first="me"
        )
    # Each process claims its own share (the claim itself is pinned, deterministically,
    # in test_storage_repository); here the whole path: every deadline resolved, once.
    outcomes = race("expiries", pg_database, advance=3600)
    assert outcomes == {"done": 60}  # each once, and no pass failed on a lost race
    assert await parent.repo.running_games() == []
    finished = await parent.repo.finished_games_of(GUILD, ALICE)
    assert [g.ending for g in finished] == [Ending("timeout", "O")] * 40
    ratings = {r.user_id: r for r in await parent.repo.leaderboard(GUILD, 10)}
    assert (ratings[ALICE].losses, ratings[BOB].wins) == (40, 40)
    for channel in range(41, 61):
        assert await parent.repo.pending_challenge_in(channel) is None


async def test_a_process_killed_inside_a_start_loses_it_and_frees_the_channel(
    parent: Core, pg_database: str
) -> None:
    ctx = multiprocessing.get_context("spawn")
    held = ctx.Event()
    process = ctx.Process(target=hold_a_start_and_wait, args=(pg_database, held))
    process.start()
    try:
        assert await asyncio.to_thread(held.wait, 30)
        start = asyncio.create_task(parent.lobby.start_bot_game(
            guild_id=GUILD, channel_id=1, user_id=BOB, difficulty="easy", first="me"
        ))  # fmt: skip
        await asyncio.sleep(0.3)
        assert not start.done()  # it waits for the channel's lock
    finally:
        process.kill()
        process.join(10)
    update = await asyncio.wait_for(start, 10)
    running = await parent.repo.running_games()
    assert [g.id for g in running] == [update.game.id]  # the killed start left nothing


async def test_one_game_per_member_holds_across_processes(parent: Core, pg_database: str) -> None:
    members = 40
    policy = {"one_game_per_member": True, "games_per_channel": 100}
    outcomes = race("starts_by_shared_members", pg_database, members=members, policy=policy)
    assert outcomes == {"done": members, "start.member_busy": (PROCESSES - 1) * members}
    running = await parent.repo.running_games()  # the member plays X, the bot O
    assert sorted(g.player_x for g in running) == list(range(1, members + 1))


async def test_concurrent_finishes_lose_no_rating_update(parent: Core, pg_database: str) -> None:
    members = (201, 202, 203, 204, 205)
    pairs = list(itertools.combinations(members, 2))
    endings = ("line", "resign_x", "resign_o", "draw")
    games, played = [], Counter[int]()
    for n in range(60):  # every pair six times, each game in a channel of its own
        x, o = pairs[n % len(pairs)][:: 1 if n % 20 < 10 else -1]
        game_id = await member_game(parent, x, o, channel=500 + n)
        ending = endings[n % 4]
        if ending == "line":  # X: 0, 1; O: 3, 4; X's 2 wins
            await play(parent, game_id, (x, 0), (o, 3), (x, 1), (o, 4))
        elif ending == "draw":  # X O X / X O O / O X X, X's last move at 8
            await play(parent, game_id, (x, 0), (o, 1), (x, 2), (o, 4), (x, 3), (o, 5),
                       (x, 7), (o, 6))  # fmt: skip
        games.append((game_id, ending, x, o))
        played.update((x, o))
    outcomes = race("finishing_moves", pg_database, games=games)
    assert outcomes == {"done": len(games)}
    board = await parent.repo.leaderboard(GUILD, 100)
    assert sorted(r.user_id for r in board) == sorted(members)
    assert sum(r.rating for r in board) == pytest.approx(1000 * len(members))
    assert {r.user_id: r.wins + r.losses + r.draws for r in board} == dict(played)
    assert sum(r.wins for r in board) == sum(r.losses for r in board) == 45  # 3 of 4 decided
    assert sum(r.draws for r in board) == 2 * 15


async def test_the_same_click_from_three_processes_applies_once(
    parent: Core, pg_database: str
) -> None:
    opening, winning = [], []  # ALICE's first move; ALICE's move that wins the game
    for channel in range(1, 21):
        game_id = await member_game(parent, ALICE, BOB, channel=channel)
        if channel % 2:
            opening.append(game_id)
        else:
            await play(parent, game_id, (ALICE, 0), (BOB, 3), (ALICE, 1), (BOB, 4))
            winning.append(game_id)
    clicks = [(g, 0, 4) for g in opening] + [(g, 4, 2) for g in winning]
    outcomes = race("same_clicks", pg_database, clicks=clicks)
    assert outcomes["done"] == len(clicks)  # once per click, not once per process
    assert set(outcomes) <= {"done", "move.over", "move.stale"}  # a lost race is a refusal
    for game_id in opening:
        game = await parent.repo.get_game(game_id)
        assert game is not None and game.running and game.moves == (4,)
    for game_id in winning:
        game = await parent.repo.get_game(game_id)
        assert game is not None and game.moves == (0, 3, 1, 4, 2)
        assert game.ending == Ending("line", "X")
    ratings = {r.user_id: r for r in await parent.repo.leaderboard(GUILD, 10)}
    assert (ratings[ALICE].wins, ratings[ALICE].losses) == (len(winning), 0)
    assert (ratings[BOB].wins, ratings[BOB].losses) == (0, len(winning))
