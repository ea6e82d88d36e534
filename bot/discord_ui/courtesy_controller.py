"""Courtesy in Discord: a correspondence board's Options (more time, a draw) answered
privately, and /ttt block and /ttt unblock. Each asks the core once and shows what it
returns; the board itself is edited as after any change nobody clicked on it for."""

from __future__ import annotations

import discord

from bot.core.lobby import Lobby
from bot.core.service import GameService
from bot.discord_ui import render_courtesy
from bot.discord_ui.custom_ids import CourtesyClick
from bot.discord_ui.publisher import Publisher
from bot.discord_ui.responder import Responder
from bot.discord_ui.turn_pinger import TurnPinger
from bot.i18n import text


class CourtesyController:
    def __init__(
        self, games: GameService, lobby: Lobby, responder: Responder, publisher: Publisher,
        pinger: TurnPinger,
    ) -> None:  # fmt: skip
        self.games = games
        self.lobby = lobby
        self.responder = responder
        self.publisher = publisher
        self.pinger = pinger

    async def on_options(self, interaction: discord.Interaction, game_id: int) -> None:
        """The board's Options: the player's choices, privately (nothing changes yet)."""
        async with self.responder.answering(interaction):
            user_id = interaction.user.id
            choices = await self.games.courtesy_choices(game_id, user_id)
            content, view = render_courtesy.choices_message(choices, user_id, interaction.locale)
            await interaction.response.send_message(content, view=view, ephemeral=True)

    async def on_courtesy(self, interaction: discord.Interaction, click: CourtesyClick) -> None:
        """A choice made: the private message says what was done, the board shows it."""
        async with self.responder.answering(interaction):
            user_id = interaction.user.id
            done = await self.games.courtesy(click.game_id, click.ply, user_id, click.action)
            answer = render_courtesy.done_text(done, user_id, interaction.locale)
            message = interaction.message
            if message is not None and message.flags.ephemeral:  # the choices: replaced
                await interaction.response.edit_message(content=answer, view=None)
            else:
                await interaction.response.send_message(answer, ephemeral=True)
            await self.publisher.publish(done.update)
            if not done.update.game.running:  # a draw agreed: its turn ping goes
                await self.pinger.game_changed(done.update.game)

    async def on_block(self, interaction: discord.Interaction, member: discord.User) -> None:
        async with self.responder.answering(interaction):
            blocked = await self.lobby.block(interaction.user.id, member.id)
            key = "block.done" if blocked else "block.already"
            await self.responder.reply_private(
                interaction, text(key, interaction.locale, member=member.mention)
            )

    async def on_unblock(self, interaction: discord.Interaction, member: discord.User) -> None:
        async with self.responder.answering(interaction):
            lifted = await self.lobby.unblock(interaction.user.id, member.id)
            key = "unblock.done" if lifted else "unblock.none"
            await self.responder.reply_private(
                interaction, text(key, interaction.locale, member=member.mention)
            )
