"""A legacy board's buttons are handed to discord.py as payload (render_common.Drawn): the
same payload discord.py's own Button items encode to, for every look a square has."""

from __future__ import annotations

import discord

from bot.core import rules
from bot.core.models import Game
from bot.core.policy import Marks
from bot.discord_ui.render_classic import cell_button, game_view
from bot.discord_ui.render_common import CLASSIC, action_buttons

CUSTOM = Marks(x="<:ex:1200000000000000001>", o="<a:oh:1200000000000000002>", empty="⬛")


def items_payload(game: Game, marks: Marks, hints: bool, live: bool) -> list[dict]:
    """The rows as discord.ui items would give them (the way game_view built them)."""
    view = discord.ui.View(timeout=None)
    size = game.board.size
    for cell in range(size * size):
        view.add_item(cell_button(game, cell, marks, row=cell // size))
    for button in action_buttons(game, "en", hints=hints, live=live):
        button.row = size
        view.add_item(button)
    return view.to_components()


def games() -> list[Game]:
    running = rules.new_game(guild_id=1, channel_id=2, size=3, now=0.0, player_x=10,
                             player_o=20).with_move(4, updated_at=0.0)  # fmt: skip
    won = running
    for cell in (0, 2, 1, 6, 3, 8, 5):  # O 0, X 2, O 1, X 6: the anti-diagonal 2-4-6 wins
        if not won.running:
            break
        won = rules.advance(won, cell, now=0.0, turn_timeout=60.0)
    assert won.ending is not None and won.ending.reason == "line"
    four = rules.new_game(guild_id=1, channel_id=2, size=4, now=0.0, player_x=10,
                          player_o=20).with_move(5, updated_at=0.0)  # fmt: skip
    return [running, won, four]


def test_the_drawn_rows_are_what_discord_py_items_encode_to() -> None:
    seen_green = False
    for game in games():
        for marks in (CLASSIC, CUSTOM):
            for hints, live in ((False, False), (True, True)):
                drawn = game_view(game, "en", marks, hints=hints, live=live).to_components()
                assert drawn == items_payload(game, marks, hints, live), (game, marks)
                seen_green |= any(c.get("style") == 3 for row in drawn for c in row["components"])
    assert seen_green  # a won game's line was among them
