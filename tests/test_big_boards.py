"""4×4 (four in a row) and 5×5 (four in a row): exact where solvable, budgeted beyond."""

from __future__ import annotations

import random

import pytest

from engine import Board, best_moves, get_agent, solve
from engine.arena import play_game

import reference_solver as ref


def random_positions(size: int, marks: int, count: int, seed: int) -> list[Board]:
    """Running positions with ``marks`` marks, reached by random legal play."""
    rng = random.Random(seed)
    found: list[Board] = []
    while len(found) < count:
        board = Board.new(size)
        while board.move_count < marks and not board.is_over():
            board = board.play(rng.choice(board.legal_moves()))
        if not board.is_over() and board not in found:
            found.append(board)
    return found


def test_the_empty_4x4_board_is_a_draw() -> None:
    assert solve(Board.new(4)) == 0


@pytest.mark.parametrize("marks", [8, 9, 10])
def test_4x4_exact_play_matches_an_independent_exhaustive_solver(marks: int) -> None:
    for board in random_positions(4, marks, 12, seed=marks):
        text = board.to_string()
        assert solve(board) == ref.value(text, 4)[0], text
        assert set(best_moves(board)) == ref.best_cells(text, 4), text


@pytest.mark.parametrize("name", ["hard", "unbeatable"])
def test_4x4_perfect_agents_only_play_value_keeping_moves(name: str) -> None:
    agent = get_agent(name, seed=1)
    for board in random_positions(4, 9, 10, seed=42):
        text = board.to_string()
        value = ref.value(text, 4)[0]
        for cell in agent.candidates(board):
            assert ref.child_value(text, cell, 4)[0] == value, (text, cell)


def _immediate(board: Board) -> tuple[int, int]:
    """(mover's winning cells, opponent's winning cells) as masks, found by the reference
    solver's own line check on the board's text (no engine code)."""
    text, k = board.to_string(), board.k
    me = ref.to_move(text)
    them = "O" if me == "X" else "X"
    mine = theirs = 0
    for cell, ch in enumerate(text):
        if ch != ".":
            continue
        if ref.winner(text[:cell] + me + text[cell + 1 :], k) == me:
            mine |= 1 << cell
        if ref.winner(text[:cell] + them + text[cell + 1 :], k) == them:
            theirs |= 1 << cell
    return mine, theirs


@pytest.mark.parametrize("name", ["hard", "unbeatable"])
def test_5x5_never_misses_a_win_nor_an_open_block(name: str) -> None:
    agent = get_agent(name, seed=1, time_budget=0.05)
    wins = blocks = 0
    for board in random_positions(5, 9, 400, seed=5):
        mine, theirs = _immediate(board)
        if not mine and not theirs:
            continue
        picks = set(agent.candidates(board))
        if mine:
            assert all(mine >> c & 1 for c in picks), board.to_string()
            wins += 1
        elif theirs and theirs & (theirs - 1) == 0:
            assert picks == {theirs.bit_length() - 1}, board.to_string()
            blocks += 1
    assert wins > 20 and blocks > 20  # the sample really exercised both rules


@pytest.mark.parametrize("size", [4, 5])
@pytest.mark.parametrize("hero", ["hard", "unbeatable"])
@pytest.mark.parametrize("villain", ["easy", "medium"])
def test_perfect_agents_never_lose_to_easy_or_medium(size: int, hero: str, villain: str) -> None:
    for game in range(4):
        ours = get_agent(hero, seed=game, time_budget=0.15)
        theirs = get_agent(villain, seed=100 + game)
        x, o, mark = (ours, theirs, "X") if game % 2 == 0 else (theirs, ours, "O")
        outcome, moves = play_game(x, o, Board.new(size))
        assert outcome in (mark, "draw"), (size, hero, villain, moves)
