"""Throughput of ttt over HTTP: 1, then 2, gateway-less processes (TTT_GATEWAY=off) on
one PostgreSQL, behind nginx with the repository's configuration (deploy/nginx.conf).

    python bench/http_cluster.py --games 50 --duration 10

The emulator runs in this process and POSTs every interaction, signed, to nginx; each
channel plays game after game against the bot (hard, the member first, ``--think``
seconds a move). Printed: moves per second, the clicks' latency (from the POST to the
answer), and what went wrong (unanswered, violations). Everything shares this machine's
cores: the processes, their engine workers, PostgreSQL, nginx and the emulator.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "bench"), str(ROOT)]

from bot_latency import Tally, percentile, slot, tree_cpu_seconds  # noqa: E402

from bot_harness import bot_process_env, free_port  # noqa: E402
from discord_emulator import DiscordEmulator  # noqa: E402
from nginx_harness import nginx_config, running_nginx  # noqa: E402
from pg_server import start_server  # noqa: E402


async def serving(emu: DiscordEmulator, procs: list[subprocess.Popen[bytes]]) -> None:
    """Until every process answers a signed PING through nginx, and the commands exist."""
    body = b'{"type": 1}'
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for proc in procs:
            if proc.poll() is not None:
                err = proc.stderr.read().decode() if proc.stderr else ""
                raise SystemExit(f"a bot exited with {proc.returncode}: {err}")
        try:
            status, _ = await emu.http_mode.post_raw(body, emu.http_mode.headers(body))
        except OSError:
            status = 0
        if status == 200 and emu.sync_count >= 1:
            return
        await asyncio.sleep(0.1)
    raise SystemExit("the processes did not serve within 60 s")


def start(emu: DiscordEmulator, dsn: str, port: int, workdir: Path) -> subprocess.Popen[bytes]:
    env = bot_process_env(
        emu, workdir / "unused.sqlite3", TTT_DATABASE_URL=dsn, TTT_GATEWAY="off",
        DISCORD_PUBLIC_KEY=emu.public_key, TTT_WEB_PORT=str(port), TTT_ENGINE_WORKERS="1",
        TTT_LOG_LEVEL="WARNING",
    )  # fmt: skip
    return subprocess.Popen([sys.executable, "-m", "bot"], env=env, cwd=workdir,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip


async def measure(
    processes: int, games: int, think: float, duration: float, warmup: float, dsn: str,
    seed: int, workdir: Path,
) -> str:  # fmt: skip
    emu = DiscordEmulator(validate=False)
    await emu.start()
    ports = [free_port() for _ in range(processes)]
    proxy = free_port()
    procs = [start(emu, dsn, port, workdir) for port in ports]
    prefix = workdir / f"nginx-{processes}"
    prefix.mkdir()
    tally = Tally()
    try:
        with running_nginx(nginx_config(ports, proxy, prefix), prefix, proxy):
            emu.use_http(f"http://127.0.0.1:{proxy}/interactions")
            await serving(emu, procs)
            players = [emu.create_user(f"player{i}") for i in range(games)]
            channels = [emu.create_channel(emu.guild, f"game-{i}") for i in range(games)]
            rng = random.Random(seed)
            until = time.perf_counter() + warmup + duration
            load = asyncio.gather(*(
                slot(emu, p, c, random.Random(rng.random()), tally, think, until)
                for p, c in zip(players, channels, strict=True)
            ))  # fmt: skip
            await asyncio.sleep(warmup)
            mark = tally.mark()
            cpu_before = sum(tree_cpu_seconds(p.pid) for p in procs)
            began = time.perf_counter()
            await load
            wall = time.perf_counter() - began
            cpu = sum(tree_cpu_seconds(p.pid) for p in procs) - cpu_before
            tally.trim(mark)
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(30)
        await emu.stop()
    clicks = [x * 1000 for x in tally.latencies]
    moves = tally.member_moves + tally.bot_replies
    answered = len(tally.latencies) + len(tally.start_latencies)
    problems = len(emu.violations) + tally.unanswered
    return (
        f"{processes} process{'es' if processes > 1 else ''}: {moves / wall:.0f} moves/s "
        f"({answered} interactions in {wall:.1f} s), clicks p50 {percentile(clicks, 50):.1f} ms, "
        f"p99 {percentile(clicks, 99):.1f} ms, max {max(clicks):.1f} ms; "
        f"the processes' CPU {1000 * cpu / max(1, answered):.3f} ms per interaction; "
        f"{problems} unanswered or violations"
    )


async def bench(args: argparse.Namespace) -> None:
    cpus = len(os.sched_getaffinity(0))
    print(f"http cluster: {args.games} channels vs hard, member first, {args.think:g} s "
          f"think, {args.duration:g} s after {args.warmup:g} s warm-up, behind nginx")  # fmt: skip
    print(f"machine:      {platform.platform()}, {platform.machine()}, nproc {cpus}, "
          f"load {os.getloadavg()[0]:.1f}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        server, why = start_server(Path(tmp))
        if server is None:
            raise SystemExit(f"no PostgreSQL server could be started: {why}")
        try:
            for processes in args.processes:
                dsn = server.dsn(server.create_database())
                workdir = Path(tmp) / f"run-{processes}"
                workdir.mkdir()
                print(await measure(processes, args.games, args.think, args.duration,
                                    args.warmup, dsn, args.seed, workdir))  # fmt: skip
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50, help="channels playing at once")
    parser.add_argument("--think", type=float, default=0.0, help="mean seconds a move")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds measured")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds before measuring")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", type=lambda s: [int(x) for x in s.split(",")],
                        default=[1, 2], help="process counts to run, e.g. 1,2")  # fmt: skip
    asyncio.run(bench(parser.parse_args()))


if __name__ == "__main__":
    main()
