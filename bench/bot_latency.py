"""Click-to-response latency of the bot with many games at once, through the local emulator.

    python bench/bot_latency.py --games 50 --moves-per-game 4

Starts the Discord emulator in this process (request bodies validated against Discord's
OpenAPI spec when it is present) and the real bot as a child process (``python -m bot``),
so each has a core of its own, as the bot and Discord would. Every game has its own
member and channel (one game per channel); all games run at once, against the bot at
``hard`` with the member moving first. Each member thinks for ``--think`` seconds on
average (uniform between half and one and a half times that; 0 clicks as fast as the
answers come), then clicks a legal empty square on the latest board, until the game ends
or it made ``--moves-per-game`` moves. Latency is the emulator's time from dispatching
INTERACTION_CREATE to the arrival of the bot's initial response, for every click.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

import discord  # noqa: E402

from engine import Board  # noqa: E402

from bot_harness import bot_process_env, cell_buttons, start_bot_process  # noqa: E402
from discord_emulator import DiscordEmulator, default_spec_path  # noqa: E402

MARKS = {"❌": "X", "⭕": "O"}


def board_of(message: dict) -> Board:
    return Board.from_string(
        "".join(MARKS.get((b.get("emoji") or {}).get("name"), ".") for b in cell_buttons(message))
    )


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    start_latencies: list[float] = field(default_factory=list)
    member_moves: int = 0
    bot_replies: int = 0
    deferred: int = 0
    unanswered: int = 0
    refused: int = 0
    finished_games: int = 0
    rss: tuple[int, int, int] | None = None
    """(baseline, largest sampled, kernel's peak) RSS of the bot in KB."""


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of a non-empty list."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


async def bot_replied(emu: DiscordEmulator, message_id: str, mark: str) -> dict:
    """The message once the bot's reply is on it: on a big board the member's move may be
    shown first and the reply edited in when the search ends."""
    for _ in range(400):
        message = emu.message(message_id)
        board = board_of(message)
        if board.is_over() or board.to_move == mark:
            return message
        await asyncio.sleep(0.025)
    return emu.message(message_id)


async def play(
    emu: DiscordEmulator,
    user,
    message: dict,
    moves: int,
    rng: random.Random,
    tally: Tally,
    think: float,
    until: float | None = None,
) -> dict:
    for _ in range(moves):
        board = board_of(message)
        if board.is_over() or (until is not None and time.perf_counter() > until):
            break
        await asyncio.sleep(rng.uniform(0.5, 1.5) * think)
        cell = rng.choice(board.legal_moves())
        res = await emu.click(user, message, cell_buttons(message)[cell]["custom_id"])
        if res.type is None:
            tally.unanswered += 1
            return message
        tally.latencies.append(res.latency)
        if res.type in (5, 6):
            tally.deferred += 1
            await res.wait_for_edit(timeout=10)
        if res.ephemeral:
            tally.refused += 1
            return message
        message = await bot_replied(emu, message["id"], board.to_move)
        after = board_of(message)
        tally.member_moves += 1
        tally.bot_replies += after.move_count - board.move_count - 1
    if board_of(message).is_over():
        tally.finished_games += 1
    return message


async def slot(
    emu: DiscordEmulator, user, channel, rng: random.Random, tally: Tally, think: float,
    until: float, options: Callable[[random.Random], dict] | None = None,
) -> None:  # fmt: skip
    """One channel kept busy until ``until``: a game, then another, and so on; each
    started with ``options(rng)`` (default: hard, the member first)."""
    while time.perf_counter() < until:
        await asyncio.sleep(rng.uniform(0.5, 1.5) * think)
        chosen = options(rng) if options else {"difficulty": "hard", "first": "me"}
        res = await emu.invoke(user, "ttt start", chosen, channel=channel)
        if res.type is None:
            tally.unanswered += 1
            return
        tally.start_latencies.append(res.latency)
        if res.ephemeral:
            tally.refused += 1
            return
        await play(emu, user, res.message, 1000, rng, tally, think, until)


def rss_kb(pid: int) -> tuple[int, int]:
    """(current, peak) resident set size of a process, in KB, from /proc."""
    fields = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


async def wait_until_ready(emu: DiscordEmulator, proc: subprocess.Popen[bytes]) -> None:
    for _ in range(300):
        if proc.poll() is not None:
            raise SystemExit(
                f"the bot exited with {proc.returncode}: "
                f"{proc.stderr.read().decode() if proc.stderr else ''}"
            )
        if emu.ready_count >= 1 and emu.sync_count >= 1:
            return
        await asyncio.sleep(0.05)
    raise SystemExit("the bot did not get ready within 15 s")


async def bench(
    games: int, moves: int, seed: int, validate: bool, think: float, duration: float | None
) -> None:
    spec = default_spec_path()
    validate = validate and spec.is_file()
    loaded = time.perf_counter()
    emu = DiscordEmulator(spec_path=spec, validate=validate)
    loaded = time.perf_counter() - loaded
    tally = Tally()
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        await emu.start()
        try:
            env = bot_process_env(emu, Path(tmp) / "ttt.sqlite3", TTT_LOG_LEVEL="WARNING")
            proc = start_bot_process(env, Path(tmp))
            try:
                await wait_until_ready(emu, proc)
                players = [emu.create_user(f"player{i}") for i in range(games)]
                channels = [emu.create_channel(emu.guild, f"game-{i}") for i in range(games)]
                await asyncio.sleep(0.5)
                baseline = rss_kb(proc.pid)[0]
                began = time.perf_counter()
                if duration is not None:
                    until = began + duration
                    samples: list[int] = []

                    async def sample() -> None:
                        while True:
                            samples.append(rss_kb(proc.pid)[0])
                            await asyncio.sleep(0.5)

                    sampler = asyncio.create_task(sample())
                    await asyncio.gather(
                        *(
                            slot(emu, p, c, random.Random(rng.random()), tally, think, until)
                            for p, c in zip(players, channels, strict=True)
                        )
                    )
                    sampler.cancel()
                    tally.rss = (baseline, max(samples), rss_kb(proc.pid)[1])
                else:
                    starts = await asyncio.gather(
                        *(
                            emu.invoke(
                                p, "ttt start", {"difficulty": "hard", "first": "me"}, channel=c
                            )
                            for p, c in zip(players, channels, strict=True)
                        )
                    )
                    tally.start_latencies = [r.latency for r in starts if r.latency is not None]
                    tally.unanswered += sum(r.type is None for r in starts)
                    began = time.perf_counter()
                    await asyncio.gather(
                        *(
                            play(emu, p, r.message, moves, random.Random(rng.random()), tally,
                                 think)
                            for p, r in zip(players, starts, strict=True)
                            if r.message is not None
                        )
                    )  # fmt: skip
                wall = time.perf_counter() - began
            finally:
                proc.terminate()
                await asyncio.to_thread(proc.wait, 10)
        finally:
            await emu.stop()

    ms = [x * 1000 for x in tally.latencies]
    total = tally.member_moves + tally.bot_replies
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(
        f"bot latency: {games} concurrent games vs hard, member first, "
        + (f"for {duration:g} s" if duration else f"up to {moves} moves each")
        + f", {think:g} s mean think time; bot in its own process"
    )
    print(f"machine:     {platform.platform()}, {platform.machine()}, nproc {cpus}")
    print(f"software:    Python {platform.python_version()}, discord.py {discord.__version__}")
    if validate:
        state = f"ON ({spec}, loaded in {loaded:.2f} s)"
    else:
        state = "OFF (--no-validate)" if spec.is_file() else f"OFF (no spec at {spec})"
    print(f"validation:  {state}")
    if tally.start_latencies:
        s = [x * 1000 for x in tally.start_latencies]
        print(
            f"/ttt start:  {len(s)} commands, p50 {percentile(s, 50):.1f} ms, "
            f"p99 {percentile(s, 99):.1f} ms, max {max(s):.1f} ms"
        )
    if ms:
        print(
            f"clicks:      {len(ms)} clicks, p50 {percentile(ms, 50):.1f} ms, "
            f"p99 {percentile(ms, 99):.1f} ms, max {max(ms):.1f} ms"
        )
    print(
        f"moves:       {tally.member_moves} member + {tally.bot_replies} bot = {total} in "
        f"{wall:.2f} s wall clock = {total / wall:.0f} moves/s; "
        f"{tally.finished_games} games finished"
    )
    print(
        f"problems:    {tally.unanswered} unanswered, {tally.deferred} deferred, "
        f"{tally.refused} refused, {len(emu.violations)} violations, "
        f"{len(emu.error_responses)} error responses"
    )
    if tally.rss is not None:
        base, high, peak = tally.rss
        per_game = (high - base) / games
        print(
            f"memory:      bot RSS {base / 1024:.1f} MB idle, {high / 1024:.1f} MB with {games} "
            f"running games (peak {peak / 1024:.1f} MB): {per_game:.1f} KB per running game"
        )
    for violation in emu.violations:
        print(f"  violation: {violation}")
    for method, path, status, body in emu.error_responses:
        print(f"  error: {method} {path} -> {status} {body}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50, help="concurrent games (default 50)")
    parser.add_argument("--moves-per-game", type=int, default=4, help="member moves per game")
    parser.add_argument("--seed", type=int, default=1, help="seed for the members' squares")
    parser.add_argument(
        "--duration",
        type=float,
        default=None,
        help="keep every channel playing game after game for this many seconds, and "
        "measure the bot's memory",
    )
    parser.add_argument(
        "--think",
        type=float,
        default=1.0,
        help="mean seconds a member takes per move (default 1; 0 = click at once)",
    )
    parser.add_argument(
        "--no-validate",
        action="store_true",
        help="skip the emulator's OpenAPI validation of request bodies (on when the spec "
        "exists): it costs the emulator about 20 ms a request",
    )
    args = parser.parse_args()
    if args.games < 1 or args.moves_per_game < 1:
        parser.error("--games and --moves-per-game must be at least 1")
    asyncio.run(
        bench(
            args.games,
            args.moves_per_game,
            args.seed,
            not args.no_validate,
            args.think,
            args.duration,
        )
    )


if __name__ == "__main__":
    main()
