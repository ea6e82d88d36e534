"""The same load on one process with SQLite, one with PostgreSQL, and three sharded
processes on one PostgreSQL.

    python bench/cluster.py --games 200 --duration 60 --think 2

For each setup: the emulator here, the bot process(es) as children (``python -m bot``),
and ``--games`` channels (spread over enough servers that every shard has some) playing
game after game against ``hard`` for ``--duration`` seconds, each member taking about
``--think`` seconds a move. It prints click latency (p50, p99: from INTERACTION_CREATE
to the bot's answer), moves per second and the bots' resident memory per running game.
PostgreSQL comes from the test helper (the pgserver wheel, or the system's pg_ctl).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from bot_latency import Tally, percentile, rss_kb, slot

from bot_harness import bot_process_env, start_bot_process
from discord_emulator import DiscordEmulator, default_spec_path
from pg_server import start_server

SERVERS = 30


async def run_setup(
    name: str, processes: int, dsn: str | None, games: int, duration: float, think: float,
    validate: bool,
) -> str:  # fmt: skip
    spec = default_spec_path()
    emu = DiscordEmulator(spec_path=spec, validate=validate and spec.is_file())
    emu.shard_count = processes
    tally, rng = Tally(), random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        await emu.start()
        procs = []
        try:
            guilds = [emu.guild] + [emu.create_guild(f"server {i}") for i in range(SERVERS - 1)]
            for shard in range(processes):
                extra = {"TTT_LOG_LEVEL": "WARNING", "TTT_ENGINE_WORKERS": "1"}
                if dsn is not None:
                    extra |= {"TTT_DATABASE_URL": dsn, "TTT_DB_POOL_SIZE": "10"}
                if processes > 1:
                    extra |= {"TTT_SHARD_COUNT": str(processes), "TTT_SHARD_IDS": str(shard)}
                env = bot_process_env(emu, Path(tmp) / "ttt.sqlite3", **extra)
                procs.append(start_bot_process(env, Path(tmp)))
            deadline = time.monotonic() + 60
            while emu.ready_count < processes or emu.sync_count < 1:
                if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                    raise SystemExit(f"{name}: the bot(s) did not get ready")
                await asyncio.sleep(0.1)
            players, rooms = [], []
            for i in range(games):
                guild = guilds[i % len(guilds)]
                players.append(emu.create_user(f"p{i}", guilds=[guild]))
                rooms.append(emu.create_channel(guild, f"game-{i}"))
            await asyncio.sleep(1.0)
            idle = sum(rss_kb(p.pid)[0] for p in procs)
            samples: list[int] = []

            async def sample() -> None:
                while True:
                    samples.append(sum(rss_kb(p.pid)[0] for p in procs))
                    await asyncio.sleep(0.5)

            sampler = asyncio.create_task(sample())
            began = time.perf_counter()
            await asyncio.gather(
                *(
                    slot(emu, p, c, random.Random(rng.random()), tally, think, began + duration)
                    for p, c in zip(players, rooms, strict=True)
                )
            )
            wall = time.perf_counter() - began
            sampler.cancel()
        finally:
            for proc in procs:
                proc.terminate()
            for proc in procs:
                await asyncio.to_thread(proc.wait, 20)
            await emu.stop()
    ms = [x * 1000 for x in tally.latencies]
    moves = tally.member_moves + tally.bot_replies
    per_game = (max(samples) - idle) / games
    problems = tally.unanswered + len(emu.violations)
    return (
        f"| {name} | {len(ms):,} | {percentile(ms, 50):.1f} ms | {percentile(ms, 99):.1f} ms | "
        f"{moves / wall:.0f} | {per_game:.1f} KB | {problems} |"
    )


async def main_async(games: int, duration: float, think: float, validate: bool) -> None:
    root = Path(tempfile.mkdtemp(prefix="ttt-bench-pg-"))
    root.chmod(0o755)
    server, reason = start_server(root)
    if server is None:
        raise SystemExit(f"no PostgreSQL server could be started: {reason}")
    try:
        rows = [await run_setup("1 process, SQLite", 1, None, games, duration, think, validate)]
        print(rows[-1], flush=True)
        for processes in (1, 3):
            dsn = server.dsn(server.create_database())
            label = f"{processes} process{'es' if processes > 1 else ''}, PostgreSQL"
            rows.append(await run_setup(label, processes, dsn, games, duration, think, validate))
            print(rows[-1], flush=True)
    finally:
        server.stop()
    machine = f"{platform.platform()}, nproc {os.cpu_count()}, Python {platform.python_version()}"
    print(f"\n{games} games, {duration:g} s, ~{think:g} s a move, vs hard; {machine}")
    print(
        "| setup | clicks | p50 | p99 | moves/s | RSS per running game | unanswered + violations |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(row)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--think", type=float, default=2.0)
    parser.add_argument("--no-validate", action="store_true")
    args = parser.parse_args()
    asyncio.run(main_async(args.games, args.duration, args.think, not args.no_validate))


if __name__ == "__main__":
    main()
