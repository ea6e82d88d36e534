"""``python -m engine bench --variant ultimate``: move generation speed and move times.

Speed: perft from the empty board (positions reached per second of move generation),
random playouts per second and tree-search iterations per second, in Python and
compiled (``_csearch``, when built). Move times: each agent's per-move wall time against
``medium`` (real games: against random the search proves its win early and stops) at a
think time, p50 and p99.
"""

from __future__ import annotations

import random
import statistics
import time

from engine.ultimate.agents import ULTIMATE_AGENTS, make_agent
from engine.ultimate.board import UltimateBoard
from engine.ultimate.fast import Position, perft, playout
from engine.ultimate.mcts import _csearch, make_tree


def perft_speed(depth: int = 5, compiled: bool = False) -> tuple[int, float]:
    """``(perft(depth), positions per second)`` from the empty board."""
    p = Position.of(UltimateBoard.new())
    start = time.perf_counter()
    if compiled and _csearch is not None:
        count = _csearch.perft(p.me, p.them, 0, 0, 0, -1, depth)
    else:
        count = perft(p, depth)
    return count, count / (time.perf_counter() - start)


def playout_speed(
    count: int = 2000, decisive: bool = False, seed: int = 1, compiled: bool = False
) -> float:
    """Random playouts per second from the empty board."""
    p, rng = Position.of(UltimateBoard.new()), random.Random(seed)
    run = _csearch.playout if compiled and _csearch is not None else playout
    start = time.perf_counter()
    for _ in range(count):
        run(p.me[:], p.them[:], 0, 0, 0, -1, rng.random, decisive)
    return count / (time.perf_counter() - start)


def search_speed(seconds: float = 1.0, compiled: bool = True) -> float:
    """Tree-search iterations per second from the empty board (engine settings)."""
    tree = make_tree(Position.of(UltimateBoard.new()), compiled)
    start = time.perf_counter()
    return tree.search(seconds, None, 1) / (time.perf_counter() - start)


def move_times(name: str, games: int, think: float, seed: int = 1) -> list[float]:
    """Per-move wall times of ``name`` against random, half as X, half as O."""
    agent = make_agent(name, seed=seed, time_budget=think)
    rival = make_agent("medium", seed=seed + 1)
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
    lines = [f"perft(5) = {count} positions: {speed:,.0f} positions/s in Python"]
    if _csearch is not None:
        count, speed = perft_speed(6, compiled=True)
        lines.append(f"perft(6) = {count} positions: {speed:,.0f} positions/s compiled")
    for label, compiled in (("Python", False), ("compiled, drawing Python's random", True)):
        if compiled and _csearch is None:
            lines.append("compiled search: not built")
            continue
        runs = 20_000 if compiled else 2000
        lines.append(
            f"random playouts, {label}: {playout_speed(runs, compiled=compiled):,.0f}/s "
            f"uniform, {playout_speed(runs, True, compiled=compiled):,.0f}/s taking "
            f"game-winning moves; search {search_speed(compiled=compiled):,.0f} iterations/s"
        )
    lines += [
        f"per move against medium, {games} games each, think time {think:g} s",
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
