"""ttt's engine: an exact N×N, k-in-a-row tic-tac-toe library with a ladder of opponents.

Pure Python (numpy only for grid interop); nothing here knows about Discord or databases.

>>> from engine import Board, get_agent, solve
>>> solve(Board.new())
0
"""

from __future__ import annotations

from engine.agents import LADDER, Agent, get_agent
from engine.async_api import choose_move_async
from engine.board import Board, IllegalMove, InvalidBoard, Outcome
from engine.geometry import from_rowcol, to_rowcol
from engine.pool import EnginePool, PoolClosed
from engine.solver import best_moves, solve
from engine.ultimate import UltimateBoard

__all__ = [
    "LADDER",
    "Agent",
    "Board",
    "EnginePool",
    "IllegalMove",
    "InvalidBoard",
    "Outcome",
    "PoolClosed",
    "UltimateBoard",
    "best_moves",
    "choose_move_async",
    "from_rowcol",
    "get_agent",
    "solve",
    "to_rowcol",
]
