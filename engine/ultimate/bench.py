"""``python -m engine bench --variant ultimate``: move generation speed and move times.

Speed: perft from the empty board (positions reached per second of move generation) and
random playouts per second, the two figures the tree search lives on. Move times: each
agent's per-move wall time against ``random`` at a think time, p50 and p99.
"""

from __future__ import annotations

import random
import statistics
import time

from engine.ultimate.agents import ULTIMATE_AGENTS, make_agent
from engine.ultimate.board import UltimateBoard
from engine.ultimate.fast import Position, perft, playout


def perft_speed(depth: int = 5) -> tuple[int, float]:
    """``(perft(depth), positions per second)`` from the empty board."""
    start = time.perf_counter()
    count = perft(Position.of(UltimateBoard.new()), depth)
    return count, count / (time.perf_counter() - start)


def playout_speed(count: int = 2000, decisive: bool = False, seed: int = 1) -> float:
    """Random playouts per second from the empty board."""
    p, rng = Position.of(UltimateBoard.new()), random.Random(seed)
    start = time.perf_counter()
    for _ in range(count):
        playout(p.me[:], p.them[:], 0, 0, 0, -1, rng.random, decisive)
    return count / (time.perf_counter() - start)


def move_times(name: str, games: int, think: float, seed: int = 1) -> list[float]:
    """Per-move wall times of ``name`` against random, half as X, half as O."""
    agent = make_agent(name, seed=seed, time_budget=think)
    rival = make_agent("random", seed=seed + 1)
    times = []
    for game in range(games):
        board, ours = UltimateBoard.new(), "X" if game % 2 == 0 else "O"
        while not board.is_over():
            if board.to_move == ours:
                began = time.perf_counter()
                cell = agent.choose(board)
                times.append(time.perf_counter() - began)
            else:
                cell = rival.choose(board)
            board = board.play(cell)
    return times


def run(games: int = 2, think: float = 2.0) -> str:
    count, speed = perft_speed()
    lines = [
        f"perft(5) = {count} positions: {speed:,.0f} positions/s",
        f"random playouts: {playout_speed():,.0f}/s uniform, "
        f"{playout_speed(decisive=True):,.0f}/s taking game-winning moves",
        f"per move against random, {games} games each, think time {think:g} s",
        f"{'agent':<12}{'p50':>10}{'p99':>10}{'max':>10}{'moves':>8}",
    ]
    for name in ULTIMATE_AGENTS:
        times = sorted(move_times(name, games, think))
        p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
        lines.append(
            f"{name:<12}{statistics.median(times):>9.3f}s{p99:>9.3f}s{times[-1]:>9.3f}s"
            f"{len(times):>8}"
        )
    return "\n".join(lines)
