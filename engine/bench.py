"""``python -m engine bench``: how fast the agents move, cold and warm.

Cold: a fresh interpreter imports the engine, then times the first move on the empty
3×3 board, table building included. Warm: the median of many repeated calls in one
process. Per-move: every agent's move times while playing games against ``random``.
"""

from __future__ import annotations

import platform
import statistics
import subprocess
import sys
import time

from engine.agents import LADDER, get_agent
from engine.board import Board

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


def per_move_seconds(name: str, games: int, seed: int = 1) -> list[float]:
    """Move times of ``name`` over ``games`` games against random, half as X, half as O."""
    agent = get_agent(name, seed=seed)
    rival = get_agent("random", seed=seed + 1)
    times = []
    for game in range(games):
        board = Board.new()
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


def run(cold_runs: int = 7, warm_calls: int = 2000, games: int = 200) -> str:
    lines = [
        f"machine: {platform.machine()}, {platform.processor() or 'cpu'}, "
        f"Python {platform.python_version()}",
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
