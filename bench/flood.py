"""A flood of interactions on a machine without the CPU for all of it: is every one still
answered within Discord's 3 seconds?

    python bench/flood.py --interactions 2000 --seconds 10 --big 0.25

Starts the Discord emulator in this process (spec validation off unless ``--validate``:
at ~20 ms a request it would be the bottleneck) and the real bot as a child process
(``python -m bot``, its engine workers under it). Interactions are sent on a fixed
schedule, ``--interactions`` over ``--seconds``, whether or not earlier ones were
answered: a share ``--big`` of them are moves in games on 4×4 against unbeatable (the
engine's searches go to its worker processes), the rest moves on 3×3 against hard; a
channel whose game has ended gets ``/ttt start`` instead, counted as an interaction of
its kind. Each channel has one interaction in flight at most, and its member clicks
only once the bot's reply is on the board, so every click is a real move.

It prints how many interactions got their first answer within 3 s, the latency's
p50/p99/max (from the emulator's INTERACTION_CREATE to the bot's initial response), how
long the bot's replies on 4×4 took to reach the board, and how much CPU the bot's event
loop process and its engine workers used: the engine busy while the answers still come.
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
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

from bot_latency import (  # noqa: E402
    board_of,
    own_cpu_seconds,
    percentile,
    tree_cpu_seconds,
    wait_until_ready,
)

from bot_harness import bot_process_env, cell_buttons  # noqa: E402
from discord_emulator import DiscordEmulator, default_spec_path  # noqa: E402

DEADLINE = 3.0


@dataclass
class Channel:
    big: bool
    user: object
    channel: object
    message: dict | None = None
    busy: bool = False


@dataclass
class Figures:
    latencies: dict[str, list[float]] = field(default_factory=lambda: {"big": [], "small": []})
    unanswered: int = 0
    skipped: int = 0
    """Scheduled interactions with no idle channel of their kind to send them in."""
    refused: int = 0
    reply_waits: list[float] = field(default_factory=list)
    """Seconds from a click on 4×4 until the bot's reply was on the board."""


def options(big: bool) -> dict:
    if big:
        return {"difficulty": "unbeatable", "size": 4, "first": "me"}
    return {"difficulty": "hard", "first": "me"}


async def act(emu: DiscordEmulator, ch: Channel, rng: random.Random, figures: Figures) -> None:
    """One interaction in ``ch``: a click on the latest board, or a start once it ended."""
    kind = "big" if ch.big else "small"
    ch.busy = True
    try:
        board = board_of(ch.message) if ch.message is not None else None
        if board is None or board.is_over():
            res = await emu.invoke(ch.user, "ttt start", options(ch.big), channel=ch.channel)
            if res.type is None:
                figures.unanswered += 1
                return
            figures.latencies[kind].append(res.latency)
            if res.ephemeral or res.message is None:
                figures.refused += 1
                return
            ch.message = res.message
            return
        cell = rng.choice(board.legal_moves())
        clicked = time.perf_counter()
        res = await emu.click(ch.user, ch.message, cell_buttons(ch.message)[cell]["custom_id"])
        if res.type is None:
            figures.unanswered += 1
            return
        figures.latencies[kind].append(res.latency)
        if res.ephemeral:
            figures.refused += 1
            return
        mid = ch.message["id"]

        def replied(message: dict) -> bool:
            if message["id"] != mid:
                return False
            after = board_of(message)
            return after.is_over() or after.to_move == board.to_move

        # the reply lands on the board (edited in when it comes): told by the emulator,
        # not polled, so the load generator spends its CPU on the load
        current = emu.message(mid)  # nothing runs between this look and the listening
        ch.message = current if replied(current) else await emu.wait_for_message(replied, 120)
        if ch.big:
            figures.reply_waits.append(time.perf_counter() - clicked)
    finally:
        ch.busy = False


def line(name: str, values: list[float]) -> str:
    if not values:
        return f"  {name:<18}none"
    ms = [v * 1000 for v in values]
    late = sum(v > DEADLINE for v in values)
    return (
        f"  {name:<18}{len(values)} answered, {len(values) - late} within 3 s, {late} late; "
        f"p50 {percentile(ms, 50):.0f} ms, p99 {percentile(ms, 99):.0f} ms, "
        f"max {max(ms):.0f} ms"
    )


async def flood(args: argparse.Namespace) -> int:
    spec = default_spec_path()
    emu = DiscordEmulator(spec_path=spec, validate=args.validate and spec.is_file())
    rng = random.Random(args.seed)
    figures = Figures()
    with tempfile.TemporaryDirectory() as tmp:
        await emu.start()
        extra = {"TTT_LOG_LEVEL": "WARNING", "TTT_WARM_WORKERS": "1"}
        if args.workers:
            extra["TTT_ENGINE_WORKERS"] = str(args.workers)
        env = bot_process_env(emu, Path(tmp) / "ttt.sqlite3", **extra)
        errors = open(Path(tmp) / "bot.log", "wb")  # noqa: SIM115 (closed with the folder)
        proc = subprocess.Popen(
            [sys.executable, "-m", "bot"], env=env, cwd=tmp, stdout=subprocess.DEVNULL,
            stderr=errors, process_group=0,
        )  # fmt: skip
        try:
            await wait_until_ready(emu, proc)
            channels = [
                Channel(i < args.big_channels, emu.create_user(f"m{i}"),
                        emu.create_channel(emu.guild, f"flood-{i}"))
                for i in range(args.big_channels + args.small_channels)
            ]  # fmt: skip
            await asyncio.sleep(1.0)  # the engine workers warm up
            pools = {big: [c for c in channels if c.big == big] for big in (True, False)}
            cpu_before = tree_cpu_seconds(proc.pid)
            own_before = time.process_time()
            loop_before = own_cpu_seconds(proc.pid)
            tasks: list[asyncio.Task[None]] = []
            began = time.perf_counter()
            for i in range(args.interactions):
                at = began + i * args.seconds / args.interactions
                await asyncio.sleep(max(0.0, at - time.perf_counter()))
                big = int((i + 1) * args.big) > int(i * args.big)  # a share --big of them
                idle = [c for c in pools[big] if not c.busy]
                if not idle:
                    figures.skipped += 1
                    continue
                tasks.append(asyncio.create_task(act(emu, rng.choice(idle), rng, figures)))
            sent_in = time.perf_counter() - began
            await asyncio.gather(*tasks)
            wall = time.perf_counter() - began
            cpu = tree_cpu_seconds(proc.pid) - cpu_before
            loop_cpu = own_cpu_seconds(proc.pid) - loop_before
            emulator_cpu = time.process_time() - own_before
        finally:
            proc.terminate()
            try:
                await asyncio.to_thread(proc.wait, 30)
            except subprocess.TimeoutExpired:
                print("the bot did not stop within 30 s of SIGTERM: killed")
                os.killpg(proc.pid, 9)
            await emu.stop()
            errors.close()
            log = (Path(tmp) / "bot.log").read_text(errors="replace").splitlines()
            if log:
                print(f"the bot's log ({len(log)} lines), its last 20:", *log[-20:], sep="\n  ")
    every = figures.latencies["big"] + figures.latencies["small"]
    late = sum(v > DEADLINE for v in every) + figures.unanswered
    cpus = len(os.sched_getaffinity(0))
    print(
        f"flood: {len(tasks)} interactions sent in {sent_in:.1f} s "
        f"({figures.skipped} scheduled found no idle channel), "
        f"{args.big:.0%} on 4×4 against unbeatable, the rest on 3×3 against hard"
    )
    print(f"machine: {platform.platform()}, nproc {cpus}, Python {platform.python_version()}")
    print(line("all", every))
    print(line("4×4 vs unbeatable", figures.latencies["big"]))
    print(line("3×3 vs hard", figures.latencies["small"]))
    if figures.reply_waits:
        waits = [w * 1000 for w in figures.reply_waits]
        print(
            f"  bot replies on 4×4 reached the board: p50 {percentile(waits, 50):.0f} ms, "
            f"p99 {percentile(waits, 99):.0f} ms, max {max(waits):.0f} ms"
        )
    print(
        f"  CPU over {wall:.1f} s: {cpu:.1f} s in all, {loop_cpu:.1f} s the bot's own process, "
        f"{cpu - loop_cpu:.1f} s its engine workers ({(cpu - loop_cpu) / wall:.2f} cores); "
        f"the emulator and this load {emulator_cpu:.1f} s"
    )
    print(
        f"  unanswered {figures.unanswered}, refused {figures.refused}, "
        f"emulator violations {len(emu.violations)}"
    )
    for v in emu.violations[:10]:
        print(f"    {v}")
    print(f"RESULT: {len(every) - late + figures.unanswered} of {len(every) + figures.unanswered} "
          f"answered within 3 s")  # fmt: skip
    return 0 if late == 0 and not emu.violations else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interactions", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--big", type=float, default=0.25, help="share of 4×4 interactions")
    parser.add_argument("--big-channels", type=int, default=200)
    parser.add_argument("--small-channels", type=int, default=150)
    parser.add_argument(
        "--workers", type=int, default=0, help="engine workers (default: the bot's)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--validate", action="store_true", help="validate against the spec")
    args = parser.parse_args()
    if not 0 < args.big < 1 or args.interactions < 1 or args.seconds <= 0:
        parser.error("--big must be between 0 and 1, --interactions and --seconds positive")
    raise SystemExit(asyncio.run(flood(args)))


if __name__ == "__main__":
    main()
