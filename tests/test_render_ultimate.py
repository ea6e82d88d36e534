"""An ultimate game's text, rendered directly for positions a test game would take long
to reach: a free move says why it is free (the board the last move sent it to is won
or full; nothing before the first move), and the last move is named as the grid shows
it, by its square's place in its small board and that board's."""

from __future__ import annotations

import pytest

from bot.core import rules
from bot.core.models import Game
from bot.discord_ui.render_ultimate import CLASSIC, content
from bot.i18n import text

SENT_TO_A_FULL_BOARD = (
    48, 27, 3, 32, 53, 72, 5, 45, 2, 24, 55, 10, 13, 44, 78, 57, 33, 58, 43, 71, 73, 17, 80,
    74, 23, 50, 49, 37, 16, 65, 22, 40, 36, 0, 7, 68, 46, 15, 62, 76, 38, 25, 21, 28, 11, 77,
    51, 61, 42, 60, 56, 79, 54, 8, 75, 29, 41, 52, 6, 1, 12, 39, 47, 4,
)  # fmt: skip
"""A legal game (a random playout, seed 25) whose last move, 4 (the centre square of the
top-left board, O's), sends X to the centre board, full without a line: a free move."""


def played(moves: tuple[int, ...]) -> Game:
    game = rules.new_game(guild_id=1, channel_id=2, size=9, player_x=11, player_o=22, now=0.0,
                          variant="ultimate")  # fmt: skip
    for cell in moves:
        game = rules.advance(game, cell, 0.0, 60.0)
    return game


def test_a_free_move_after_a_full_board_says_so() -> None:
    game = played(SENT_TO_A_FULL_BOARD)
    board = game.board
    assert game.running and board.forced_board is None and board.board_status(4) == "draw"
    said = content(game, "en", CLASSIC)
    assert ("🟨 Free move for ❌: sent to the **⏺️ centre** board, which is full, so any open"
            " board. Choose a board, then its square.") in said  # fmt: skip
    assert "Last move: ⭕ on the ⏺️ centre square of the **↖️ top left** board." in said


def test_the_first_move_is_free_without_a_reason() -> None:
    said = content(played(()), "en", CLASSIC)
    assert "🟨 Free move for ❌: any open board. Choose a board, then its square." in said
    assert "Last move" not in said and "sent to" not in said


@pytest.mark.parametrize("locale", ["en", "fr", "de", "es", "pt-BR"])
def test_the_reasons_and_the_last_move_in_each_language(locale: str) -> None:
    said = content(played(SENT_TO_A_FULL_BOARD), locale, CLASSIC)
    board = f"⏺️ {text('ultimate.board.4', locale)}"
    assert text("ultimate.free.full", locale, lit="🟨", mark="❌", board=board) in said
    square = f"⏺️ {text('ultimate.square.4', locale)}"
    last = text("ultimate.last", locale, mark="⭕", square=square,
                board=f"↖️ {text('ultimate.board.0', locale)}")  # fmt: skip
    assert last in said
