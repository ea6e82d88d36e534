"""A process pool for searches that take real time, so the caller's event loop never
waits on the GIL. Each worker keeps its own agents and tables warm between moves.

Every move gets a deadline of one think time from when it was asked for, however many
are queued: a worker that picks a move up late searches only what time is left (at
least :data:`MIN_THINK`), so twenty games asking at once are all answered within about
one think time, less deeply, instead of one after another.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor

from engine.agents import Agent, get_agent
from engine.async_api import GRACE
from engine.board import Board

MIN_THINK = 0.05
"""Seconds a late move still gets: enough for the win/block rules and a shallow search."""

_agents: dict[tuple[str, int | None], Agent] = {}


def _choose_in_worker(
    size: int, k: int, x: int, o: int, name: str, seed: int | None,
    time_budget: float | None, deadline: float | None, max_depth: int | None,
) -> int:  # fmt: skip
    key = (name, max_depth)
    agent = _agents.get(key)
    if agent is None:
        agent = _agents[key] = get_agent(name, max_depth=max_depth)
    if time_budget is not None and hasattr(agent, "time_budget"):
        left = time_budget if deadline is None else deadline - time.time()
        agent.time_budget = max(MIN_THINK, min(time_budget, left))
    agent.rng.seed(seed)
    return agent.choose(Board(size, k, x, o))


def _ready() -> int:
    return os.getpid()


class EnginePool:
    """``workers`` processes (default: one per CPU) that choose moves by agent name."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or os.cpu_count() or 1
        self.moves_chosen = 0
        # spawn, not fork: the parent has threads (database, engine) that fork would copy
        # in whatever state they were in.
        self._executor = ProcessPoolExecutor(
            max_workers=self.workers, mp_context=multiprocessing.get_context("spawn")
        )

    async def warm_up(self) -> None:
        """Start every worker now rather than on the first move."""
        loop = asyncio.get_running_loop()
        await asyncio.gather(
            *(loop.run_in_executor(self._executor, _ready) for _ in range(self.workers))
        )

    async def choose(
        self,
        board: Board,
        name: str,
        *,
        seed: int | None = None,
        time_budget: float | None = None,
        max_depth: int | None = None,
    ) -> int:
        """The move agent ``name`` picks for ``board``, within ``time_budget`` seconds of
        now when one is given (hard and unbeatable on boards too large to solve).

        Raises:
            ValueError: unknown agent name. IllegalMove: the game is over.
            TimeoutError: no answer within the think time plus :data:`GRACE`.
        """
        loop = asyncio.get_running_loop()
        deadline = None if time_budget is None else time.time() + time_budget
        future = loop.run_in_executor(
            self._executor, _choose_in_worker, board.size, board.k, board.x, board.o, name,
            seed, time_budget, deadline, max_depth,
        )  # fmt: skip
        limit = None if time_budget is None else time_budget + GRACE
        move = await asyncio.wait_for(future, limit)
        self.moves_chosen += 1
        return move

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
