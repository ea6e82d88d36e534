"""Matches of ultimate tic-tac-toe: an engine agent against the reference player or
another agent, colours alternating, with the score's 95 % interval and the CPU it cost.

    .venv/bin/python bench/ultimate_match.py --a unbeatable --b ref --games 200
    .venv/bin/python bench/ultimate_match.py --a hard --b medium --games 40 --think 1

A player is an engine agent's name (``engine.get_agent(name, variant="ultimate")``, its
think time ``--think``) or ``ref`` (:mod:`ultimate_reference`: plain UCT, ``--playouts``
uniformly random playouts a move). Every move goes through ``UltimateBoard.play``, so an
illegal move from either side stops the match. Score is A's: win 1, draw 0.5, loss 0;
the interval is Wilson's. The last line is the engine's move generation speed (perft).
Run it niced on a shared machine: ``nice -n 19``; its output is a line a game, so
redirected to a file it keeps what a stopped match played, and SIGTERM (or Ctrl-C) ends
it after the game being played, with the summary of the games so far.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import signal
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ultimate_reference import ReferencePlayer

from engine import get_agent
from engine.bench import machine_line, percentile
from engine.ultimate import UltimateBoard
from engine.ultimate.fast import Position, perft

Player = Callable[[UltimateBoard], int]


def make_player(name: str, seed: int, think: float, playouts: int) -> Player:
    """``ref`` or ``ref:N``, an agent's name, or ``name:key=value,...`` to set an agent's
    attributes (``unbeatable:iterations=2000,decisive=0``) for experiments."""
    name, _, options = name.partition(":")
    if name == "ref":
        ref = ReferencePlayer(int(options) if options else playouts, seed)
        return lambda board: ref.choose_from(board.x, board.o, board.last)
    agent = get_agent(name, seed=seed, time_budget=think, variant="ultimate")
    for option in filter(None, options.split(",")):
        key, _, value = option.partition("=")
        current, number = getattr(agent, key, None), float(value)
        if isinstance(current, bool | float):
            setattr(agent, key, type(current)(number))
        else:  # an int or None (iterations): the compiled search takes ints only
            setattr(agent, key, int(number) if number.is_integer() else number)
    return agent.choose


def wilson(score: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's 95 % interval for a proportion (draws count a half)."""
    if games == 0:
        return 0.0, 1.0
    p = score / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def perft_speed(depth: int = 5) -> tuple[int, float]:
    start = time.perf_counter()
    count = perft(Position.of(UltimateBoard.new()), depth)
    return count, count / (time.perf_counter() - start)


def _load() -> str:
    """The 1-, 5- and 15-minute load averages (runnable processes; 2 cores here)."""
    return " ".join(f"{v:.1f}" for v in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--a", default="unbeatable")
    parser.add_argument("--b", default="ref")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--think", type=float, default=2.0, help="agents' think time (s)")
    parser.add_argument("--playouts", type=int, default=10_000, help="the reference's")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    seeds = random.Random(args.seed)
    players = {
        side: make_player(name, seeds.getrandbits(32), args.think, args.playouts)
        for side, name in (("a", args.a), ("b", args.b))
    }
    times: dict[str, list[float]] = {"a": [], "b": []}
    score = 0.0
    wall, cpu = time.perf_counter(), time.process_time()
    print(f"{machine_line()}; load {_load()} at the start", flush=True)
    stopping: list[int] = []  # SIGTERM or SIGINT: finish this game, then sum up
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda number, frame: stopping.append(number))
    played = 0
    for game in range(args.games):
        if stopping:
            break
        x_side = "a" if game % 2 == 0 else "b"
        board = UltimateBoard.new()
        while (outcome := board.outcome()) is None:
            side = x_side if board.to_move == "X" else ("b" if x_side == "a" else "a")
            began = time.perf_counter()
            cell = players[side](board)
            times[side].append(time.perf_counter() - began)
            board = board.play(cell)
        a_mark = "X" if x_side == "a" else "O"
        result = 0.5 if outcome == "draw" else float(outcome == a_mark)
        score += result
        print(
            f"game {game + 1:>3}: {args.a} as {a_mark} scores {result:g} in {board.move_count} "
            f"moves; {args.a} {score:g}/{game + 1}",
            flush=True,
        )
        played = game + 1
    low, high = wilson(score, played)
    print(
        f"{args.a} against {args.b}: {score:g}/{played} = {score / max(1, played):.3f} "
        f"(95 % interval {low:.3f}-{high:.3f}); think {args.think:g} s, reference "
        f"{args.playouts} playouts; wall {time.perf_counter() - wall:.0f} s, "
        f"CPU {time.process_time() - cpu:.0f} s" + (", stopped early" if stopping else "")
    )
    for side, name in (("a", args.a), ("b", args.b)):
        if times[side]:
            print(
                f"  {name} ({side}): move p50 {statistics.median(times[side]):.3f} s, "
                f"p99 {percentile(times[side], 0.99):.3f} s, max {max(times[side]):.3f} s, "
                f"{len(times[side])} moves"
            )
    print(f"load {_load()} at the end")
    count, speed = perft_speed()
    print(f"perft(5) = {count} positions, {speed:,.0f} positions/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
