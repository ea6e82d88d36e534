"""``python -m engine bench``: how fast the agents move, cold and warm.

Cold: a fresh interpreter imports the engine, then times the first move on the empty
3×3 board, table building included. Warm: the median of many repeated calls in one
process. Per-move: every agent's move times while playing games against ``random``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from importlib import metadata

from engine.agents import LADDER, get_agent
from engine.board import Board
from engine.book import BOOK_DEPTH
from engine.pool import EnginePool

COLD_SNIPPET = """
import time
from engine import Board, get_agent
agent = get_agent({name!r}, seed=1)
board = Board.new()
start = time.perf_counter()
agent.choose(board)
print(time.perf_counter() - start)
"""


def cold_move_seconds(name: str, runs: int) -> list[float]:
    """First-move times of ``name`` in ``runs`` fresh interpreters."""
    times = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", COLD_SNIPPET.format(name=name)],
            capture_output=True,
            text=True,
            check=True,
        )
        times.append(float(out.stdout.strip()))
    return times


def warm_move_seconds(name: str, calls: int) -> list[float]:
    agent = get_agent(name, seed=1)
    board = Board.new()
    agent.choose(board)
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        agent.choose(board)
        times.append(time.perf_counter() - start)
    return times


def per_move_seconds(
    name: str, games: int, seed: int = 1, size: int = 3, think: float | None = None
) -> list[float]:
    """Move times of ``name`` over ``games`` games against random, half as X, half as O."""
    agent = get_agent(name, seed=seed, time_budget=think)
    rival = get_agent("random", seed=seed + 1)
    times = []
    for game in range(games):
        board = Board.new(size)
        ours = "X" if game % 2 == 0 else "O"
        while not board.is_over():
            if board.to_move == ours:
                start = time.perf_counter()
                cell = agent.choose(board)
                times.append(time.perf_counter() - start)
            else:
                cell = rival.choose(board)
            board = board.play(cell)
    return times


def _fmt(seconds: float) -> str:
    if seconds >= 1e-3:
        return f"{seconds * 1e3:8.2f} ms"
    return f"{seconds * 1e6:8.1f} µs"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def past_the_book(count: int, seed: int = 7) -> list[Board]:
    """5×5 positions where hard is to move and its book has just run out (BOOK_DEPTH + 1
    or + 2 marks), reached by hard against medium: the first moves it searches live."""
    rng = random.Random(seed)
    boards: list[Board] = []
    while len(boards) < count:
        side = rng.choice("XO")
        bot = get_agent("hard", seed=rng.getrandbits(32))
        rival = get_agent("medium", seed=rng.getrandbits(32))
        board = Board.new(5)
        while not board.is_over() and board.move_count <= BOOK_DEPTH:
            board = board.play((bot if board.to_move == side else rival).choose(board))
        if not board.is_over() and board.to_move != side:
            board = board.play(rival.choose(board))
        if not board.is_over():
            boards.append(board)
    return boards


async def loop_stall(searches: int, think: float, tick: float = 0.01) -> tuple[float, float]:
    """Largest gap between ticks of a ``tick``-second ticker while ``searches`` 5×5
    moves of hard, each the first past its opening book (a live exact search), are asked
    of an EnginePool at once; returns (largest gap, wall time)."""
    boards = past_the_book(searches)
    pool = EnginePool()
    await pool.warm_up()
    gaps: list[float] = []

    async def ticker() -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(tick)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    task = asyncio.create_task(ticker())
    began = time.perf_counter()
    await asyncio.gather(
        *(pool.choose(b, "hard", seed=i, time_budget=think) for i, b in enumerate(boards))
    )
    wall = time.perf_counter() - began
    task.cancel()
    pool.close()
    return max(gaps) - tick, wall


def machine_line() -> str:
    """What the figures were measured on: the CPU model, its cores, the Python and the
    discord.py version installed beside the engine (read from package metadata: the
    engine never imports Discord)."""
    model = platform.processor() or platform.machine()
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as info:
        for line in info:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    try:
        discord_py = metadata.version("discord.py")
    except metadata.PackageNotFoundError:
        discord_py = "not installed"
    return (
        f"machine: {model}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"discord.py {discord_py}"
    )


def run_sizes(games: int, think: float, stall_searches: int) -> str:
    lines = [
        machine_line(),
        f"per move against random, {games} games per row, think time {think:g} s on 5×5",
        f"{'size':<6}{'agent':<12}{'p50':>12}{'p99':>12}{'moves':>8}",
    ]
    for size in (3, 4, 5):
        for name in LADDER:
            times = per_move_seconds(name, games, size=size, think=think)
            lines.append(
                f"{size}×{size:<4}{name:<12}{_fmt(statistics.median(times)):>12}"
                f"{_fmt(percentile(times, 0.99)):>12}{len(times):>8}"
            )
    stall, wall = asyncio.run(loop_stall(stall_searches, think))
    lines += [
        "",
        f"event loop while {stall_searches} 5×5 searches ({think:g} s each) run at once in "
        f"the process pool: largest extra stall of a 10 ms ticker {_fmt(stall)} "
        f"(all done in {wall:.1f} s; target ≤ 20 ms)",
    ]
    return "\n".join(lines)


def run(cold_runs: int = 7, warm_calls: int = 2000, games: int = 200) -> str:
    lines = [
        machine_line(),
        "",
        "first move on the empty 3×3 board (targets: cold ≤ 6 ms, warm ≤ 20 µs)",
        f"{'agent':<12}{'cold median':>14}{'cold best':>14}{'warm median':>14}",
    ]
    for name in ("hard", "unbeatable"):
        cold = cold_move_seconds(name, cold_runs)
        warm = warm_move_seconds(name, warm_calls)
        lines.append(
            f"{name:<12}{_fmt(statistics.median(cold)):>14}{_fmt(min(cold)):>14}"
            f"{_fmt(statistics.median(warm)):>14}"
        )
    lines += ["", f"per move over {games} games against random (tables warm after the first)"]
    lines.append(f"{'agent':<12}{'median':>12}{'p99':>12}{'mean':>12}{'moves':>8}")
    for name in LADDER:
        times = per_move_seconds(name, games)
        lines.append(
            f"{name:<12}{_fmt(statistics.median(times)):>12}{_fmt(percentile(times, 0.99)):>12}"
            f"{_fmt(statistics.mean(times)):>12}{len(times):>8}"
        )
    return "\n".join(lines)
