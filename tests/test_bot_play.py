"""Whole games through the emulator: what a member sees and clicks."""

from __future__ import annotations

import pytest

from bot_harness import running_bot, settings_for
from discord_emulator import DiscordEmulator, buttons, find_button
from engine import Board


def board_of(message: dict) -> str:
    """Read the board back from the buttons a member sees."""
    cells = [b for row in buttons(message) for b in row if b["custom_id"].startswith("ttt:c:")]
    marks = {"❌": "X", "⭕": "O"}
    return "".join(marks.get((b.get("emoji") or {}).get("name"), ".") for b in cells)


def cell_id(message: dict, cell: int) -> str:
    cells = [b for row in buttons(message) for b in row if b["custom_id"].startswith("ttt:c:")]
    return cells[cell]["custom_id"]


@pytest.fixture
async def bot(emulator: DiscordEmulator, tmp_path):
    async with running_bot(emulator, settings_for(emulator, tmp_path / "ttt.sqlite3")) as bot:
        yield bot


async def test_start_against_the_bot_shows_a_board(emulator: DiscordEmulator, bot) -> None:
    alice = emulator.create_user("alice")
    res = await emulator.invoke(alice, "ttt start", {"difficulty": "hard", "first": "me"})
    assert res.type == 4 and not res.ephemeral
    rows = buttons(res.message)
    assert [len(r) for r in rows] == [3, 3, 3, 1]
    assert board_of(res.message) == "........."
    assert f"<@{alice.id}>" in res.content and "⬜⬜⬜" in res.content
    assert find_button(res.message, label="Resign") is not None


async def test_a_whole_game_against_unbeatable_never_wins_for_the_member(
    emulator: DiscordEmulator, bot
) -> None:
    alice = emulator.create_user("alice")
    res = await emulator.invoke(alice, "ttt start", {"difficulty": "unbeatable", "first": "me"})
    message = res.message
    while True:
        board = Board.from_string(board_of(message))
        if board.is_over():
            break
        cell = board.legal_moves()[0]
        res = await emulator.click(alice, message, cell_id(message, cell))
        assert res.type == 7, res.content
        message = res.message
        after = Board.from_string(board_of(message))
        # one update shows the member's move and the bot's reply together
        assert after.move_count in (board.move_count + 2, 9) or after.is_over()
    assert board.outcome() in ("O", "draw")
    assert all(b.get("disabled") for row in buttons(message)[:3] for b in row)
    assert find_button(message, label="Rematch") is not None
