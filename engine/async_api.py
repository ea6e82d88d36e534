"""The engine's async entry point: the same ``choose`` call, off the event loop, with a budget."""

from __future__ import annotations

import asyncio
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any

from engine.agents import DEFAULT_THINK_TIME, Agent, get_agent
from engine.board import Board
from engine.ultimate.agents import UltimateAgent
from engine.ultimate.board import UltimateBoard

GRACE = 1.0
"""Seconds past the think time before a move counts as overdue (scheduling, IPC)."""

_executor: ThreadPoolExecutor | None = None


def _default_executor() -> Executor:
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ttt-engine")
    return _executor


async def choose_move_async(
    board: Board | UltimateBoard,
    agent: Agent | UltimateAgent | str,
    *,
    seed: int | None = None,
    time_budget: float = DEFAULT_THINK_TIME,
    executor: Executor | None = None,
    grace: float = GRACE,
) -> int:
    """Choose a move for the side to move without blocking the event loop for long.

    ``agent`` is an Agent or a name for :func:`engine.get_agent` (then ``seed`` seeds it,
    ``time_budget`` is its think time on boards too large to solve, and the board's
    variant says which game's agent it is). One-ply agents
    (random, easy) answer inline; searching agents run in ``executor`` (default: one
    engine thread, so searches queue instead of fighting over the GIL; see
    :class:`engine.EnginePool` for processes).

    Raises:
        ValueError: unknown agent name. IllegalMove: the game is over.
        TimeoutError: no move after ``time_budget + grace`` seconds (the search finishes
            in the background and its tables stay warm for the next call).
    """
    player: Any = agent  # made for the board's game (either variant)
    if isinstance(agent, str):
        player = get_agent(agent, seed=seed, time_budget=time_budget, variant=board.variant)
    if player.inline:
        return int(player.choose(board))
    loop = asyncio.get_running_loop()
    future = loop.run_in_executor(executor or _default_executor(), player.choose, board)
    return await asyncio.wait_for(future, time_budget + grace)
