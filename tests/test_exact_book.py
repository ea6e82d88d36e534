"""The 5×5 opening book: small, reproducible, right, and it covers every reply."""

from __future__ import annotations

import random

import pytest

from engine import Board, book, exact, get_agent, solve
from engine.book import BOOK_DEPTH, BOOK_PATH, board_of, canonical, entries, replies


def sample(count: int, seed: int) -> list[int]:
    return random.Random(seed).sample(sorted(entries()), count)


def test_the_book_is_there_and_small() -> None:
    assert BOOK_PATH.stat().st_size < 5_000_000
    assert len(entries()) > 1000
    marks = {board_of(key).move_count for key in entries()}
    assert marks == set(range(BOOK_DEPTH + 1))


def test_sampled_entries_agree_with_live_search_and_regenerate_alike() -> None:
    for key in sample(40, seed=15):
        board = board_of(key)
        move, value = entries()[key]
        assert exact.board_value(board) == value, board.to_string()
        assert exact.keeps(board, move, value), board.to_string()
        assert book.choose(key) == (key, move, value), board.to_string()


def test_every_reply_to_a_book_move_leads_back_into_the_book() -> None:
    checked = 0
    for key in sample(200, seed=16):
        move, _ = entries()[key]
        if board_of(key).move_count + 2 <= BOOK_DEPTH:
            found = replies(key, move)
            assert found <= entries().keys(), board_of(key).to_string()
            checked += len(found)
    assert checked > 500


def test_a_lookup_follows_the_board_through_every_symmetry() -> None:
    for key in sample(10, seed=17):
        canon = board_of(key)
        move, _ = entries()[key]
        want = canonical(canon.play(move))[0]
        geo = canon.geometry
        for perm in geo.symmetries:
            turned = Board(5, 4, geo.transform(canon.x, perm), geo.transform(canon.o, perm))
            played = book.lookup(turned)
            assert played is not None
            assert canonical(turned.play(played))[0] == want


@pytest.mark.parametrize("side", ["X", "O"])
def test_the_bot_stays_in_the_book_through_its_depth_whatever_the_opponent_plays(
    side: str,
) -> None:
    rng = random.Random(side)
    for game in range(20):
        bot = get_agent("unbeatable", seed=game)
        board = Board.new(5)
        while board.move_count <= BOOK_DEPTH and not board.is_over():
            if board.to_move == side:
                assert book.lookup(board) is not None, board.to_string()
                board = board.play(bot.choose(board))
            else:
                board = board.play(rng.choice(board.legal_moves()))


def test_boards_the_book_does_not_cover_get_none() -> None:
    assert book.lookup(Board.new(4)) is None
    deep = Board.from_string("XO.XO.XO.XOX" + "." * 13)
    assert deep.move_count > BOOK_DEPTH and book.lookup(deep) is None


def test_solve_answers_book_positions_from_the_book_without_searching() -> None:
    exact.clear_tables()
    tables = exact.exact_tables(Board.new(5).geometry)
    for key in sample(20, seed=17):
        board = board_of(key)
        # any orientation of it: the book is looked up by the canonical key
        turned = Board.from_string("".join(reversed(board.to_string())), k=4)
        assert solve(turned) == entries()[key][1] == solve(board), board.to_string()
    assert tables.nodes == 0  # not one node searched
    past = Board.from_string("XO.OX..X..O...X.....O.X.O", k=4)  # 10 marks
    assert past.move_count > BOOK_DEPTH and solve(past) in (-1, 0, 1)  # past the book
    assert tables.nodes > 0
