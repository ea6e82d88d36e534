"""Agent-against-agent matches, and the seeds' 'Stats' table."""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.agents import Agent, get_agent
from engine.board import Board, Outcome


@dataclass(frozen=True, slots=True)
class ArenaResult:
    x: str
    o: str
    games: int
    x_wins: int
    o_wins: int
    draws: int

    def format(self) -> str:
        """The seeds' Stats table, with the agents named."""
        title = f"Stats: {self.x} (X) vs {self.o} (O)"
        line = (
            f"Total Games:{self.games:<5} X wins:{self.x_wins:<5} "
            f"O wins:{self.o_wins:<5} Draws:{self.draws:<5}"
        )
        return f"{title:^{len(line)}}\n{'-' * len(line)}\n{line}"


def play_game(x: Agent, o: Agent, board: Board) -> tuple[Outcome, list[int]]:
    """Play one game from ``board`` to the end; return the outcome and the moves."""
    moves = []
    while (outcome := board.outcome()) is None:
        cell = (x if board.to_move == "X" else o).choose(board)
        board = board.play(cell)
        moves.append(cell)
    return outcome, moves


def run_arena(
    x: str,
    o: str,
    games: int,
    seed: int | None = None,
    size: int = 3,
    k: int | None = None,
    think: float | None = None,
) -> ArenaResult:
    """Play ``games`` games of agent ``x`` (as X) against agent ``o`` (as O); ``think`` is
    hard's and unbeatable's think time on boards too large to solve.

    Raises:
        ValueError: unknown agent name, bad board size, or a negative game count.
    """
    if games < 0:
        raise ValueError(f"the number of games cannot be negative, got {games}")
    seeds = random.Random(seed)
    x_agent = get_agent(x, seed=seeds.getrandbits(64), time_budget=think)
    o_agent = get_agent(o, seed=seeds.getrandbits(64), time_budget=think)
    start = Board.new(size, k)
    tally = {"X": 0, "O": 0, "draw": 0}
    for _ in range(games):
        outcome, _ = play_game(x_agent, o_agent, start)
        tally[outcome] += 1
    return ArenaResult(x, o, games, tally["X"], tally["O"], tally["draw"])
