"""Ultimate's free move in Discord: the member to move looks into a small board (its
squares and a Back button replace the nine boards on the message), and a square or a
board the message does not offer gets the move's own private refusal. Nothing here is
stored: the board chosen lives in the buttons' custom_ids only, so a restart keeps it."""

from __future__ import annotations

import discord

from bot.core.service import GameService
from bot.discord_ui import render_game
from bot.discord_ui.custom_ids import BoardClick, CellClick
from bot.discord_ui.responder import NO_MENTIONS, Responder, public_locale
from bot.discord_ui.update_answer import clicked_board, update_message


class BoardChoiceController:
    def __init__(self, games: GameService, responder: Responder) -> None:
        self.games = games
        self.responder = responder

    async def on_board(self, interaction: discord.Interaction, click: BoardClick) -> None:
        """A small board chosen (or Back): the message shows its squares (or the boards)."""
        async with self.responder.answering(interaction):
            update = await self.games.choose_board(
                click.game_id, click.ply, click.board, interaction.user.id,
                clicked_board(interaction),
            )  # fmt: skip
            locale = update.game.locale or public_locale(interaction)
            await update_message(
                interaction,
                **render_game.game_message(update, locale)._asdict(),
                allowed_mentions=NO_MENTIONS,
            )

    async def on_unshown_cell(self, interaction: discord.Interaction, click: CellClick) -> None:
        """A square the message does not show (a forged click): privately, why not."""
        async with self.responder.answering(interaction):
            raise await self.games.refuse_move(
                click.game_id, click.ply, click.cell, interaction.user.id
            )

    async def on_unshown_board(self, interaction: discord.Interaction, click: BoardClick) -> None:
        """A board choice the message does not show (a forged click): privately, why not."""
        async with self.responder.answering(interaction):
            raise await self.games.refuse_board_choice(
                click.game_id, click.ply, click.board, interaction.user.id
            )
