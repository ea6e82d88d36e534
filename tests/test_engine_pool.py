"""The engine's process pool under trouble: a worker killed mid-search, the parent
killed outright, and workers that yield the CPU to the event loop."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine import Board, EnginePool, PoolClosed
from engine.pool import NICENESS

ROOT = Path(__file__).resolve().parents[1]


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def niceness(pid: int) -> int:
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[16])


async def test_a_killed_worker_is_replaced_and_the_move_still_answered() -> None:
    pool = EnginePool(workers=1)
    try:
        await pool.warm_up()
        (worker,) = pool.worker_pids()
        assert niceness(worker) == min(19, niceness(os.getpid()) + NICENESS)
        os.kill(worker, signal.SIGKILL)  # as the out-of-memory killer would
        while alive(worker):  # until it is gone (reaped by the pool's manager thread)
            await asyncio.sleep(0.02)
        board = Board.new(5).play(12)
        # a budget only a stuck worker exceeds: the new worker's start is inside it, and
        # on a busy machine that alone takes seconds (the search itself, milliseconds)
        cell = await pool.choose(board, "hard", seed=1, time_budget=60)
        assert cell in board.legal_moves() and pool.restarts == 1
        # and the pool serves the next moves as before
        assert await pool.choose(board.play(cell), "hard", seed=2, time_budget=60) in range(25)
        assert pool.worker_pids() and worker not in pool.worker_pids()
    finally:
        pool.close()


@pytest.mark.parametrize("stop", ["begin_close", "close"])
async def test_workers_dying_while_the_pool_closes_start_no_new_pool(
    stop: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A stop signal sent to the whole process group (systemd's, or Ctrl-C in a terminal)
    kills the workers along with the bot: expected then, so neither replaced nor warned
    about; a call still in flight on them ends with :class:`PoolClosed`."""
    pool = EnginePool(workers=2)
    try:
        await pool.warm_up()
        workers = pool.worker_pids()
        job = asyncio.ensure_future(pool.run(time.sleep, 3.0))  # a search in flight
        await asyncio.sleep(0.2)
        getattr(pool, stop)()
        if stop == "begin_close":  # a pool closing still serves on the workers it has
            assert await pool.run(os.getpid) in workers
        with caplog.at_level(logging.INFO, logger="engine.pool"):
            for worker in workers:
                os.kill(worker, signal.SIGTERM)
            with pytest.raises(PoolClosed):
                await asyncio.wait_for(job, 5)
            with pytest.raises(PoolClosed):  # nor does a call asked later start one
                await pool.run(os.getpid)
        assert pool.restarts == 0
        assert not caplog.records, caplog.text
        deadline = time.monotonic() + 5
        while pool.worker_pids() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert pool.worker_pids() == []
    finally:
        pool.close()


def test_no_worker_outlives_a_killed_parent(tmp_path: Path) -> None:
    script = (
        "import asyncio, sys\n"
        "from engine import EnginePool\n"
        "async def main():\n"
        "    pool = EnginePool(workers=2)\n"
        "    await pool.warm_up()\n"
        "    print(*pool.worker_pids(), flush=True)\n"
        "    await asyncio.sleep(60)\n"  # wait-ok: the parent idles until the test kills it
        "asyncio.run(main())\n"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert parent.stdout is not None
        workers = [int(pid) for pid in parent.stdout.readline().split()]
        assert len(workers) == 2 and all(alive(pid) for pid in workers)
        parent.kill()
        parent.wait(10)
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [pid for pid in workers if alive(pid)], "orphaned engine workers"
    finally:
        if parent.poll() is None:
            parent.kill()


def test_workers_live_when_the_parent_is_pid_1(tmp_path: Path) -> None:
    """The bot as a container runs it: the first process of its PID namespace. Its
    workers were once taken for orphans (their parent "was" init) and exited at start,
    so every move fell back to the quick one in-process."""
    unshare = shutil.which("unshare")
    if unshare is None or os.geteuid() != 0:
        pytest.skip("a PID namespace of its own needs unshare, as root")
    script = (
        "import asyncio, os\n"
        "from engine import EnginePool\n"
        "async def main():\n"
        "    pool = EnginePool(workers=1)\n"
        "    try:\n"
        "        print(os.getpid(), await pool.run(sum, [1, 2]), pool.restarts)\n"
        "    finally:\n"
        "        pool.close()\n"
        "asyncio.run(main())\n"
    )
    done = subprocess.run(
        [unshare, "--pid", "--fork", "--mount-proc", sys.executable, "-c", script],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "3", "0"], done.stderr  # pid 1; answered; no restart
