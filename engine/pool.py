"""A process pool for searches that take real time, so the caller's event loop never
waits on the GIL. Each worker keeps its own agents and tables warm between moves.

Every move gets a deadline of one think time from when it was asked for, however many
are queued: a worker that picks a move up late searches only what time is left (at
least :data:`MIN_THINK`), so twenty games asking at once are all answered within about
one think time, less deeply, instead of one after another.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from engine.agents import Agent, get_agent
from engine.async_api import GRACE
from engine.board import Board
from engine.ultimate.agents import UltimateAgent
from engine.ultimate.board import UltimateBoard

log = logging.getLogger(__name__)
T = TypeVar("T")

MIN_THINK = 0.05
"""Seconds a late move still gets: enough for the win/block rules and a shallow search."""

_agents: dict[tuple[str, str, int | None], Agent | UltimateAgent] = {}


def _choose_in_worker(
    board: Board | UltimateBoard, name: str, seed: int | None,
    time_budget: float | None, deadline: float | None, max_depth: int | None,
) -> int:  # fmt: skip
    key = (board.variant, name, max_depth)
    agent = _agents.get(key)
    if agent is None:
        agent = _agents[key] = get_agent(name, max_depth=max_depth, variant=board.variant)
    if time_budget is not None and hasattr(agent, "time_budget"):
        left = time_budget if deadline is None else deadline - time.time()
        agent.time_budget = max(MIN_THINK, min(time_budget, left))
    agent.rng.seed(seed)
    game: Any = board  # the agent was made for the board's variant
    return int(agent.choose(game))


class PoolClosed(RuntimeError):
    """The pool is closing or closed and has no worker left for a call: it is not
    answered, and no worker is started for it."""


def _ready() -> int:
    return os.getpid()


RESTART_PAUSE = 0.2
"""Seconds a pool whose worker died waits before it starts a new one: a stop signal sent
to the whole process group (systemd's, Ctrl-C in a terminal) kills the workers as it
reaches this process, and nothing orders which of the two the event loop learns of
first. The pause lets the stop be seen (:meth:`EnginePool.begin_close`); a new pool
takes longer than that to start anyway."""

NICENESS = 10
"""How much lower a worker's CPU priority is than its parent's (Linux caps it at 19):
searches use what the event loop leaves, so a flood of big-board moves never delays an
answer to Discord. At 10 a busy worker weighs about a ninth of the event loop with the
kernel's scheduler (at 5 it weighed a third). bench/flood.py measures the two changes
made together (this and answering late clicks at once); see the README."""
PR_SET_PDEATHSIG = 1


def start_worker() -> None:
    """In each new worker: a lower priority, and on Linux a SIGTERM when the parent dies
    (killed, say), so no worker outlives it and keeps a core busy as an orphan."""
    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
            if os.getppid() == 1:  # the parent died before prctl took effect
                os._exit(0)


class EnginePool:
    """``workers`` processes (default: one per CPU) that choose moves by agent name."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or os.cpu_count() or 1
        self.moves_chosen = 0
        self.restarts = 0
        self.closing = False
        """Set by :meth:`begin_close`: a worker that dies from then on is not replaced."""
        self._closed = False
        self._executor = self._new_executor()

    def _new_executor(self) -> ProcessPoolExecutor:
        # spawn, not fork: the parent has threads (database, engine) that fork would copy
        # in whatever state they were in.
        return ProcessPoolExecutor(
            max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
            initializer=start_worker,
        )  # fmt: skip

    async def warm_up(self) -> None:
        """Start every worker now rather than on the first move."""
        loop = asyncio.get_running_loop()
        await asyncio.gather(
            *(loop.run_in_executor(self._executor, _ready) for _ in range(self.workers))
        )

    async def choose(
        self,
        board: Board | UltimateBoard,
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
        deadline = None if time_budget is None else time.time() + time_budget
        move = await self.run(
            _choose_in_worker, board, name, seed, time_budget, deadline, max_depth,
            deadline=deadline,
        )  # fmt: skip
        self.moves_chosen += 1
        return move

    async def run(self, fn: Callable[..., T], *args: Any, deadline: float | None = None) -> T:
        """``fn(*args)`` in a worker (``fn`` a module-level function of picklable values).
        A worker that died (killed for memory, say) leaves the pool broken for every later
        call: it is replaced once and ``fn`` asked again, within the time left before
        ``deadline`` (plus :data:`GRACE`) when one is given. Not once the pool is closing.

        Raises:
            TimeoutError: no answer by the deadline plus :data:`GRACE`.
            BrokenProcessPool: the new pool broke too.
            PoolClosed: the pool was closed, or a worker died while it was closing.
        """
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            if self._closed:
                raise PoolClosed("the engine pool is closed")
            executor = self._executor
            limit = None if deadline is None else max(MIN_THINK, deadline - time.time()) + GRACE
            try:  # a pool seen broken raises at submit, one that breaks now at the result
                return await asyncio.wait_for(loop.run_in_executor(executor, fn, *args), limit)
            except BrokenProcessPool:
                if not self.closing:
                    await asyncio.sleep(RESTART_PAUSE)
                if self.closing:
                    # The workers died with the process (a stop signal to the whole
                    # group): expected, and a new pool would only be shut down again, or
                    # outlive the close.
                    raise PoolClosed("an engine worker died while the pool was closing") from None
                self._replace(executor)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        if self._executor is broken:  # another move may have replaced it already
            self.restarts += 1
            log.warning("an engine worker died; starting a new pool (restart %d)",
                        self.restarts)  # fmt: skip
            self._executor = self._new_executor()
        broken.shutdown(wait=False, cancel_futures=True)

    def worker_pids(self) -> list[int]:
        """The live workers' process ids (for tests and diagnostics)."""
        processes = getattr(self._executor, "_processes", None) or {}
        return [p.pid for p in processes.values() if p.is_alive()]

    def begin_close(self) -> None:
        """The pool is closing: calls still run on the workers it has, but a worker that
        dies from now on is not replaced (see :meth:`run`)."""
        self.closing = True

    def close(self) -> None:
        """Stop the workers once the calls they are running are done; calls still queued
        are cancelled, later ones refused with :class:`PoolClosed`."""
        self.begin_close()
        self._closed = True
        self._executor.shutdown(wait=False, cancel_futures=True)
