"""Hints, without Discord: the squares are the engine's exact best, checked against the
independent solvers on every reachable 3×3 position and on sampled 4×4 and 5×5 ones,
and each square's reason is what it does on the board, worked out here from scratch."""

from __future__ import annotations

import random

import pytest

from bot.core.hints import Hint, Square, hint_for
from bot.core.models import Game
from bot.discord_ui.render_hint import hint_text
from bot.i18n import text as text_of
from engine import Board, book, get_agent

import exact_reference
import reference_solver as ref


def hint_of(text: str) -> Hint:
    board = Board.from_string(text)
    return hint_for(board.size, board.k, board.x, board.o)


def completes(text: str, mark: str, cell: int, k: int) -> bool:
    """Whether ``mark`` on ``cell`` makes a line, by the reference's own lines."""
    return ref.winner(text[:cell] + mark + text[cell + 1 :], k) == mark


def expected_reason(text: str, cell: int, k: int) -> str:
    me = ref.to_move(text)
    them = "O" if me == "X" else "X"
    if completes(text, me, cell, k):
        return "win"
    if completes(text, them, cell, k):
        return "block"
    after = text[:cell] + me + text[cell + 1 :]
    threats = [c for c, ch in enumerate(after) if ch == "." and completes(after, me, c, k)]
    return "fork" if len(threats) >= 2 else "value"


def reachable_3x3() -> list[str]:
    """Every running 3×3 position a game can reach, X or O to move."""
    seen, frontier = {"." * 9}, ["." * 9]
    while frontier:
        text = frontier.pop()
        if ref.winner(text, 3) or "." not in text:
            continue
        for cell, ch in enumerate(text):
            if ch == ".":
                child = text[:cell] + ref.to_move(text) + text[cell + 1 :]
                if child not in seen:
                    seen.add(child)
                    frontier.append(child)
    return sorted(t for t in seen if not ref.winner(t, 3) and "." in t)


def test_every_3x3_hint_is_the_reference_best_and_says_why() -> None:
    positions = reachable_3x3()
    assert len(positions) == 4520  # 5478 legal positions less the 958 finished ones
    reasons_seen = set()
    for text in positions:
        hint = hint_of(text)
        options = {
            c: ref.child_value(text, c, 3) for c, ch in enumerate(text) if ch == "."
        }  # fmt: skip
        best = max(options.values(), key=ref.preference)
        assert hint.mark == ref.to_move(text), text
        assert hint.value == ref.value(text, 3)[0], text
        # the fastest win, else every draw, else the slowest loss: never a square that
        # gives away any of the game's value
        assert set(hint.cells()) == {c for c, v in options.items() if v == best}, text
        for square in hint.squares:
            assert square.reason == expected_reason(text, square.cell, 3), (text, square)
            reasons_seen.add(square.reason)
    assert reasons_seen == {"win", "block", "fork", "value"}


def sampled(size: int, count: int, seed: int, marks: range) -> list[Board]:
    rng = random.Random(seed)
    found: list[Board] = []
    while len(found) < count:
        board, target = Board.new(size), rng.choice(marks)
        while board.move_count < target and not board.is_over():
            board = board.play(rng.choice(board.legal_moves()))
        if not board.is_over() and board not in found:
            found.append(board)
    return found


@pytest.mark.parametrize("seed", range(3))
def test_sampled_4x4_hints_keep_the_game_value(seed: int) -> None:
    for board in sampled(4, 12, seed, range(1, 11)):
        text = board.to_string()
        value, keeping = exact_reference.Solver(4, 4).keeping(text)
        hint = hint_of(text)
        assert hint.value == value, text
        assert hint.cells() and set(hint.cells()) <= keeping, text
        for square in hint.squares:
            assert square.reason == expected_reason(text, square.cell, 4), (text, square)


def book_positions(count: int, seed: int) -> list[Board]:
    """5×5 positions with the member to move against unbeatable inside its opening book
    (random member moves), where the hint reads every reply's value from the book."""
    rng = random.Random(seed)
    found: list[Board] = []
    while len(found) < count:
        bot = get_agent("unbeatable", seed=rng.getrandbits(32))
        bot_side, board = rng.choice("XO"), Board.new(5)
        target = rng.choice((5, 6, 7))
        while board.move_count < target and not board.is_over():
            if board.to_move == bot_side:
                board = board.play(bot.choose(board))
            else:
                board = board.play(rng.choice(board.legal_moves()))
        if board.to_move != bot_side and not board.is_over():
            found.append(board)
    return found


def test_5x5_hints_from_the_book_match_the_reference() -> None:
    for board in book_positions(4, seed=5):
        assert all(book.value(board.play(c)) is not None for c in board.legal_moves())
        text = board.to_string()
        value, keeping = exact_reference.Solver().keeping(text)
        hint = hint_of(text)
        assert (hint.value, set(hint.cells())) == (value, keeping), text


def test_a_5x5_hint_past_the_book_is_searched() -> None:
    text = "......X.XO.XOX..O........"  # O to move; X threatens a double threat
    board = Board.from_string(text)
    assert any(book.value(board.play(c)) is None for c in board.legal_moves())
    value, keeping = exact_reference.Solver().keeping(text)
    hint = hint_of(text)
    assert hint.value == value
    assert hint.cells() and set(hint.cells()) <= keeping
    if hint.complete:
        assert set(hint.cells()) == keeping


def test_a_finished_game_has_no_hint() -> None:
    with pytest.raises(ValueError, match="finished"):
        hint_of("XXXOO....")


def test_a_hint_that_ran_out_of_time_says_other_squares_may_be_as_good() -> None:
    game = Game(1, 1, 1, None, 5, 4, 10, 0, "O", "easy", (12,), None, 0.0, 0.0)
    partial = Hint("O", 0, (Square(6, "value"),), complete=False)
    whole = Hint("O", 0, (Square(6, "value"),))
    assert text_of("hint.partial", None) in hint_text(game, partial)
    assert text_of("hint.partial", None) not in hint_text(game, whole)
