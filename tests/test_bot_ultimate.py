"""Ultimate tic-tac-toe in chat, through the emulator: the board message (the 81 squares
as text, the buttons of the board to play), games won and drawn, the free move in two
clicks, forged and stale clicks refused privately with nothing changed, a restart."""

from __future__ import annotations

import pytest
from ultimate_harness import (
    DRAW,
    boards,
    button_id,
    game_id,
    play,
    ply,
    replay,
    squares,
)  # fmt: skip

from bot.discord_ui import custom_ids
from engine import UltimateBoard

from bot_harness import running_bot, settings_for
from discord_emulator import IS_COMPONENTS_V2, DiscordEmulator, text_of

X_WINS = (4, 42, 58, 38, 18, 1, 15, 56, 24, 54, 0, 2, 21, 31, 41, 45, 8, 74, 13, 40, 11)
"""As in test_core_ultimate: X wins across the top row of the big grid after 21 moves."""


@pytest.fixture
async def bot(emulator: DiscordEmulator, tmp_path):
    async with running_bot(emulator, settings_for(emulator, tmp_path / "ttt.sqlite3")) as bot:
        yield bot


async def ultimate_duel(emu: DiscordEmulator, alice, bob, channel=None) -> dict:
    """alice challenges bob to ultimate (alice is X); bob accepts: the board message."""
    res = await emu.invoke(alice, "ttt start", {"opponent": bob, "first": "me",
                                                "game": "ultimate"}, channel)  # fmt: skip
    assert res.type == 4 and "ultimate tic-tac-toe" in res.content.lower(), res.content
    res = await emu.click(bob, res.message, button_id(res.message, custom_ids.AcceptClick))
    assert res.type == 7, res.content
    return res.message


async def play_game(emu: DiscordEmulator, x, o, message: dict, moves: tuple[int, ...]) -> dict:
    """Play ``moves`` alternately as x and o, checking after each that the message shows
    the squares of the board the next player is sent to (or the boards, on a free move)."""
    board = UltimateBoard.new()
    for cell in moves:
        res = await play(emu, x if board.to_move == "X" else o, message, cell)
        assert res.type == 7 and not res.ephemeral, res.content
        board = board.play(cell)
        message = res.message
        assert ply(message) == board.move_count
        if board.forced_board is not None:
            assert sorted(squares(message)) == [board.forced_board * 9 + s for s in range(9)]
        else:
            assert sorted(boards(message)) == list(range(9)) and not squares(message)
    return message


async def test_a_game_won_across_the_top_row(emulator: DiscordEmulator, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    message = await ultimate_duel(emulator, alice, bob)
    assert int(message["flags"]) & IS_COMPONENTS_V2
    text = text_of(message)
    grid = text.splitlines()[1:12]
    assert grid[3] == grid[7] == ""  # the rows of small boards set apart
    assert all(len(row.split(" ")) == 3 for i, row in enumerate(grid) if i not in (3, 7))
    assert "".join(grid).count("🟨") == 81  # every square may be played: the first move is free
    assert "Free move for ❌" in text
    final = await play_game(emulator, alice, bob, message, X_WINS)
    text = text_of(final)
    assert f"**<@{alice.id}> wins** with three boards in a row! (❌)" in text
    shown = boards(final)
    assert [b for b, button in shown.items() if button["style"] == 3] == [0, 1, 2]
    assert all(button.get("disabled") for button in shown.values())
    stored = await bot.repo.get_game(game_id(final))
    assert stored is not None and stored.moves == X_WINS and stored.ending.winner == "X"


async def test_a_drawn_game(emulator: DiscordEmulator, bot) -> None:
    board = replay(DRAW)  # the engine checks the data: legal, and a draw
    assert board.outcome() == "draw" and board.winning_boards() is None
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    message = await ultimate_duel(emulator, alice, bob)
    final = await play_game(emulator, alice, bob, message, DRAW)
    assert "**Draw.** Nobody wins." in text_of(final)
    stored = await bot.repo.get_game(game_id(final))
    assert stored is not None and stored.ending.reason == "draw"


async def test_a_free_move_takes_two_clicks_and_back(emulator: DiscordEmulator, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    message = await ultimate_duel(emulator, alice, bob)
    game = game_id(message)
    assert sorted(boards(message)) == list(range(9))
    # only the member to move chooses a board: anyone else is told privately
    res = await emulator.click(bob, message, boards(message)[4]["custom_id"])
    assert res.ephemeral and res.content.startswith("It's not your turn")
    res = await emulator.click(alice, message, boards(message)[4]["custom_id"])
    assert res.type == 7
    chosen = res.message
    assert sorted(squares(chosen)) == list(range(36, 45))
    assert "looks at the **⏺️ centre** board" in text_of(chosen)
    # nothing is stored by looking
    stored = await bot.repo.get_game(game)
    assert stored is not None and stored.moves == ()
    # Back shows the boards again; then another board, and its square
    res = await emulator.click(alice, chosen, custom_ids.back(game, 0))
    assert res.type == 7 and sorted(boards(res.message)) == list(range(9))
    res = await play(emulator, alice, res.message, 8)  # board 0, bottom-right square
    assert res.type == 7
    stored = await bot.repo.get_game(game)
    assert stored is not None and stored.moves == (8,)
    assert sorted(squares(res.message)) == list(range(72, 81))  # sent to the bottom right
    assert "⭕ plays in the **↘️ bottom right** board." in text_of(res.message)
