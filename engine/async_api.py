"""The engine's async entry point: the same ``choose`` call, off the event loop, with a budget."""

from __future__ import annotations

import asyncio
from concurrent.futures import Executor, ThreadPoolExecutor

from engine.agents import Agent, get_agent
from engine.board import Board

DEFAULT_TIME_BUDGET = 2.0
"""Seconds a move may take before the caller gets a TimeoutError."""

_executor: ThreadPoolExecutor | None = None


def _default_executor() -> Executor:
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ttt-engine")
    return _executor


async def choose_move_async(
    board: Board,
    agent: Agent | str,
    *,
    seed: int | None = None,
    time_budget: float | None = DEFAULT_TIME_BUDGET,
    executor: Executor | None = None,
) -> int:
    """Choose a move for the side to move without blocking the event loop for long.

    ``agent`` is an Agent or a name for :func:`engine.get_agent` (then ``seed`` seeds it).
    One-ply agents (random, easy) answer inline; searching agents run in ``executor``
    (default: one engine thread, so searches queue instead of fighting over the GIL).

    Raises:
        ValueError: unknown agent name. IllegalMove: the game is over.
        TimeoutError: the move took longer than ``time_budget`` seconds (the search
            finishes in the background and its tables stay warm for the next call).
    """
    if isinstance(agent, str):
        agent = get_agent(agent, seed=seed)
    if agent.inline:
        return agent.choose(board)
    loop = asyncio.get_running_loop()
    future = loop.run_in_executor(executor or _default_executor(), agent.choose, board)
    return await asyncio.wait_for(future, time_budget)
