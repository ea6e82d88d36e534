"""The bounded proof search: known distances, and every answer checked against a search
that shares nothing with it (the naive string solver of tests/reference_solver.py on
3×3, a brute-force bounded search over the public board interface elsewhere)."""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Board, UltimateBoard, search, solve
from engine.puzzles import (
    NotAWin,
    Verdict,
    distance,
    judge,
    longest_defence,
    main_line,
    move_wins,
    reply,
    winning_moves,
)

from reference_solver import child_value
from reference_solver import value as reference_value

PuzzleBoard = Board | UltimateBoard


@cache
def brute_wins(board: PuzzleBoard, n: int) -> bool:
    """The side to move wins within ``n`` of its moves: every move and every reply
    tried, through legal_moves, play and outcome alone."""
    me = board.to_move
    for move in board.legal_moves():
        after = board.play(move)
        if after.outcome() == me:
            return True
        if n >= 2 and not after.is_over() and brute_defended(after, n - 1):
            return True
    return False


@cache
def brute_defended(board: PuzzleBoard, n: int) -> bool:
    for reply_ in board.legal_moves():
        after = board.play(reply_)
        if after.is_over() or not brute_wins(after, n):
            return False
    return True


def brute_distance(board: PuzzleBoard, limit: int) -> int | None:
    return next((n for n in range(1, limit + 1) if brute_wins(board, n)), None)


def reference_distance(board: Board) -> int | None:
    """3×3: the independent solver's fastest win, in the solver's own moves."""
    result, plies = reference_value(board.to_string())
    return (plies + 1) // 2 if result > 0 else None


def random_position(rng: random.Random, start: PuzzleBoard, marks: int) -> PuzzleBoard:
    board = start
    while board.move_count < marks and not board.is_over():
        board = board.play(rng.choice(board.legal_moves()))
    return board


# --- known positions --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("position", "n", "winners"),
    [
        # X X . / O O . / . . . : X completes the top row at 2.
        ("XX.OO....", 1, [2]),
        # X . . / O . O / X . . : the centre blocks O's row and opens two lines for X (2
        # and 8); the other forks (2: lines through 1 and 4; 8: through 7 and 4) let O
        # block at the centre, which completes O's row.
        ("X..O.OX..", 2, [4]),
        # X O . / . X . / . . O : 3 (threats 5 and 6) and 6 (threats 2 and 3) both fork;
        # 2 makes one threat only (6), the top row and the diagonal being O's.
        ("XO..X...O", 2, [3, 6]),
        # O . . / . . X / . . . : X 2 threatens 8, O's block threatens 4 (0-4-8), X takes
        # 4 and now threatens 3 and 6 at once: three moves, and only 2 starts it.
        ("O....X...", 3, [2]),
        # X . . / . O . / . . X with O to move, and the empty board: no forced win at all.
        ("X...O...X", None, []),
        (".........", None, []),
    ],
)
def test_known_3x3_distances(position: str, n: int | None, winners: list[int]) -> None:
    board = Board.from_string(position)
    assert distance(board, 5) == n
    if n is not None:
        assert winning_moves(board, n) == winners
        assert distance(board, n - 1) is None
    if position == "O....X...":
        assert main_line(board, 3) == [2, 8, 4, 3, 6]


def test_known_4x4_distance() -> None:
    # . . . X / . X O O / . . . O / . X O X  (X to move; rows top to bottom).
    # X 1 threatens 9 (the column 1-5-9-13); after O blocks, X 0 threatens 2 (the top
    # row) and 10 (the diagonal 0-5-10-15) at once. No move wins sooner, no other in 3.
    board = Board.from_string("...X.XOO...O.XOX")
    assert board.to_move == "X"
    assert distance(board, 6) == 3
    assert winning_moves(board, 3) == [1]
    assert main_line(board, 3) == [1, 9, 0, 2, 10]
    assert distance(board, 6) == brute_distance(board, 3)
    empty = 16 - board.move_count  # the depth-aware search scores 1 + cells left after
    assert (empty - search.score(board) + 2) // 2 == 3


def test_known_ultimate_distance() -> None:
    # O holds small boards 0 and 8, so small board 4 gives it the diagonal. In board 4
    # O threatens squares 0 (its left column) and 8 (its bottom row). O must play in
    # board 3: only square 4 (cell 31) sends X to board 4, where X can block one threat
    # only; X's block sends O to board 0 or 8, both decided, so O moves freely and takes
    # board 4 and the game with the other.
    board = UltimateBoard.from_string(
        "...OOO...X...X........X..O.X.......X.OXOXOOO.....X...XX...X......OX...XX.O..O..O.:66"
    )
    assert board.to_move == "O" and board.forced_board == 3
    assert board.board_status(0) == board.board_status(8) == "O"
    assert distance(board, 3) == 2 == brute_distance(board, 3)
    assert winning_moves(board, 2) == [31]
    assert main_line(board, 2) in ([31, 36, 44], [31, 44, 36])


# --- against independent solvers --------------------------------------------------------


moves_3x3 = st.lists(st.integers(0, 8), max_size=9, unique=True)


def position_from(cells: list[int], size: int = 3) -> Board:
    board = Board.new(size)
    for cell in cells:
        if board.is_over():
            break
        board = board.play(cell)
    return board


@settings(max_examples=300, deadline=None)
@given(moves_3x3)
def test_3x3_distance_is_the_fastest_forced_win(cells: list[int]) -> None:
    board = position_from(cells)
    d = distance(board, 5)
    assert d == (None if board.is_over() else reference_distance(board))
    if d is None:
        return
    assert solve(board) == 1  # the exact solver agrees it is a win at all
    fastest = {
        c for c, (result, plies) in
        ((c, child_value(board.to_string(), c)) for c in board.legal_moves())
        if result > 0 and (plies + 1) // 2 <= d
    }  # fmt: skip
    assert set(winning_moves(board, d)) == fastest
    assert winning_moves(board, d - 1) == []


@settings(max_examples=150, deadline=None)
@given(moves_3x3)
def test_3x3_longest_defence_puts_the_loss_off_longest(cells: list[int]) -> None:
    board = position_from(cells)
    d = None if board.is_over() else distance(board, 5)
    if d is None or d < 2:
        return
    after = board.play(winning_moves(board, d)[0])
    chosen, left = longest_defence(after, d - 1)
    assert left == d - 1
    lengths = {r: reference_distance(after.play(r)) for r in after.legal_moves()}
    assert lengths[chosen] == max(v or 0 for v in lengths.values()) == d - 1
    line = main_line(board, d)
    assert len(line) == 2 * d - 1 and line[0] in winning_moves(board, d)
    final = board
    for cell in line:
        final = final.play(cell)
    assert final.outcome() == board.to_move


@pytest.mark.parametrize(("size", "marks"), [(4, 8), (4, 10), (5, 15), (5, 17)])
def test_big_board_distances_match_brute_force(size: int, marks: int) -> None:
    rng = random.Random(size * 100 + marks)
    checked = 0
    while checked < 12:
        board = random_position(rng, Board.new(size), marks)
        if board.is_over():
            continue
        limit = 3 if 25 - marks > 8 else 4
        assert distance(board, limit) == brute_distance(board, limit), board.to_string()
        checked += 1


def test_4x4_distances_match_the_depth_aware_search() -> None:
    rng = random.Random(44)
    for _ in range(40):
        board = random_position(rng, Board.new(4), rng.randint(5, 12))
        if board.is_over():
            continue
        score = search.score(board)
        empty = 16 - board.move_count
        expected = (empty - score + 2) // 2 if score > 0 else None
        assert distance(board, 8) == expected, board.to_string()


@pytest.mark.parametrize("limit", [2, 3])
def test_ultimate_distances_match_brute_force(limit: int) -> None:
    rng = random.Random(limit)
    checked = wins = 0
    while checked < 25:
        board = random_position(rng, UltimateBoard.new(), rng.randint(30, 60))
        if board.is_over() or (limit == 3 and len(board.legal_moves()) > 9):
            continue
        d = distance(board, limit)
        assert d == brute_distance(board, limit), board.to_string()
        checked += 1
        wins += d is not None
    assert wins  # the sample holds wins, not only "no win"


# --- playing a puzzle -------------------------------------------------------------------


def test_judge_tells_right_slow_and_wrong() -> None:
    board = Board.from_string("X..O.OX..")  # win in 2, only the centre
    assert judge(board, 4, 2) is Verdict.RIGHT
    assert judge(board, 4, 1) is Verdict.SLOW  # it wins, but not in 1
    assert judge(board, 2, 2) is Verdict.WRONG  # O takes the centre and the row
    assert reply(board.play(2), 1) == 4  # the refutation: O's win on the spot
    after = board.play(4)
    assert reply(after, 1) in (2, 8)
    assert move_wins(board, 4, 2) and not move_wins(board, 8, 2)


def test_longest_defence_ties_go_to_the_fewest_winning_moves_then_the_lowest_cell() -> None:
    # X O . / X X . / . . O after X 3: X threatens 5 and 6, so every reply of O loses on
    # the spot. Blocking 5 or 6 leaves X one winning move, anything else two: O blocks
    # at 5, the lower of the two blocks.
    after = Board.from_string("XO..X...O").play(3)
    assert longest_defence(after, 1) == (5, 1)
    assert reply(after, 1) == 5


def test_longest_defence_refuses_a_position_that_is_no_win() -> None:
    with pytest.raises(NotAWin):
        longest_defence(Board.from_string("X........"), 3)
    with pytest.raises(NotAWin):
        main_line(Board.new(), 4)
