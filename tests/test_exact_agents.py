"""hard and unbeatable on 5×5: only value-keeping moves, whatever the opponent does."""

from __future__ import annotations

import asyncio
import random

import pytest
from test_exact_reference import adversary_moves

from engine import Board, EnginePool, exact, get_agent, solve


def value_after(board: Board, cell: int) -> int:
    """Exact value, for the side to move on ``board``, of playing ``cell``."""
    after = board.play(cell)
    outcome = after.outcome()
    if outcome is not None:
        return 0 if outcome == "draw" else 1
    return -exact.board_value(after)


@pytest.mark.parametrize("opponent", ["keeping", "random"])
@pytest.mark.parametrize("side", ["X", "O"])
@pytest.mark.parametrize("name", ["hard", "unbeatable"])
def test_5x5_perfect_agents_never_give_up_value(name: str, side: str, opponent: str) -> None:
    rng = random.Random(f"{name}{side}{opponent}")
    for game in range(3):
        bot = get_agent(name, seed=game, time_budget=0.5)
        board = Board.new(5)
        while not board.is_over():
            if board.to_move == side:
                cell = bot.choose(board)
                assert value_after(board, cell) == exact.board_value(board), board.to_string()
            elif opponent == "keeping":
                cell = rng.choice(adversary_moves(board))
            else:
                cell = rng.choice(board.legal_moves())
            board = board.play(cell)
        assert board.outcome() in (side, "draw"), (name, side, board.to_string())


def test_the_empty_5x5_board_is_a_draw() -> None:
    assert solve(Board.new(5)) == 0


def test_solve_reads_finished_5x5_games() -> None:
    won = Board.from_string("XXXX.OOO." + "." * 16)
    assert won.outcome() == "X" and solve(won) == -1


def test_the_pool_answers_5x5_past_the_book_with_a_value_keeping_move() -> None:
    rng = random.Random(9)
    boards = []
    while len(boards) < 4:
        board = Board.new(5)
        while board.move_count < 10 and not board.is_over():
            board = board.play(rng.choice(board.legal_moves()))
        if not board.is_over():
            boards.append(board)

    async def ask() -> list[int]:
        pool = EnginePool(workers=1)
        try:
            # the budget bounds only the wait (the exact search is never cut short), and
            # the first move's includes the worker's start: seconds on a busy machine
            return [await pool.choose(b, "unbeatable", seed=1, time_budget=60) for b in boards]
        finally:
            pool.close()

    for board, cell in zip(boards, asyncio.run(ask()), strict=True):
        assert value_after(board, cell) == exact.board_value(board), board.to_string()
