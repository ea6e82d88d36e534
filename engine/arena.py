"""Agent-against-agent matches, and the seeds' 'Stats' table."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from engine.agents import Agent, get_agent, start_board
from engine.board import Board, Outcome
from engine.ultimate.agents import UltimateAgent
from engine.ultimate.board import UltimateBoard


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


def play_game(
    x: Agent | UltimateAgent, o: Agent | UltimateAgent, board: Board | UltimateBoard
) -> tuple[Outcome, list[int]]:
    """Play one game from ``board`` to the end (agents of its variant); return the
    outcome and the moves."""
    moves = []
    game: Any = board  # either game: the agents were made for it
    while (outcome := game.outcome()) is None:
        player: Any = x if game.to_move == "X" else o
        cell = player.choose(game)
        game = game.play(cell)
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
    variant: str = "classic",
) -> ArenaResult:
    """Play ``games`` games of agent ``x`` (as X) against agent ``o`` (as O) at
    ``variant``; ``think`` is hard's and unbeatable's think time on boards too large to
    solve (and at ultimate).

    Raises:
        ValueError: unknown agent name, bad board size, or a negative game count.
    """
    if games < 0:
        raise ValueError(f"the number of games cannot be negative, got {games}")
    seeds = random.Random(seed)
    x_agent = get_agent(x, seed=seeds.getrandbits(64), time_budget=think, variant=variant)
    o_agent = get_agent(o, seed=seeds.getrandbits(64), time_budget=think, variant=variant)
    start = start_board(variant, size, k)
    tally = {"X": 0, "O": 0, "draw": 0}
    for _ in range(games):
        outcome, _ = play_game(x_agent, o_agent, start)
        tally[outcome] += 1
    return ArenaResult(x, o, games, tally["X"], tally["O"], tally["draw"])
