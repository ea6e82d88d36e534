"""Whole games through the emulator: what a member sees and clicks."""

from __future__ import annotations

import pytest

from engine import Board

from bot_harness import board_of, cell_id, running_bot, settings_for, with_marks
from discord_emulator import DiscordEmulator, buttons, find_button


@pytest.fixture
async def bot(emulator: DiscordEmulator, tmp_path):
    async with running_bot(emulator, settings_for(emulator, tmp_path / "ttt.sqlite3")) as bot:
        yield bot


async def test_start_against_the_bot_shows_a_board(emulator: DiscordEmulator, bot) -> None:
    alice = emulator.create_user("alice")
    res = await emulator.invoke(alice, "ttt start", {"difficulty": "hard", "first": "me"})
    assert res.type == 4 and not res.ephemeral
    rows = buttons(res.message)
    assert [len(r) for r in rows] == [3, 3, 3, 2]  # Resign and Hint
    assert board_of(res.message) == "........."
    assert f"<@{alice.id}>" in res.content and "⬜⬜⬜" in res.content
    assert find_button(res.message, label="Resign") is not None


async def test_a_whole_game_against_unbeatable_never_wins_for_the_member(
    emulator: DiscordEmulator, transport: str, bot
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


async def play_out(emulator: DiscordEmulator, user, message: dict) -> tuple[Board, dict]:
    """Click the first empty square until the game ends; return the final board."""
    while not (board := Board.from_string(board_of(message))).is_over():
        res = await emulator.click(user, message, cell_id(message, board.legal_moves()[0]))
        assert res.type == 7 and not res.ephemeral, res.content
        message = res.message
    return board, message


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard", "unbeatable"])
async def test_every_difficulty_plays_a_whole_game(
    emulator: DiscordEmulator, bot, difficulty: str
) -> None:
    alice = emulator.create_user("alice")
    res = await emulator.invoke(alice, "ttt start", {"difficulty": difficulty, "first": "opponent"})
    # the bot moved first: one mark on the board already
    assert Board.from_string(board_of(res.message)).move_count == 1
    assert f"the bot ({difficulty})" in res.content
    board, message = await play_out(emulator, alice, res.message)
    if difficulty in ("hard", "unbeatable"):
        assert board.outcome() in ("X", "draw")  # the bot plays X here and never loses
    status = message["content"].splitlines()[-1]
    assert ("wins" in status) or ("Draw" in status)


async def test_winning_line_is_highlighted(emulator: DiscordEmulator, bot) -> None:
    alice = emulator.create_user("alice")
    res = await emulator.invoke(alice, "ttt start", {"difficulty": "unbeatable", "first": "me"})
    board, message = await play_out(emulator, alice, res.message)
    cells = [b for row in buttons(message)[:3] for b in row]
    green = [i for i, b in enumerate(cells) if b["style"] == 3]
    if board.outcome() == "draw":
        assert green == []
    else:
        assert green == board.winning_line()


async def test_rematch_against_the_bot_swaps_sides(emulator: DiscordEmulator, bot) -> None:
    alice = emulator.create_user("alice")
    res = await emulator.invoke(alice, "ttt start", {"difficulty": "hard", "first": "me"})
    _, message = await play_out(emulator, alice, res.message)
    rematch = find_button(message, label="Rematch")
    res = await emulator.click(alice, message, rematch["custom_id"])
    assert res.type == 4 and res.message["id"] != message["id"]
    # alice was X; now the bot is X and has already moved
    assert res.content.startswith("❌ the bot (hard)")
    assert Board.from_string(board_of(res.message)).move_count == 1


async def test_help_states_the_default_difficulty(emulator: DiscordEmulator, bot) -> None:
    alice = emulator.create_user("alice")
    res = await emulator.invoke(alice, "ttt help")
    assert res.ephemeral
    assert "default difficulty is **medium**" in res.content
    for name in ("easy", "medium", "hard", "unbeatable"):
        assert name in res.content


async def test_resign_button_ends_the_game_as_a_loss(emulator: DiscordEmulator, bot) -> None:
    alice = emulator.create_user("alice")
    res = await emulator.invoke(alice, "ttt start", {"first": "me"})
    res = await emulator.click(
        alice, res.message, find_button(res.message, label="Resign")["custom_id"]
    )
    assert res.type == 7
    assert f"<@{alice.id}> resigned" in res.content
    assert find_button(res.message, label="Rematch") is not None
    assert all(b.get("disabled") for row in buttons(res.message)[:3] for b in row)


@pytest.mark.parametrize(("size", "rows"), [(4, [4, 4, 4, 4, 2]), (5, [5, 5, 5, 5, 5, 2])])
async def test_bigger_boards(emulator: DiscordEmulator, bot, size: int, rows: list[int]) -> None:
    alice = emulator.create_user("alice")
    res = await emulator.invoke(
        alice, "ttt start", {"size": size, "difficulty": "easy", "first": "me"}
    )
    assert [len(r) for r in buttons(res.message)] == rows
    assert find_button(res.message, label="Resign") is not None
    assert res.text.count("⬜") == size * size  # in the content, or a 5×5 layout's text
    res = await emulator.click(alice, res.message, cell_id(res.message, 0))
    assert res.type == 7 and board_of(res.message)[0] == "X"
    # the reply is searched in a worker: in this answer, or edited in when it comes
    shown = await with_marks(emulator, res.message, 2)
    assert Board.from_string(board_of(shown), k=4).move_count == 2


async def test_a_5x5_move_against_hard_goes_through_the_process_pool(
    emulator: DiscordEmulator, tmp_path
) -> None:
    # a think time that only a stuck worker exceeds: past it the bot plays a quick move
    # itself, and a busy machine's worker may take seconds just to start
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3", think_time=60)
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings) as bot:
        res = await emulator.invoke(
            alice, "ttt start", {"size": 5, "difficulty": "hard", "first": "me"}
        )
        message = res.message
        res = await emulator.click(alice, message, cell_id(message, 12))
        assert res.type == 7
        # the member's move may come first, then the reply
        board = Board.from_string(board_of(await with_marks(emulator, message, 2)), k=4)
        assert board.move_count == 2 and board[12] == "X"
        assert bot.pool is not None and bot.pool.moves_chosen == 1
