"""Ultimate tic-tac-toe's rules, checked against a brute force written plainly below.

The brute force shares no code with the engine: a position is a list of nine lists of
nine characters (small board, then square, both row-major, the engine's documented
numbering ``cell = board * 9 + square``), and every rule is written out from the
statement of the game.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import IllegalMove, InvalidBoard
from engine.ultimate import UltimateBoard, board_square, cell_of, from_rowcol, to_rowcol
from engine.ultimate.fast import Position, perft

# --- the brute force ---------------------------------------------------------------------

THREES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def line_owner(cells: list[str]) -> str | None:
    for a, b, c in THREES:
        if cells[a] != "." and cells[a] == cells[b] == cells[c]:
            return cells[a]
    return None


def small_status(grid: list[list[str]], b: int) -> str | None:
    owner = line_owner(grid[b])
    if owner is not None:
        return owner
    return "draw" if "." not in grid[b] else None


def bf_outcome(grid: list[list[str]]) -> str | None:
    statuses = [small_status(grid, b) for b in range(9)]
    big = [s if s in ("X", "O") else "." for s in statuses]
    owner = line_owner(big)
    if owner is not None:
        return owner
    return "draw" if all(s is not None for s in statuses) else None


def bf_moves(grid: list[list[str]], last: int | None) -> list[int]:
    if bf_outcome(grid) is not None:
        return []
    boards = [b for b in range(9) if small_status(grid, b) is None]
    if last is not None and small_status(grid, last % 9) is None:
        boards = [last % 9]
    return [b * 9 + s for b in boards for s in range(9) if grid[b][s] == "."]


def bf_play(grid: list[list[str]], cell: int, mark: str) -> list[list[str]]:
    new = [row[:] for row in grid]
    new[cell // 9][cell % 9] = mark
    return new


def bf_perft(grid: list[list[str]], last: int | None, mark: str, depth: int) -> int:
    moves = bf_moves(grid, last)
    if depth == 1:
        return len(moves)
    other = "O" if mark == "X" else "X"
    return sum(bf_perft(bf_play(grid, m, mark), m, other, depth - 1) for m in moves)


def grid_of(board: UltimateBoard) -> list[list[str]]:
    return [[board[b * 9 + s] or "." for s in range(9)] for b in range(9)]


def random_game(rng: random.Random) -> list[UltimateBoard]:
    boards = [UltimateBoard.new()]
    while not boards[-1].is_over():
        boards.append(boards[-1].play(rng.choice(boards[-1].legal_moves())))
    return boards


def make(xs: list[int], os: list[int], last: int) -> UltimateBoard:
    return UltimateBoard(sum(1 << c for c in xs), sum(1 << c for c in os), last)


# --- perft and random positions -----------------------------------------------------------


@pytest.mark.parametrize(("depth", "count"), [(1, 81), (2, 720), (3, 6336), (4, 55080)])
def test_perft_from_the_start_matches_the_brute_force(depth: int, count: int) -> None:
    empty = [["."] * 9 for _ in range(9)]
    assert bf_perft(empty, None, "X", depth) == count
    assert perft(Position.of(UltimateBoard.new()), depth) == count


def test_the_board_object_agrees_with_the_brute_force_to_depth_two() -> None:
    start = UltimateBoard.new()
    total = sum(len(start.play(m).legal_moves()) for m in start.legal_moves())
    assert total == 720


def test_random_positions_agree_with_the_brute_force() -> None:
    rng = random.Random(7)
    outcomes = set()
    for _ in range(40):
        for ply, board in enumerate(random_game(rng)):
            grid = grid_of(board)
            assert board.legal_moves() == bf_moves(grid, board.last_move)
            assert board.outcome() == bf_outcome(grid)
            assert board.board_statuses() == tuple(small_status(grid, b) for b in range(9))
            assert sorted(Position.of(board).moves()) == board.legal_moves()
            if ply % 4 == 0 and not board.is_over():
                expected = bf_perft(grid, board.last_move, board.to_move, 2)
                assert perft(Position.of(board), 2) == expected
        outcomes.add(board.outcome())
    assert outcomes == {"X", "O", "draw"}


# --- each rule ----------------------------------------------------------------------------


def test_x_moves_first_anywhere_and_the_square_sends_the_opponent() -> None:
    start = UltimateBoard.new()
    assert start.to_move == "X" and start.legal_moves() == list(range(81))
    assert start.forced_board is None and start.last_move is None
    after = start.play(cell_of(2, 7))
    assert after.to_move == "O" and after.forced_board == 7 and after.last_move == 25
    assert after.legal_moves() == [cell_of(7, s) for s in range(9)]
    with pytest.raises(IllegalMove, match="small board 7"):
        after.play(cell_of(3, 0))


def test_a_forced_board_that_is_full_frees_the_move() -> None:
    drawn = [cell_of(4, s) for s in (0, 2, 3, 7, 8)]
    board = make([*drawn, cell_of(0, 4)], [cell_of(4, s) for s in (1, 4, 5, 6)] + [10], 4)
    assert board.board_status(4) == "draw" and board.to_move == "O"
    assert board.forced_board is None
    assert board.playable_boards() == [0, 1, 2, 3, 5, 6, 7, 8]
    assert board.legal_moves() == bf_moves(grid_of(board), 4)
    assert all(m // 9 != 4 for m in board.legal_moves()) and len(board.legal_moves()) == 70


def test_a_forced_board_that_is_won_frees_the_move_and_takes_no_more_marks() -> None:
    os = [cell_of(4, s) for s in (3, 4, 5)]
    board = make([cell_of(4, 0), cell_of(2, 4), cell_of(6, 0), cell_of(7, 0)], os, cell_of(2, 4))
    assert board.board_status(4) == "O" and board.small_line(4) == [39, 40, 41]
    assert board.forced_board is None and board.to_move == "O"
    assert 4 not in board.playable_boards()
    with pytest.raises(IllegalMove):
        board.play(cell_of(4, 8))  # empty, but its board is won
    assert board.legal_moves() == bf_moves(grid_of(board), board.last_move)


def test_three_small_boards_in_a_row_win_the_game() -> None:
    xs = [cell_of(b, s) for b in (0, 4) for s in (0, 1, 2)] + [cell_of(8, 0), cell_of(8, 1)]
    os = [cell_of(b, s) for b in (1, 2, 5, 6) for s in (3, 5)]
    board = make(xs, [*os[:7], cell_of(3, 8)], cell_of(3, 8))
    assert board.to_move == "X" and board.forced_board == 8 and board.outcome() is None
    won = board.play(cell_of(8, 2))
    assert won.outcome() == "X" and won.is_over() and won.winning_boards() == [0, 4, 8]
    assert won.legal_moves() == [] and won.playable_boards() == [] and won.forced_board is None
    with pytest.raises(IllegalMove, match="over"):
        won.play(cell_of(3, 0))
    assert UltimateBoard.from_string(won.to_string()) == won


def test_a_game_with_every_board_decided_and_no_line_is_a_draw() -> None:
    rng = random.Random(3)
    for _ in range(300):
        final = random_game(rng)[-1]
        if final.outcome() == "draw":
            break
    else:
        pytest.fail("no drawn game in 300 random games")
    statuses = final.board_statuses()
    assert None not in statuses and final.winning_boards() is None
    assert bf_outcome(grid_of(final)) == "draw" and final.legal_moves() == []


def test_a_played_move_is_refused_when_taken_off_the_board_or_not_a_number() -> None:
    board = UltimateBoard.new().play(40)
    for bad in (40, 81, -1, True, "4", 4.0):
        with pytest.raises(IllegalMove):
            board.play(bad)  # type: ignore[arg-type]


# --- numbering and the storage string ---------------------------------------------------


def test_cell_helpers_are_bijections_onto_the_9x9_grid() -> None:
    assert sorted(to_rowcol(c) for c in range(81)) == [(r, c) for r in range(9) for c in range(9)]
    for cell in range(81):
        assert from_rowcol(*to_rowcol(cell)) == cell
        assert cell_of(*board_square(cell)) == cell
    assert to_rowcol(cell_of(4, 4)) == (4, 4) and to_rowcol(cell_of(2, 6)) == (2, 6)
    assert to_rowcol(cell_of(8, 8)) == (8, 8) and from_rowcol(0, 3) == cell_of(1, 0)


def test_the_storage_string_holds_the_cells_and_the_last_move() -> None:
    board = UltimateBoard.new().play(cell_of(0, 4)).play(cell_of(4, 0))
    text = board.to_string()
    assert text == "....X" + "." * 31 + "O" + "." * 44 + ":36"
    assert UltimateBoard.new().to_string() == "." * 81 + ":-"
    assert UltimateBoard.from_string(text).forced_board == 0


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 10_000), max_size=81))
def test_string_round_trips_through_any_game(picks: list[int]) -> None:
    board = UltimateBoard.new()
    for pick in picks:
        moves = board.legal_moves()
        if not moves:
            break
        board = board.play(moves[pick % len(moves)])
        again = UltimateBoard.from_string(board.to_string())
        assert again == board and again.legal_moves() == board.legal_moves()
        assert again.forced_board == board.forced_board
        # play() carries the decided small boards over from the move; the string recounts
        assert again.board_statuses() == board.board_statuses()
        assert again.outcome() == board.outcome()
        assert again.winning_boards() == board.winning_boards()


# --- impossible positions -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("xs", "os", "last", "why"),
    [
        ([0], [0], 0, "share a cell"),
        ([0, 1, 2], [], 2, "counts"),
        ([], [0], 0, "counts"),
        ([0], [], -1, "last move"),
        ([], [], 5, "empty board"),
        ([0, 10], [9], 9, "not a mark"),
        ([0, 1, 2, 20], [3, 4, 5], 20, "both"),
        ([cell_of(4, 0), 0, 9, 18], [cell_of(4, s) for s in (3, 4, 5)], cell_of(4, 0), "decided"),
        (
            [cell_of(b, s) for b in (0, 4, 8) for s in (0, 1, 2)],
            [cell_of(b, 6) for b in (1, 2, 3, 5, 6, 7)] + [cell_of(1, 7), cell_of(2, 7), 52],
            52,
            "won",
        ),
    ],
)
def test_impossible_positions_are_refused(
    xs: list[int], os: list[int], last: int, why: str
) -> None:
    with pytest.raises(InvalidBoard, match=why):
        make(xs, os, last)


@pytest.mark.parametrize(
    "text",
    ["", "." * 81, "." * 80 + ":-", "." * 81 + ":81", "." * 81 + ":x", "." * 80 + "Z:-",
     "." * 81 + ":٣"],
)  # fmt: skip
def test_malformed_strings_are_refused(text: str) -> None:
    with pytest.raises(InvalidBoard):
        UltimateBoard.from_string(text)


def test_out_of_range_marks_are_refused() -> None:
    with pytest.raises(InvalidBoard):
        UltimateBoard(1 << 81, 0, 81)
