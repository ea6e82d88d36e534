"""Several bot processes, each running its own gateway shard, on one PostgreSQL: the
emulator routes each guild's events to its shard and holds the processes to Discord's
IDENTIFY rate; games, deadlines and records are shared, and a killed process's games
are finished by the others."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

import pytest
from test_engine_pool import alive

from bot.storage import PostgresRepository

from bot_harness import (
    BUSY_DEADLINE,
    BotProcess,
    accepted_member_game,
    board_of,
    bot_process_env,
    cell_id,
    easy_bot_game,
    eventually,
    stored_games,
    with_marks,
)
from core_harness import independent_elo
from discord_emulator import DiscordEmulator, text_of
from discord_emulator.interactions import WAIT_CEILING

pytestmark = pytest.mark.postgres
SHARDS = 3
PER_SHARD = 6  # 18 servers in all
TURN = 6  # seconds a member has per move


def guilds_per_shard(emu: DiscordEmulator, each: int) -> dict[int, list]:
    """Guilds until every shard has ``each`` (a guild's shard is (id >> 22) % count)."""
    found: dict[int, list] = {shard: [] for shard in range(SHARDS)}
    found[emu.gateway.shard_of(emu.guild.id)].append(emu.guild)
    while min(len(g) for g in found.values()) < each:
        guild = emu.create_guild(f"server {sum(len(g) for g in found.values())}")
        found[emu.gateway.shard_of(guild.id)].append(guild)
    return {shard: guilds[:each] for shard, guilds in found.items()}


def engine_workers(pid: int) -> list[int]:
    """The engine pool's worker processes of bot process ``pid`` (spawned children)."""
    children: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        children += [int(c) for c in (task / "children").read_text().split()]
    return [c for c in children
            if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()]  # fmt: skip


async def member_duel(emu: DiscordEmulator, guild, a, b) -> None:
    """a challenges b in the server's first channel and wins along the top row, with a
    double click and a stale click on the way: each must apply once, or not at all."""
    board = await accepted_member_game(emu, a, b, channel=guild.channels[0])
    first, second = await asyncio.gather(  # a double click on cell 0
        emu.click(a, board, cell_id(board, 0)), emu.click(a, board, cell_id(board, 0))
    )
    assert sorted(r.ephemeral for r in (first, second)) == [False, True]
    stale = board  # the board before that move
    for player, cell in ((b, 3), (a, 1), (b, 4), (a, 2)):
        board = emu.message(board["id"])
        res = await emu.click(player, board, cell_id(board, cell))
        assert res.type == 7 and not res.ephemeral, res
    res = await emu.click(b, stale, cell_id(stale, 8), force=True)  # an old board
    assert res.ephemeral


async def test_three_processes_share_the_shards_and_the_games(
    emulator: DiscordEmulator, pg_database: str, tmp_path: Path
) -> None:
    emulator.shard_count = SHARDS
    emulator.identify_spacing = 5.0  # Discord's rule, enforced: the processes take turns
    # in two buckets, as the bot reads from /gateway/bot: shards 0 and 2 share bucket 0,
    # so their processes take turns, and shard 1 need not wait for either (three in one
    # bucket waited two turns, 11 s, where one shows the same)
    emulator.max_concurrency = 2
    emulator.interaction_deadline = BUSY_DEADLINE  # correctness here, not speed
    guilds = guilds_per_shard(emulator, PER_SHARD)
    for shard_guilds in guilds.values():
        for guild in shard_guilds:
            emulator.create_channel(guild, "bot-games")
    french = guilds[2][0]
    french.locale = "fr"
    people = {
        guild.id: [emulator.create_user(f"{guild.id}-{i}", guilds=[guild]) for i in range(3)]
        for shard_guilds in guilds.values()
        for guild in shard_guilds
    }

    def env(shard: int) -> dict[str, str]:
        return bot_process_env(
            emulator, tmp_path / "unused.sqlite3", TTT_DATABASE_URL=pg_database,
            TTT_SHARD_COUNT=str(SHARDS), TTT_SHARD_IDS=str(shard), TTT_TURN_TIMEOUT=str(TURN),
            TTT_ENGINE_WORKERS="1", TTT_THINK_TIME="120",  # a stopped search is waited for
        )  # fmt: skip

    bots = [BotProcess(env(shard), tmp_path) for shard in range(SHARDS)]
    stopped: list[int] = []
    try:
        for bot in bots:
            await bot.wait_until_ready(emulator, SHARDS)
        assert emulator.gateway.identify_refused == []
        assert sorted(s.shard for s in emulator.gateway.shards.values()) == [
            (i, SHARDS) for i in range(SHARDS)
        ]
        everywhere = [g for shard_guilds in guilds.values() for g in shard_guilds]
        # in every server, two member duels (so ratings move) and a game against the bot
        await asyncio.gather(
            *(member_duel(emulator, g, people[g.id][0], people[g.id][1]) for g in everywhere)
        )
        await asyncio.gather(
            *(member_duel(emulator, g, people[g.id][2], people[g.id][0]) for g in everywhere)
        )
        await asyncio.gather(
            *(easy_bot_game(emulator, g.channels[1], people[g.id][1]) for g in everywhere)
        )

        # an idle 3×3 duel on shard 2, and a 5×5 game there whose engine worker is
        # stopped: the member's move is stored and shown, the bot is mid-search...
        target = guilds[2][1]
        idle = await accepted_member_game(
            emulator, people[french.id][1], people[french.id][2], channel=french.channels[0]
        )
        big = await emulator.invoke(people[target.id][2], "ttt start",
                                    {"first": "me", "size": 5, "difficulty": "hard"},
                                    channel=target.channels[1])  # fmt: skip
        big_id = big.message["id"]
        res = await emulator.click(people[target.id][2], big.message, cell_id(big.message, 12))
        assert res.type == 7
        await with_marks(emulator, big.message, 2)  # the worker is up and answered
        stopped += engine_workers(bots[2].proc.pid)
        assert stopped, "shard 2's process has no engine worker"
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)
        board = emulator.message(big_id)
        free = board_of(board).index(".")
        res = await emulator.click(people[target.id][2], board, cell_id(board, free))
        assert res.type == 7 and board_of(res.message).count("X") == 2  # shown early
        (stored,) = [g for g in await stored_games(pg_database) if g.message_id == int(big_id)]
        assert stored.ply == 3 and stored.running and stored.turn_deadline is None
        # ...when its process dies. The stopped worker cannot act on the SIGTERM its
        # parent's death sends it until resumed, and it holds the process's stderr: left
        # stopped, reaping the process would wait the ceiling for that pipe to close.
        os.kill(bots[2].proc.pid, signal.SIGKILL)
        await asyncio.to_thread(bots[2].proc.wait, WAIT_CEILING)
        for pid in stopped:  # resumed, it dies of that signal, as a running worker would
            os.kill(pid, signal.SIGCONT)
        await eventually(lambda: not any(map(alive, stopped)), "the worker died with its parent")
        stopped.clear()
        await bots[2].kill()  # reaped, its stderr read to the end
        # its member game's deadline is resolved by another process, in French
        await emulator.wait_for_message(
            lambda m: m["id"] == idle["id"] and "a dépassé le temps" in m["content"],
            timeout=TURN + WAIT_CEILING, include_existing=True,
        )  # fmt: skip
        # it comes back, IDENTIFYs in its turn, serves its servers again, and makes the
        # interrupted move; the member, gone, then runs out of time
        bots[2] = BotProcess(env(2), tmp_path)
        await bots[2].wait_until_ready(emulator, SHARDS + 1)
        await emulator.wait_for_message(
            lambda m: m["id"] == big_id and "ran out of time" in text_of(m),
            timeout=TURN + WAIT_CEILING, include_existing=True,
        )  # fmt: skip
        assert board_of(emulator.message(big_id)).count("O") == 2
        res = await emulator.invoke(people[target.id][0], "ttt help", channel=target.channels[0])
        assert res.ephemeral and "Tic-tac-toe" in res.content
        assert emulator.gateway.identify_refused == []
    finally:
        for pid in stopped:  # if the test failed before their process was killed
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        codes = [await bot.stop(signal.SIGTERM) for bot in bots]
    assert codes == [0] * SHARDS, "\n".join(b.stderr for b in bots)
    logs = [b.stderr for b in bots]
    assert "slash commands: synced" in logs[0]
    assert all("left to the process running shard 0" in log for log in logs[1:])

    games = await stored_games(pg_database)
    assert len(games) == 3 * SHARDS * PER_SHARD + 2
    assert all(not g.running for g in games)  # every game finished, none lost
    for game in games:  # and every message shows its stored moves
        assert board_of(emulator.message(game.message_id)) == game.board.to_string(), game
    # a timeout is published once, by one process, though every timekeeper saw it due
    for game in (g for g in games if g.ending is not None and g.ending.reason == "timeout"):
        endings = [
            body for method, path, body, _ in emulator.requests
            if method == "PATCH" and path.endswith(f"/messages/{game.message_id}")
            and any(word in text_of(body) for word in ("ran out", "dépassé"))
        ]  # fmt: skip
        assert len(endings) == 1, (game, endings)
    # per server: ratings sum to 1000 a rated member and equal Elo replayed in order
    repo = PostgresRepository(pg_database, pool_size=1)
    await repo.open()
    try:
        for guild in everywhere:
            duels = sorted(
                (g for g in games if g.guild_id == guild.id and g.bot_side is None
                 and g.ending is not None and g.ending.result is not None),
                key=lambda g: (g.finished_at, g.id),
            )  # fmt: skip
            replayed: dict[int, float] = {}
            for g in duels:
                assert g.ending is not None
                x, o = replayed.get(g.player_x, 1000.0), replayed.get(g.player_o, 1000.0)
                score = g.ending.score("X") or 0.0
                replayed[g.player_x], replayed[g.player_o] = independent_elo(x, o, score)
            stored = {r.user_id: r.rating for r in await repo.leaderboard(guild.id, 10)}
            assert stored == pytest.approx(replayed), guild.id
            assert sum(stored.values()) == pytest.approx(1000 * len(stored))
    finally:
        await repo.close()


async def test_shard_settings_with_sqlite_are_refused_in_one_line(tmp_path: Path) -> None:
    from test_bot_startup import offline_env, run_bot

    env = offline_env(tmp_path, TTT_SHARD_COUNT="2", TTT_SHARD_IDS="0")
    code, lines = await asyncio.to_thread(run_bot, env, tmp_path)
    assert code != 0 and len(lines) == 1 and "TTT_SHARD_COUNT needs TTT_DATABASE_URL" in lines[0]
    assert list(tmp_path.iterdir()) == []
