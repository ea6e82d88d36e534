"""While the bot thinks, as members see it: the member's move is shown first with every
square off, and a click that still arrives then (a square forced on the shown board, or
one on the board from before the move) is told privately that it is the bot's turn,
at once, not that its board is out of date once the reply is in. On 3×3 and ultimate
(and the bot's free move in ultimate, rendered).

The bot's search is held until the test lets it go (``held_search``), so "while it
thinks" is a state the test controls, not a time it hopes for."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

import discord
import pytest
from ultimate_harness import boards, game_id, squares

from bot.core import rules
from bot.core.models import GameUpdate
from bot.discord_ui import custom_ids
from bot.discord_ui.render_common import open_to_moves
from bot.discord_ui.render_game import game_message

from bot_harness import board_of, cell_buttons, cell_id, running_bot, settings_for
from discord_emulator import DiscordEmulator, text_of

BOTS_TURN = "It's not your turn: waiting for the bot (hard)."
BOT = 999


@pytest.fixture
async def bot(emulator: DiscordEmulator, tmp_path):
    # no patience: every reply is shown after the member's move, as a slow search's is
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3", defer_after=0.0)
    async with running_bot(emulator, settings) as bot:
        yield bot


@contextlib.contextmanager
def held_search(bot: Any) -> Iterator[asyncio.Event]:
    """The bot's searches wait for the event (set on leaving) before they start."""
    opponent = bot.games.opponent
    release, search = asyncio.Event(), opponent.move

    async def move(*args: Any, **kwargs: Any) -> int:
        await release.wait()
        return int(await search(*args, **kwargs))

    opponent.move = move
    try:
        yield release
    finally:
        release.set()
        del opponent.move


async def test_a_3x3_board_while_the_bot_thinks(emulator: DiscordEmulator, bot) -> None:
    alice = emulator.create_user("alice")
    res = await emulator.invoke(alice, "ttt start", {"first": "me", "difficulty": "hard"})
    before = res.message
    with held_search(bot) as release:
        res = await emulator.click(alice, before, cell_id(before, 0))
        assert res.type == 7 and "the bot (hard) is thinking" in res.content
        thinking = res.message
        assert board_of(thinking) == "X........"
        assert all(b.get("disabled") for b in cell_buttons(thinking))
        # a square of the shown board (a client that drew it before it was turned off)
        res = await emulator.click(alice, thinking, cell_id(thinking, 4), force=True)
        assert res.ephemeral and res.content == BOTS_TURN
        # a second click on the board from before the move (a double click)
        res = await emulator.click(alice, before, cell_id(before, 8), force=True)
        assert res.ephemeral and res.content == BOTS_TURN
        release.set()
        replied = await emulator.wait_for_message(
            lambda m: m["id"] == before["id"] and board_of(m).count("O") == 1,
            include_existing=True,
        )
    # the member's turn again: the empty squares are on
    empty = [b for b in cell_buttons(replied) if not b.get("emoji")]
    assert len(empty) == 7 and not any(b.get("disabled") for b in empty)
    stored = await bot.repo.get_game(custom_ids.parse(cell_id(replied, 0)).game_id)
    assert stored is not None and len(stored.moves) == 2 and stored.moves[0] == 0


async def test_an_ultimate_board_while_the_bot_thinks(emulator: DiscordEmulator, bot) -> None:
    alice = emulator.create_user("alice")
    res = await emulator.invoke(alice, "ttt start", {"first": "me", "difficulty": "hard",
                                                     "game": "ultimate"})  # fmt: skip
    res = await emulator.click(alice, res.message, boards(res.message)[4]["custom_id"])
    before = res.message  # the centre board's squares, alice's free move
    with held_search(bot) as release:
        res = await emulator.click(alice, before, squares(before)[40]["custom_id"])
        assert res.type == 7 and "the bot (hard) is thinking" in text_of(res.message)
        thinking = res.message  # the bot is sent to the centre: its squares, all off
        assert sorted(squares(thinking)) == list(range(36, 45))
        assert all(b.get("disabled") for b in squares(thinking).values())
        res = await emulator.click(alice, thinking, squares(thinking)[36]["custom_id"],
                                   force=True)  # fmt: skip
        assert res.ephemeral and res.content == BOTS_TURN
        res = await emulator.click(alice, before, squares(before)[44]["custom_id"], force=True)
        assert res.ephemeral and res.content == BOTS_TURN
        release.set()
        replied = await emulator.wait_for_message(
            lambda m: m["id"] == before["id"] and "is thinking" not in text_of(m),
            include_existing=True,
        )
    stored = await bot.repo.get_game(game_id(replied))
    assert stored is not None and len(stored.moves) == 2 and stored.moves[0] == 40
    shown = {**squares(replied), **boards(replied)}
    assert any(not b.get("disabled") for b in shown.values())  # alice's turn: she may play


def test_a_free_move_of_the_bot_shows_its_boards_off() -> None:
    """The bot's free move (here its first, as X), rendered: the nine boards, all off."""
    game = rules.new_game(guild_id=1, channel_id=2, size=9, player_x=BOT, player_o=11,
                          now=0.0, bot_side="X", difficulty="hard", variant="ultimate")  # fmt: skip
    _, layout = game_message(GameUpdate(game), "en")
    shown = [item for item in layout.walk_children() if isinstance(item, discord.ui.Button)]
    nine = [b for b in shown if isinstance(custom_ids.parse(str(b.custom_id)),
                                           custom_ids.BoardClick)]  # fmt: skip
    assert len(nine) == 9 and all(b.disabled for b in nine)
    assert not open_to_moves(game) and open_to_moves(game.with_move(40))
