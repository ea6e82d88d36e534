"""Reminder DMs of the boards drawn as components-v2 layouts (5×5 and ultimate): the DM
is the game's layout (IS_COMPONENTS_V2, as the game's own message) with the reminder's
line above the board's text and its squares playable, without the game's actions;
ultimate's free move is chosen on the DM as on the game's message (a small board, its
squares, Back); a click plays through the same service and the game's message shows
the move; a stale click is redrawn and refused. The games' clock is the test's; the
emulator checks every request against Discord's spec."""

from __future__ import annotations

import pytest
from ultimate_harness import game_id, play, ply, squares, wait_for_ply

from bot.core.models import DAY
from bot.discord_ui.custom_ids import ReminderBoardClick, ReminderCellClick

from bot_harness import board_of, cell_id, running_bot, settings_for
from correspondence_harness import (
    MovableClock,
    correspondence_board,
    dm_board,
    dm_cells,
    dm_clicks,
    next_dm,
    stamp,
)
from discord_emulator import IS_COMPONENTS_V2, DiscordEmulator, buttons, text_of

STALE = "That board is out of date"


@pytest.fixture
def clock() -> MovableClock:
    return MovableClock()


@pytest.fixture
async def bot(emulator: DiscordEmulator, tmp_path, clock: MovableClock):
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3", dm_per_minute=600)
    async with running_bot(emulator, settings, game_clock=clock) as bot:
        yield bot


def layout_dm(dm: dict) -> str:
    """A DM drawn as a layout: its text (no content beside it, as Discord requires)."""
    assert dm["flags"] & IS_COMPONENTS_V2 and not dm["content"], dm
    return text_of(dm)


def dm_boards(dm: dict) -> dict[int | None, dict]:
    """A reminder's small boards (``ttt:ru``) by board, and Back (``ttt:rb``) as None."""
    return {c.board: b for c, b in dm_clicks(dm) if isinstance(c, ReminderBoardClick)}


async def test_a_five_by_five_reminder_is_its_layout_and_a_square_plays(
    emulator, transport, bot, clock
) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    await emulator.invoke(bob, "ttt notify", {"mode": "every"})
    board = await correspondence_board(emulator, alice, bob, size=5)
    board = (await emulator.click(alice, board, cell_id(board, 12))).message
    dm = await next_dm(emulator, bob)
    said = layout_dm(dm)
    assert said.startswith(f"Your move against <@{alice.id}>, due {stamp(clock() + DAY)}")
    assert f"/{emulator.channel.id}/{board['id']}" in said  # the jump link
    assert "⬜⬜❌⬜⬜" in said  # the board's own text, for clients that show text only
    assert dm_board(dm) == "." * 12 + "X" + "." * 12
    assert [len(row) for row in buttons(dm)] == [5] * 5  # the squares alone: no Resign,
    assert all(isinstance(c, ReminderCellClick) for c, _ in dm_clicks(dm))  # no Options

    res = await emulator.click(bob, dm, dm_cells(dm)[0]["custom_id"])
    assert res.type == 7 and buttons(res.message) == []  # alice's move now: to read only
    assert "⭕⬜⬜⬜⬜\n" in layout_dm(res.message)
    payload = emulator.interactions[res.id].payload
    assert payload["context"] == 1 and "member" not in payload  # clicked in the DM
    expected = "O" + "." * 11 + "X" + "." * 12
    shown = await emulator.wait_for_message(
        lambda m: m["id"] == board["id"] and board_of(m) == expected, include_existing=True
    )
    assert f"<@{alice.id}> to move" in text_of(shown)  # the channel's board, as after a click
    stored = await bot.repo.get_game(int(cell_id(board, 0).split(":")[2]))
    assert stored is not None and stored.moves == (12, 0)
    assert emulator.violations == []


async def test_an_ultimate_reminder_chooses_its_small_board_and_plays(emulator, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    for member in (alice, bob):
        await emulator.invoke(member, "ttt notify", {"mode": "every"})
    message = await correspondence_board(emulator, alice, bob, game="ultimate")
    game = game_id(message)
    dm = await next_dm(emulator, alice)  # the first move: free, as on the game's message
    assert layout_dm(dm).startswith(f"Your move against <@{bob.id}>")
    assert sorted(dm_boards(dm)) == list(range(9)) and dm_cells(dm) == []

    res = await emulator.click(alice, dm, dm_boards(dm)[4]["custom_id"])
    assert res.type == 7 and not res.ephemeral  # the DM shows that board: nothing stored
    cells = [c.cell for c, _ in dm_clicks(res.message) if isinstance(c, ReminderCellClick)]
    assert cells == list(range(36, 45)) and list(dm_boards(res.message)) == [None]  # Back
    res = await emulator.click(alice, res.message, dm_boards(res.message)[None]["custom_id"])
    assert sorted(dm_boards(res.message)) == list(range(9))
    res = await emulator.click(alice, res.message, dm_boards(res.message)[4]["custom_id"])
    assert ply(emulator.message(message["id"])) == 0  # looking changed nothing
    square = next(b for c, b in dm_clicks(res.message) if c == ReminderCellClick(game, 0, 40))
    res = await emulator.click(alice, res.message, square["custom_id"])
    assert res.type == 7 and buttons(res.message) == []
    shown = await wait_for_ply(emulator, message, 1)
    assert sorted(squares(shown)) == list(range(36, 45))  # bob is sent to the centre board

    dm = await next_dm(emulator, bob)  # his move: forced, so the board's squares at once
    assert dm_board(dm) == "....X...." and dm_boards(dm) == {}
    res = await emulator.click(bob, dm, dm_cells(dm)[0]["custom_id"])  # square 36
    assert res.type == 7 and buttons(res.message) == []
    shown = await wait_for_ply(emulator, message, 2)
    assert sorted(squares(shown)) == list(range(0, 9))  # alice is sent to the top left
    stored = await bot.repo.get_game(game)
    assert stored is not None and stored.moves == (40, 36)
    assert emulator.violations == []


async def refused_after_redraw(emulator: DiscordEmulator, res) -> str:
    """The private refusal that follows a stale click's redrawn DM."""
    await res.wait_for_edit()
    (told,) = res.followups
    assert emulator.is_ephemeral(told["id"])
    return str(told["content"])


async def test_a_stale_layout_dm_click_is_redrawn_and_changes_nothing(emulator, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    for member in (alice, bob):
        await emulator.invoke(member, "ttt notify", {"mode": "every"})
    board = await correspondence_board(emulator, alice, bob, size=5)
    free = await next_dm(emulator, alice)  # alice's first move, on a 5×5 board
    board = (await emulator.click(alice, board, cell_id(board, 12))).message  # from the channel
    res = await emulator.click(alice, free, dm_cells(free)[0]["custom_id"])
    assert res.type == 7 and buttons(res.message) == []  # bob's move: nothing to click
    assert "⬜⬜❌⬜⬜" in layout_dm(res.message)  # as it stands
    assert STALE in await refused_after_redraw(emulator, res)
    dm = await next_dm(emulator, bob)
    board = (await emulator.click(bob, board, cell_id(board, 24))).message
    res = await emulator.click(bob, dm, dm_cells(dm)[0]["custom_id"])
    assert res.type == 7 and buttons(res.message) == []
    assert "⬜⬜⬜⬜⭕" in layout_dm(res.message)
    assert STALE in await refused_after_redraw(emulator, res)
    stored = await bot.repo.get_game(int(cell_id(board, 0).split(":")[2]))
    assert stored is not None and stored.moves == (12, 24)  # nothing played from the DMs
    await next_dm(emulator, alice, 2)  # her turn again on the 5×5 board

    message = await correspondence_board(emulator, alice, bob, game="ultimate")
    free = await next_dm(emulator, alice, 3)  # a free move: its small boards
    await play(emulator, alice, message, 40)  # played from the channel meanwhile
    res = await emulator.click(alice, free, dm_boards(free)[0]["custom_id"])
    assert res.type == 7 and buttons(res.message) == []
    assert STALE in await refused_after_redraw(emulator, res)
    assert ply(emulator.message(message["id"])) == 1
    assert emulator.violations == []
