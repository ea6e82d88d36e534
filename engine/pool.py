"""A process pool for searches that take real time, so the caller's event loop never
waits on the GIL. Each worker keeps its own agents and tables warm between moves, and the
search trees of the games it was sent (:mod:`engine.pool_worker`).

Every move gets a deadline of one think time from when it was asked for, however many
are queued: a worker that picks a move up late searches only what time is left (at
least :data:`MIN_THINK`), so twenty games asking at once are all answered within about
one think time, less deeply, instead of one after another.

A game's moves go to the worker that searched its last one, where its tree is, unless
that worker is busier than another: then to the idler one, since a search that waits
for its worker loses think time it would not get back, and a kept tree carries only a
part of one move's search (see docs/engine/ultimate.md). Each worker is an executor of
its own, so a worker that dies is replaced alone, and the others keep their trees.
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
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from engine.async_api import GRACE
from engine.board import Board
from engine.pool_worker import MIN_THINK, Chosen
from engine.pool_worker import choose as _choose_in_worker
from engine.ultimate.board import UltimateBoard

__all__ = ["MIN_THINK", "NICENESS", "Chosen", "EnginePool", "PoolClosed", "start_worker"]

log = logging.getLogger(__name__)
T = TypeVar("T")

HOMES = 4096
"""Games whose worker the pool remembers (the least recently moved forgotten first)."""


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
made together (this and answering late clicks at once): see docs/develop/benchmarks.md."""
PR_SET_PDEATHSIG = 1


def start_worker(parent: int) -> None:
    """In each new worker of the process ``parent`` (its pid): a lower priority, and on
    Linux a SIGTERM when the parent dies (killed, say), so no worker outlives it and keeps
    a core busy as an orphan."""
    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
            # The parent died before prctl took effect: the worker was handed on to
            # another. Not "the parent is 1": in a container the bot itself is pid 1.
            if os.getppid() != parent:
                os._exit(0)


class EnginePool:
    """``workers`` processes (default: one per CPU) that choose moves by agent name."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or os.cpu_count() or 1
        self.moves_chosen = 0
        self.restarts = 0
        self.searches_kept = 0
        """Moves whose search started from a tree kept from the game's last move."""
        self.visits_kept = 0
        """The visits those searches started from, summed."""
        self.last_chosen: Chosen | None = None
        """The last answer of :meth:`choose` (its worker and kept visits, for tests)."""
        self.closing = False
        """Set by :meth:`begin_close`: a worker that dies from then on is not replaced."""
        self._closed = False
        self._slots = [self._new_executor() for _ in range(self.workers)]
        self._busy = [0] * self.workers
        """Calls submitted to each worker and not done (counted from the executors'
        threads too, hence the lock)."""
        self._lock = threading.Lock()
        self._homes: OrderedDict[int, int] = OrderedDict()
        """The worker each game's last move went to, least recently moved first."""
        self._turn = 0

    def _new_executor(self) -> ProcessPoolExecutor:
        # spawn, not fork: the parent has threads (database, engine) that fork would copy
        # in whatever state they were in. One process each, so the pool picks the worker.
        return ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn"),
            initializer=start_worker, initargs=(os.getpid(),),
        )  # fmt: skip

    async def warm_up(self) -> None:
        """Start every worker now rather than on the first move."""
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(loop.run_in_executor(slot, _ready) for slot in self._slots))

    async def choose(
        self,
        board: Board | UltimateBoard,
        name: str,
        *,
        seed: int | None = None,
        time_budget: float | None = None,
        max_depth: int | None = None,
        game: int | None = None,
    ) -> int:
        """The move agent ``name`` picks for ``board``, within ``time_budget`` seconds of
        now when one is given (hard and unbeatable on boards too large to solve).
        ``game`` (the game's id) sends the move to the worker that keeps its tree.

        Raises:
            ValueError: unknown agent name. IllegalMove: the game is over.
            TimeoutError: no answer within the think time plus :data:`GRACE`.
        """
        deadline = None if time_budget is None else time.time() + time_budget
        chosen = await self.run(
            _choose_in_worker, board, name, seed, time_budget, deadline, max_depth, game,
            deadline=deadline, game=game,
        )  # fmt: skip
        self.moves_chosen += 1
        self.last_chosen = chosen
        if chosen.kept:
            self.searches_kept += 1
            self.visits_kept += chosen.kept
        return chosen.move

    async def run(
        self, fn: Callable[..., T], *args: Any, deadline: float | None = None,
        game: int | None = None,
    ) -> T:  # fmt: skip
        """``fn(*args)`` in a worker (``fn`` a module-level function of picklable values):
        ``game``'s worker when it is no busier than the others (see the module), else the
        least busy. A worker that died (killed for memory, say) leaves its executor broken
        for every later call: it is replaced once and ``fn`` asked again, within the time
        left before ``deadline`` (plus :data:`GRACE`) when one is given. Not once the pool
        is closing.

        Raises:
            TimeoutError: no answer by the deadline plus :data:`GRACE`.
            BrokenProcessPool: the new worker broke too.
            PoolClosed: the pool was closed, or a worker died while it was closing.
        """
        slot = self._pick(game)
        for attempt in (1, 2):
            if self._closed:
                raise PoolClosed("the engine pool is closed")
            executor = self._slots[slot]
            limit = None if deadline is None else max(MIN_THINK, deadline - time.time()) + GRACE
            try:  # a worker seen broken raises at submit, one that breaks now at the result
                future = asyncio.wrap_future(self._submit(slot, executor, fn, *args))
                return await asyncio.wait_for(future, limit)
            except BrokenProcessPool:
                if not self.closing:
                    await asyncio.sleep(RESTART_PAUSE)
                if self.closing:
                    # The workers died with the process (a stop signal to the whole
                    # group): expected, and a new worker would only be shut down again,
                    # or outlive the close.
                    raise PoolClosed("an engine worker died while the pool was closing") from None
                self._replace(slot, executor)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _pick(self, game: int | None) -> int:
        """The worker for a call: ``game``'s last one if none is idler, else the least
        busy (in turn among equals), which becomes the game's."""
        with self._lock:
            busy = list(self._busy)
        least = min(busy)
        home = None if game is None else self._homes.get(game)
        if home is not None and busy[home] == least:
            slot = home
        else:
            idlest = [i for i, b in enumerate(busy) if b == least]
            slot = idlest[self._turn % len(idlest)]
            self._turn += 1
        if game is not None:
            self._homes[game] = slot
            self._homes.move_to_end(game)
            if len(self._homes) > HOMES:
                self._homes.popitem(last=False)
        return slot

    def _submit(
        self, slot: int, executor: ProcessPoolExecutor, fn: Callable[..., T], *args: Any
    ) -> Future[T]:
        future = executor.submit(fn, *args)
        with self._lock:
            self._busy[slot] += 1

        def done(_: Future[T]) -> None:  # in the executor's thread, or this one
            with self._lock:
                self._busy[slot] -= 1

        future.add_done_callback(done)
        return future

    def _replace(self, slot: int, broken: ProcessPoolExecutor) -> None:
        if self._slots[slot] is broken:  # another move may have replaced it already
            self.restarts += 1
            log.warning("an engine worker died; starting a new one (restart %d)",
                        self.restarts)  # fmt: skip
            self._slots[slot] = self._new_executor()
        broken.shutdown(wait=False, cancel_futures=True)

    def worker_pids(self) -> list[int]:
        """The live workers' process ids (for tests and diagnostics)."""
        return [
            p.pid
            for slot in self._slots
            for p in (getattr(slot, "_processes", None) or {}).values()
            if p.is_alive()
        ]

    def begin_close(self) -> None:
        """The pool is closing: calls still run on the workers it has, but a worker that
        dies from now on is not replaced (see :meth:`run`)."""
        self.closing = True

    def close(self) -> None:
        """Stop the workers once the calls they are running are done; calls still queued
        are cancelled, later ones refused with :class:`PoolClosed`."""
        self.begin_close()
        self._closed = True
        for slot in self._slots:
            slot.shutdown(wait=False, cancel_futures=True)
