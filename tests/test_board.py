from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import Board, IllegalMove, InvalidBoard, from_rowcol, to_rowcol
from engine.geometry import geometry


def test_new_board_is_empty_with_x_to_move() -> None:
    board = Board.new()
    assert (board.size, board.k) == (3, 3)
    assert board.to_string() == "........."
    assert board.to_move == "X"
    assert board.legal_moves() == list(range(9))
    assert board.outcome() is None


def test_default_k_by_size() -> None:
    assert Board.new(4).k == 4
    assert Board.new(5).k == 4
    assert Board.new(5, k=5).k == 5


def test_play_returns_a_new_board_and_alternates() -> None:
    empty = Board.new()
    after = empty.play(4)
    assert empty.to_string() == "........."
    assert after.to_string() == "....X...."
    assert after.to_move == "O"
    assert after.play(0).to_string() == "O...X...."


@pytest.mark.parametrize(
    ("text", "cell", "message"),
    [
        ("X........", 0, "already taken"),
        (".........", 9, "off the board"),
        (".........", -1, "off the board"),
        ("XXXOO....", 5, "game is over"),
    ],
)
def test_illegal_moves_raise(text: str, cell: int, message: str) -> None:
    with pytest.raises(IllegalMove, match=message):
        Board.from_string(text).play(cell)


def test_illegal_move_is_a_value_error_and_rejects_non_ints() -> None:
    assert issubclass(IllegalMove, ValueError)
    with pytest.raises(IllegalMove):
        Board.new().play("4")  # type: ignore[arg-type]
    with pytest.raises(IllegalMove):
        Board.new().play(True)
    assert Board.new().play(np.int64(4)).to_string() == "....X...."


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("X.O.....", "square number"),
        ("X.O......X", "square number"),
        ("X.O...a..", "unexpected characters"),
        ("XX.......", "impossible counts"),
        ("O........", "impossible counts"),
        ("XXXOOO...", "both X and O"),
        ("XXXOO.O..", "O moved after"),
        ("OOOXX.XX.", "X moved after"),
    ],
)
def test_invalid_boards_raise_value_error_saying_why(text: str, message: str) -> None:
    with pytest.raises(InvalidBoard, match=message) as info:
        Board.from_string(text)
    assert isinstance(info.value, ValueError)


def test_bad_size_or_k_is_rejected() -> None:
    with pytest.raises(ValueError, match="k"):
        Board.new(3, k=4)
    with pytest.raises(ValueError, match="size"):
        Board.new(9)


def test_outcomes_and_winning_line_on_the_anti_diagonal() -> None:
    board = Board.from_string("XXO.O.O.X")
    assert board.outcome() == "O"
    assert board.winning_line() == [2, 4, 6]
    assert board.legal_moves() == []
    draw = Board.from_string("XOXXOOOXX")
    assert draw.outcome() == "draw"
    assert draw.winning_line() is None


@pytest.mark.parametrize(("size", "k"), [(3, 3), (4, 4), (5, 4)])
def test_every_window_wins_and_only_windows_win(size: int, k: int) -> None:
    geo = geometry(size, k)
    # rows: size-k+1 per row, same for columns; diagonals (size-k+1)^2 each way
    expected = 2 * size * (size - k + 1) + 2 * (size - k + 1) ** 2
    assert len(geo.windows) == expected
    for window in geo.windows:
        cells = [c for c in range(size * size) if window >> c & 1]
        assert len(cells) == k
        assert geo.has_win(window)
        for left_out in cells:  # k-1 of the window is never a win by itself
            assert not geo.has_win(window & ~(1 << left_out))


def test_k_marks_in_a_row_but_not_consecutive_do_not_win() -> None:
    geo = geometry(5, 4)
    row = sum(1 << c for c in (0, 1, 2, 4))  # X X X . X
    assert not geo.has_win(row)
    assert geo.has_win(sum(1 << c for c in (1, 2, 3, 4)))


def test_rowcol_helpers_round_trip() -> None:
    for size in (3, 4, 5):
        for cell in range(size * size):
            assert from_rowcol(*to_rowcol(cell, size), size) == cell
    assert to_rowcol(5, 3) == (1, 2)


def test_numpy_round_trip_uses_the_seeds_encoding() -> None:
    board = Board.from_string("X.O.X...O")
    grid = board.to_numpy()
    assert grid.tolist() == [[1, 0, 2], [0, 1, 0], [0, 0, 2]]
    assert Board.from_numpy(grid) == board
    assert Board.from_numpy(grid.reshape(9)) == board


def test_numpy_errors() -> None:
    with pytest.raises(InvalidBoard, match="0 \\(empty\\), 1 \\(X\\) or 2 \\(O\\)"):
        Board.from_numpy(np.array([[3, 0, 0], [0, 0, 0], [0, 0, 0]]))
    with pytest.raises(InvalidBoard, match="square"):
        Board.from_numpy(np.zeros((2, 3)))


@given(st.lists(st.integers(0, 15), max_size=16), st.sampled_from([(3, 3), (4, 4)]))
def test_random_games_round_trip_through_string_and_numpy(moves: list[int], shape) -> None:
    size, k = shape
    board = Board.new(size, k)
    for move in moves:
        if move in board.legal_moves():
            board = board.play(move)
    assert Board.from_string(board.to_string(), k=k) == board
    assert Board.from_numpy(board.to_numpy(), k=k) == board
    assert board.x & board.o == 0
