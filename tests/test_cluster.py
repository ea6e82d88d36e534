"""Several bot processes, each running its own gateway shards, on one PostgreSQL: the
emulator routes each guild's events to its shard and holds the processes to Discord's
IDENTIFY rate; games, deadlines and records are shared."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from bot.storage import PostgresRepository

from bot_harness import BotProcess, board_of, bot_process_env, cell_id
from discord_emulator import DiscordEmulator

pytestmark = pytest.mark.postgres
SHARDS = 2


def guilds_per_shard(emu: DiscordEmulator, each: int) -> dict[int, list]:
    """Guilds until every shard has ``each`` (a guild's shard is (id >> 22) % count)."""
    found: dict[int, list] = {shard: [] for shard in range(SHARDS)}
    shard_of_default = emu.gateway.shard_of(emu.guild.id)
    found[shard_of_default].append(emu.guild)
    while min(len(g) for g in found.values()) < each:
        guild = emu.create_guild(f"server {sum(len(g) for g in found.values())}")
        found[emu.gateway.shard_of(guild.id)].append(guild)
    return {shard: guilds[:each] for shard, guilds in found.items()}


async def stored_games(dsn: str, members: dict[int, list], guilds: dict[int, list]) -> list:
    """Every game of the test, running or finished, as stored."""
    repo = PostgresRepository(dsn, pool_size=1)
    await repo.open()
    try:
        games = {g.id: g for g in await repo.running_games()}
        for shard, people in members.items():
            for guild, member in zip(guilds[shard], people, strict=True):
                games |= {g.id: g for g in await repo.finished_games_of(guild.id, member.id)}
        return list(games.values())
    finally:
        await repo.close()


async def test_two_processes_share_the_shards_and_the_games(
    emulator: DiscordEmulator, pg_database: str, tmp_path: Path
) -> None:
    emulator.shard_count = SHARDS
    emulator.identify_spacing = 5.0  # Discord's rule, enforced: the processes take turns
    guilds = guilds_per_shard(emulator, 2)
    french = guilds[1][0]
    french.locale = "fr"  # a server of shard 1 that speaks French
    members = {
        shard: [emulator.create_user(f"m{shard}{i}", guilds=[g]) for i, g in enumerate(gs)]
        for shard, gs in guilds.items()
    }

    def env(shard: int) -> dict[str, str]:
        return bot_process_env(
            emulator, tmp_path / "unused.sqlite3", TTT_DATABASE_URL=pg_database,
            TTT_SHARD_COUNT=str(SHARDS), TTT_SHARD_IDS=str(shard), TTT_TURN_TIMEOUT="4",
            TTT_ENGINE_WORKERS="1",
        )  # fmt: skip

    bots = [BotProcess(env(shard), tmp_path) for shard in range(SHARDS)]
    try:
        for bot in bots:
            await bot.wait_until_ready(emulator, SHARDS)
        # both IDENTIFYs of the one bucket, at least 5 s apart; none refused
        assert emulator.gateway.identify_refused == []
        assert sorted(s.shard for s in emulator.gateway.shards.values()) == [(0, 2), (1, 2)]

        # every guild is answered by the process that runs its shard
        messages = {}
        for shard, guild_list in guilds.items():
            for guild, member in zip(guild_list, members[shard], strict=True):
                channel = guild.channels[0]
                res = await emulator.invoke(member, "ttt start", {"first": "me"}, channel=channel)
                assert res.type == 4 and not res.ephemeral, (shard, res)
                res = await emulator.click(member, res.message, cell_id(res.message, 4))
                assert res.type == 7 and board_of(res.message)[4] == "X", (shard, res)
                messages[(shard, guild.id)] = res.message

        # shard 1's process dies; its games' turn timeouts are resolved by shard 0's, in
        # each server's language although that process has no cache of those servers
        await bots[1].kill()
        for (shard, guild_id), message in messages.items():
            if shard != 1:
                continue
            says = "a dépassé le temps" if guild_id == french.id else "ran out of time"
            timed_out = await emulator.wait_for_message(
                lambda m, mid=message["id"], says=says: m["id"] == mid and says in m["content"],
                timeout=10,
                include_existing=True,
            )
            assert board_of(timed_out)[4] == "X"

        # it comes back, IDENTIFYs in its turn, and serves its guilds again
        bots[1] = BotProcess(env(1), tmp_path)
        await bots[1].wait_until_ready(emulator, SHARDS + 1)
        guild, member = guilds[1][0], members[1][0]
        res = await emulator.invoke(member, "ttt start", {"first": "me"}, channel=guild.channels[0])
        assert res.type == 4 and not res.ephemeral
        assert emulator.gateway.identify_refused == []
    finally:
        codes = [await bot.stop(signal.SIGTERM) for bot in bots]
    assert codes == [0] * SHARDS, "\n".join(b.stderr for b in bots)
    logs = [b.stderr for b in bots]
    assert "slash commands: synced" in logs[0] and "left to the process running shard 0" in logs[1]
    games = await stored_games(pg_database, members, guilds)
    assert len(games) == 2 * SHARDS + 1
    for game in games:  # what every message shows is what was stored, move by move
        shown = board_of(emulator.message(game.message_id))
        assert shown == game.board.to_string(), game


async def test_shard_settings_with_sqlite_are_refused_in_one_line(tmp_path: Path) -> None:
    from test_bot_startup import offline_env, run_bot

    env = offline_env(tmp_path, TTT_SHARD_COUNT="2", TTT_SHARD_IDS="0")
    code, lines = await asyncio.to_thread(run_bot, env, tmp_path)
    assert code != 0 and len(lines) == 1 and "TTT_SHARD_COUNT needs TTT_DATABASE_URL" in lines[0]
    assert list(tmp_path.iterdir()) == []
