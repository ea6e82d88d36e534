"""Soak: the bot playing game after game for a long time, and what it holds meanwhile.

    python bench/soak.py --minutes 30 --channels 40

The emulator runs here, the real bot as a child process (``python -m bot``) with its
engine workers. Every channel plays game after game against the bot, with a mix of
sizes (3×3 most, some 4×4 and 5×5) and difficulties, each member taking about
``--think`` seconds a move. Once a minute (and at the start and the end) it prints the
bot's resident memory, open file descriptors and threads (the bot process and its
engine workers), and the size of the SQLite write-ahead log, so a leak shows as a
column that keeps growing. It ends with the interactions answered and any unanswered.
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
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from bot_latency import Tally, percentile, slot, wait_until_ready

from bot_harness import bot_process_env, start_bot_process
from discord_emulator import DiscordEmulator, default_spec_path

SIZES = (3, 3, 3, 3, 3, 3, 4, 4, 5)
LEVELS = ("easy", "medium", "hard", "unbeatable")


def game_options(rng: random.Random) -> dict:
    return {"size": rng.choice(SIZES), "difficulty": rng.choice(LEVELS), "first": "me"}


@dataclass(frozen=True)
class Sample:
    minute: float
    rss_kb: int
    fds: int
    threads: int
    processes: int
    wal_kb: int


def children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if parent == pid:
                found.append(int(entry))
    return found


def status(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/status", encoding="ascii") as lines:
        return {k: v.strip() for k, _, v in (line.partition(":") for line in lines)}


def sample(pid: int, database: Path, began: float) -> Sample:
    """RSS, descriptors and threads of the bot and its children (engine workers and the
    resource tracker), and the WAL's size."""
    rss = fds = threads = 0
    pids = [pid, *children(pid)]
    for p in pids:
        try:
            info = status(p)
            rss += int(info["VmRSS"].split()[0])
            threads += int(info["Threads"])
            fds += len(os.listdir(f"/proc/{p}/fd"))
        except (OSError, KeyError):
            continue
    wal = Path(f"{database}-wal")
    wal_kb = wal.stat().st_size // 1024 if wal.exists() else 0
    return Sample((time.perf_counter() - began) / 60, rss, fds, threads, len(pids), wal_kb)


def show(s: Sample) -> None:
    print(f"{s.minute:7.1f} {s.rss_kb / 1024:9.1f} {s.fds:6d} {s.threads:8d} "
          f"{s.processes:6d} {s.wal_kb:8d}", flush=True)  # fmt: skip


async def soak(minutes: float, channels: int, think: float, seed: int, validate: bool) -> None:
    spec = default_spec_path()
    emu = DiscordEmulator(spec_path=spec, validate=validate and spec.is_file())
    tally, rng = Tally(), random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        database = Path(tmp) / "ttt.sqlite3"
        await emu.start()
        try:
            env = bot_process_env(emu, database, TTT_LOG_LEVEL="WARNING", TTT_THINK_TIME="1")
            proc = start_bot_process(env, Path(tmp))
            try:
                await wait_until_ready(emu, proc)
                players = [emu.create_user(f"player{i}") for i in range(channels)]
                rooms = [emu.create_channel(emu.guild, f"soak-{i}") for i in range(channels)]
                print(f"soak: {channels} channels for {minutes:g} min, sizes {SIZES}, "
                      f"levels {LEVELS}, ~{think:g} s a move")  # fmt: skip
                print(f"machine: {platform.platform()}, nproc {os.cpu_count()}, "
                      f"Python {platform.python_version()}")  # fmt: skip
                print(" minute   RSS(MB)    fds  threads  procs  WAL(KB)")
                began = time.perf_counter()
                until = began + minutes * 60
                samples = [sample(proc.pid, database, began)]
                show(samples[0])

                async def every_minute() -> None:
                    while True:
                        await asyncio.sleep(60)
                        samples.append(sample(proc.pid, database, began))
                        show(samples[-1])

                ticker = asyncio.create_task(every_minute())
                await asyncio.gather(
                    *(
                        slot(emu, p, c, random.Random(rng.random()), tally, think, until,
                             game_options)
                        for p, c in zip(players, rooms, strict=True)
                    )
                )  # fmt: skip
                ticker.cancel()
                await asyncio.sleep(2)  # moves in flight land
                samples.append(sample(proc.pid, database, began))
                show(samples[-1])
            finally:
                proc.terminate()
                await asyncio.to_thread(proc.wait, 20)
        finally:
            await emu.stop()
    ms = [x * 1000 for x in tally.latencies]
    first, last = samples[0], samples[-1]
    print(
        f"games finished {tally.finished_games}, clicks {len(ms)}, "
        f"p50 {percentile(ms, 50):.1f} ms, p99 {percentile(ms, 99):.1f} ms"
        if ms
        else ""
    )
    print(f"start → end: RSS {first.rss_kb / 1024:.1f} → {last.rss_kb / 1024:.1f} MB, "
          f"fds {first.fds} → {last.fds}, threads {first.threads} → {last.threads}, "
          f"WAL {first.wal_kb} → {last.wal_kb} KB")  # fmt: skip
    print(f"problems: {tally.unanswered} unanswered, {len(emu.violations)} violations, "
          f"{len(emu.error_responses)} error responses; bot exit {proc.returncode}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--channels", type=int, default=40)
    parser.add_argument("--think", type=float, default=2.0, help="mean seconds per move")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-validate", action="store_true")
    args = parser.parse_args()
    asyncio.run(soak(args.minutes, args.channels, args.think, args.seed, not args.no_validate))


if __name__ == "__main__":
    main()
