from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import pytest

from engine import Board, IllegalMove, choose_move_async
from engine.__main__ import main
from engine.agents import Agent


async def test_async_move_is_legal_for_every_agent() -> None:
    board = Board.from_string("X...O....")
    for name in ("random", "easy", "medium", "hard", "unbeatable"):
        move = await choose_move_async(board, name, seed=1)
        assert move in board.legal_moves()


async def test_async_takes_an_agent_object_and_is_reproducible() -> None:
    from engine import get_agent

    runs = [
        [await choose_move_async(Board.new(), agent) for _ in range(10)]
        for agent in (get_agent("random", seed=5), get_agent("random", seed=5))
    ]
    assert runs[0] == runs[1]
    assert len(set(runs[0])) > 1


class SlowAgent(Agent):
    name = "slow"

    def candidates(self, board: Board) -> list[int]:
        time.sleep(0.3)
        return board.legal_moves()


async def test_searches_run_off_the_event_loop() -> None:
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    move = await choose_move_async(Board.new(), SlowAgent(seed=1))
    task.cancel()
    assert move in range(9)
    assert ticks >= 10  # the loop kept ticking while the agent slept 0.3 s in the executor


async def test_time_budget_raises_timeout() -> None:
    with pytest.raises(TimeoutError):
        await choose_move_async(Board.new(), SlowAgent(seed=1), time_budget=0.05, grace=0)


async def test_async_errors() -> None:
    with pytest.raises(ValueError, match="unknown agent"):
        await choose_move_async(Board.new(), "grandmaster")
    with pytest.raises(IllegalMove):
        await choose_move_async(Board.from_string("XXXOO...."), "hard")


def test_arena_cli_prints_the_stats_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["arena", "--x", "unbeatable", "--o", "random", "--games", "100", "--seed", "1"]) == 0
    )
    out = capsys.readouterr().out
    assert "Total Games:100" in out
    line = next(row for row in out.splitlines() if row.startswith("Total Games"))
    numbers = [int(part.split(":")[1]) for part in line.split("  ") if ":" in part]
    total, x_wins, o_wins, draws = numbers
    assert total == x_wins + o_wins + draws == 100
    assert o_wins == 0


def test_cli_rejects_bad_input_in_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "engine", "arena", "--games", "-1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.strip() == "error: the number of games cannot be negative, got -1"
    assert "Traceback" not in result.stderr
