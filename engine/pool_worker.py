"""What runs inside an engine worker (:mod:`engine.pool`): the agents it keeps warm, and
the search trees it keeps for the games whose moves it is sent.

An agent that keeps its tree between moves (ultimate's unbeatable) gets an agent of its
own for each game, so two games searched on one worker do not throw each other's tree
away; the pool sends a game's moves to the worker that searched its last one. The kept
trees are bounded (:data:`KEPT_GAMES`, :data:`KEPT_NODES`), the least recently searched
game's dropped first, and a game's tree is dropped at once when the worker's own move
ends the game. A game that ends otherwise (the member's winning move, a resignation, a
timeout) is not told to the worker: its tree waits for eviction, which the bounds make
cheap, rather than every way a game can end (in any process) calling into the pool.
"""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from engine.agents import Agent, get_agent
from engine.board import Board
from engine.ultimate.agents import UltimateAgent
from engine.ultimate.board import UltimateBoard

MIN_THINK = 0.05
"""Seconds a late move still gets: enough for the win/block rules and a shallow search."""

KEPT_GAMES = 8
"""Games whose search tree a worker keeps at most."""
KEPT_NODES = 4_000_000
"""Nodes a worker's kept trees hold at most between moves (counted as their root visits,
a bound on their nodes): 160 MB at the compiled tree's 40 bytes a node. One tree after a
2 s move on a quiet machine holds about a million."""

AgentKey = tuple[str, str, int | None]
_agents: dict[AgentKey, Agent | UltimateAgent] = {}
_games: OrderedDict[tuple[int, str, int | None], UltimateAgent] = OrderedDict()
"""The agents kept for one game each, least recently searched first."""


@dataclass(frozen=True)
class Chosen:
    """A worker's answer: the move, the worker's process id, and the visits the search
    started from (a kept tree's; 0 for a new tree or an agent that keeps none)."""

    move: int
    pid: int
    kept: int = 0


def _agent(board: Board | UltimateBoard, name: str, max_depth: int | None) -> Agent | UltimateAgent:
    key = (board.variant, name, max_depth)
    agent = _agents.get(key)
    if agent is None:
        agent = _agents[key] = get_agent(name, max_depth=max_depth, variant=board.variant)
    return agent


def _game_agent(
    board: Board | UltimateBoard, name: str, max_depth: int | None, game: int | None
) -> tuple[Agent | UltimateAgent, tuple[int, str, int | None] | None]:
    """The agent to search ``game``'s move with, and its key among the kept games (None:
    the worker's shared agent, for an agent that keeps no tree or a move of no game)."""
    agent = _agent(board, name, max_depth)
    if game is None or not getattr(agent, "keep_tree", False):
        return agent, None
    key = (game, name, max_depth)
    kept = _games.pop(key, None)
    if kept is None:
        made = get_agent(name, max_depth=max_depth, variant=board.variant)
        assert isinstance(made, UltimateAgent)  # only ultimate's agents keep a tree
        kept = made
    _games[key] = kept  # the most recently searched, last
    return kept, key


def _evict(current: tuple[int, str, int | None]) -> None:
    """Drop the least recently searched games' trees until the bounds hold (``current``,
    the game just searched, last of all)."""

    def nodes() -> int:
        return sum(getattr(agent, "kept_visits", 0) for agent in _games.values())

    while len(_games) > 1 and (len(_games) > KEPT_GAMES or nodes() > KEPT_NODES):
        del _games[next(iter(_games))]  # never ``current``: it is last, and one is kept


def choose(
    board: Board | UltimateBoard, name: str, seed: int | None, time_budget: float | None,
    deadline: float | None, max_depth: int | None, game: int | None = None,
) -> Chosen:  # fmt: skip
    """Agent ``name``'s move for ``board``, searched until ``deadline`` (a ``time.time``)
    at the latest; ``game`` identifies the game, so its tree is kept for its next move.

    Raises:
        ValueError: unknown agent name. IllegalMove: the game is over.
    """
    agent, key = _game_agent(board, name, max_depth, game)
    if time_budget is not None and hasattr(agent, "time_budget"):
        left = time_budget if deadline is None else deadline - time.time()
        agent.time_budget = max(MIN_THINK, min(time_budget, left))
    agent.rng.seed(seed)
    position: Any = board  # the agent was made for the board's variant
    move = int(agent.choose(position))
    if key is not None:
        if position.play(move).is_over():  # the game is over: its tree is of no more use
            del _games[key]
        else:
            _evict(key)
    return Chosen(move, os.getpid(), getattr(agent, "last_kept", 0))


def kept_games() -> list[int]:
    """The games whose tree this worker keeps, least recently searched first."""
    return [game for game, _, _ in _games]
