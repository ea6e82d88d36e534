"""Ultimate tic-tac-toe through the bot's own path: an agent moving by ``BotOpponent``
over an ``EnginePool`` built as the bot builds it (``bot/app.py``: one worker fewer
than the CPUs, niced; the think time of ``bot/settings/``) against the reference
player, colours alternating, and how often a move's search started from a kept tree.

    .venv/bin/python bench/ultimate_pool_match.py --games 100 > log.txt
    .venv/bin/python bench/ultimate_pool_match.py --games 20 --at-once 2 --workers 2
    .venv/bin/python bench/ultimate_pool_match.py --games 20 --at-once 2 --workers 2 --before

``--at-once`` plays that many games side by side (each with its own number, as the bot's
game ids); ``--before`` plays through the pool as it was before it kept trees by game
(:class:`SharedQueuePool`: one executor whose idle workers take the next move from one
queue, one agent a worker for all games). A line a
game (the score, and of the agent's moves how many started from a kept tree and with how
many visits on average), then the score with its 95 % (Wilson) interval, the move times
and the load. SIGTERM (or Ctrl-C) ends it after the games being played.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import signal
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ultimate_match import _load, wilson
from ultimate_reference import ReferencePlayer

from bot.app import engine_workers
from bot.core.opponent import BotOpponent
from bot.settings import Settings
from engine import EnginePool, UltimateBoard
from engine.bench import machine_line, percentile
from engine.pool import start_worker
from engine.pool_worker import Chosen, choose


class SharedQueuePool:
    """The engine pool as it was before it kept trees by game, for ``--before``: one
    executor of ``workers`` processes taking moves from one queue, each worker with one
    agent a name for every game (the game id is not sent). The same worker function and
    start-up as :class:`EnginePool`, so only where moves go and which agent searches them
    differ."""

    def __init__(self, workers: int) -> None:
        self.moves_chosen = self.restarts = 0
        self.last_chosen: Chosen | None = None
        self.workers = workers
        self._executor = ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context("spawn"), initializer=start_worker,
            initargs=(os.getpid(),),
        )  # fmt: skip

    async def warm_up(self) -> None:
        loop = asyncio.get_running_loop()
        await asyncio.gather(
            *(loop.run_in_executor(self._executor, time.sleep, 0.5) for _ in range(self.workers))
        )

    async def choose(
        self, board: UltimateBoard, name: str, *, seed: int | None = None,
        time_budget: float | None = None, max_depth: int | None = None, game: int | None = None,
    ) -> int:  # fmt: skip
        deadline = None if time_budget is None else time.time() + time_budget
        loop = asyncio.get_running_loop()
        chosen = await loop.run_in_executor(
            self._executor, choose, board, name, seed, time_budget, deadline, max_depth
        )
        self.moves_chosen += 1
        self.last_chosen = chosen
        return chosen.move

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


class Tally:
    def __init__(self) -> None:
        self.score = 0.0
        self.played = 0
        self.moves = 0
        self.kept = 0
        self.visits = 0
        self.quick = 0
        """Moves the opponent fell back to a quick one for (the pool's answer was late)."""
        self.times: list[float] = []


async def play(
    number: int, opponent: BotOpponent, pool: EnginePool, ref: ReferencePlayer,
    args: argparse.Namespace, tally: Tally,
) -> None:  # fmt: skip
    agent_mark = "X" if number % 2 == 1 else "O"
    board = UltimateBoard.new()
    moves = kept = visits = 0
    while (outcome := board.outcome()) is None:
        if board.to_move == agent_mark:
            chosen_before, began = pool.moves_chosen, time.perf_counter()
            cell = await opponent.move(board, args.agent, game=number)
            tally.times.append(time.perf_counter() - began)
            answer = pool.last_chosen  # set just before move() returned, no await between
            if pool.moves_chosen == chosen_before or answer is None:
                tally.quick += 1
            elif answer.kept:
                kept, visits = kept + 1, visits + answer.kept
            moves += 1
        else:
            cell = ref.choose_from(board.x, board.o, board.last)
            await asyncio.sleep(0)  # let the other games' answers in
        board = board.play(cell)
    result = 0.5 if outcome == "draw" else float(outcome == agent_mark)
    tally.score += result
    tally.played += 1
    tally.moves, tally.kept = tally.moves + moves, tally.kept + kept
    tally.visits += visits
    print(
        f"game {number:>3}: {args.agent} as {agent_mark} scores {result:g} in "
        f"{board.move_count} moves; {kept}/{moves} searches from a kept tree, "
        f"{visits / max(1, kept):,.0f} visits kept on average; "
        f"{args.agent} {tally.score:g}/{tally.played}",
        flush=True,
    )


async def main_async(args: argparse.Namespace) -> int:
    workers = args.workers or engine_workers()
    pool: Any = SharedQueuePool(workers) if args.before else EnginePool(workers)
    opponent = BotOpponent(think_time=args.think, pool=pool, rng=random.Random(args.seed))
    seeds = random.Random(args.seed + 1)
    tally = Tally()
    stopping: list[int] = []
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.append, sig)
    wall = time.perf_counter()
    print(f"{machine_line()}; load {_load()} at the start; {workers} engine worker(s), "
          f"think {args.think:g} s, {args.at_once} game(s) at once"
          + (", the pool as before (a shared queue)" if args.before else ""),
          flush=True)  # fmt: skip
    try:
        await pool.warm_up()
        numbers = iter(range(1, args.games + 1))

        async def runner() -> None:
            for number in numbers:
                if stopping:
                    return
                ref = ReferencePlayer(args.playouts, seeds.getrandbits(32))
                await play(number, opponent, pool, ref, args, tally)

        await asyncio.gather(*(runner() for _ in range(args.at_once)))
    finally:
        pool.close()
    low, high = wilson(tally.score, tally.played)
    print(
        f"{args.agent} (through the pool) against the reference: {tally.score:g}/"
        f"{tally.played} = {tally.score / max(1, tally.played):.3f} (95 % interval "
        f"{low:.3f}-{high:.3f}); reference {args.playouts} playouts; wall "
        f"{time.perf_counter() - wall:.0f} s" + (", stopped early" if stopping else "")
    )
    print(
        f"  searches from a kept tree: {tally.kept}/{tally.moves} = "
        f"{tally.kept / max(1, tally.moves):.3f}, {tally.visits / max(1, tally.kept):,.0f} "
        f"visits kept on average; quick moves (the pool late): {tally.quick}; "
        f"worker restarts: {pool.restarts}"
    )
    if tally.times:
        times = tally.times
        print(
            f"  {args.agent}: move p50 {statistics.median(times):.3f} s, p99 "
            f"{percentile(times, 0.99):.3f} s, max {max(times):.3f} s, {len(times)} moves"
        )
    print(f"load {_load()} at the end")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--agent", default="unbeatable")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--at-once", type=int, default=1, help="games played side by side")
    parser.add_argument("--workers", type=int, default=0, help="0: as the bot (bot/app.py)")
    parser.add_argument("--think", type=float, default=Settings(token="").think_time)
    parser.add_argument("--playouts", type=int, default=10_000, help="the reference's")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--before", action="store_true", help="the pool before trees by game")
    return asyncio.run(main_async(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
