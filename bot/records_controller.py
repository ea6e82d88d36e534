"""Answers /ttt stats, leaderboard, history, review and forget-me (and their buttons).

Everything here is private to the member who asked except the leaderboard, which a
member usually wants to show; it answers in the channel, without pinging anyone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord

from bot import custom_ids, render_records
from bot.components import ForgetButton
from bot.review import review, reviewable
from bot.service import Refusal
from bot.stats import player_stats
from bot.texts import text

if TYPE_CHECKING:
    from bot.client import TTTBot

LEADERBOARD_SIZE = 10
BOT_BOARD_SIZE = 5
HISTORY_SIZE = 10
CHAMPION_LEVELS = ("unbeatable", "hard")
NO_MENTIONS = discord.AllowedMentions.none()


class RecordsController:
    def __init__(self, bot: TTTBot) -> None:
        self.bot = bot

    @property
    def repo(self):
        return self.bot.repo

    async def _colour(self, interaction: discord.Interaction) -> int:
        return (await self.bot.service.policy(interaction.guild_id)).embed_colour

    def _answering(self, interaction: discord.Interaction):
        return self.bot.controller.answering(interaction)

    async def on_stats(self, interaction: discord.Interaction, member: discord.abc.User | None):
        async with self._answering(interaction):
            user = member or interaction.user
            if self.bot.user is not None and user.id == self.bot.user.id:
                raise Refusal("stats.me")
            games = await self.repo.finished_games_of(interaction.guild_id or 0, user.id)
            if not games:
                raise Refusal("stats.none", name=user.mention)
            embed = render_records.stats_embed(
                user.mention, player_stats(games, user.id), interaction.locale,
                await self._colour(interaction),
            )  # fmt: skip
            await interaction.response.send_message(
                embed=embed, ephemeral=True, allowed_mentions=NO_MENTIONS
            )

    async def on_leaderboard(self, interaction: discord.Interaction) -> None:
        async with self._answering(interaction):
            self.bot.controller.require_channel_permissions(interaction)
            guild = interaction.guild_id or 0
            top = await self.repo.leaderboard(guild, LEADERBOARD_SIZE)
            mine = await self.repo.rank_of(guild, interaction.user.id)
            against_bot = {
                level: await self.repo.best_against_bot(guild, level, BOT_BOARD_SIZE)
                for level in CHAMPION_LEVELS
            }
            embed = render_records.leaderboard_embed(
                top, mine, against_bot, interaction.guild_locale, await self._colour(interaction)
            )
            await interaction.response.send_message(embed=embed, allowed_mentions=NO_MENTIONS)

    async def on_history(self, interaction: discord.Interaction, member: discord.abc.User | None):
        async with self._answering(interaction):
            user = member or interaction.user
            games = await self.repo.finished_games_of(
                interaction.guild_id or 0, user.id, limit=HISTORY_SIZE
            )
            if not games:
                raise Refusal("history.none", name=user.mention)
            embed = render_records.history_embed(
                user.mention, user.id, games, interaction.locale, await self._colour(interaction)
            )
            await interaction.response.send_message(
                embed=embed, ephemeral=True, allowed_mentions=NO_MENTIONS
            )

    async def on_review(self, interaction: discord.Interaction, game_id: int | None = None):
        """The Review button (any finished game) or /ttt review (the caller's last game)."""
        async with self._answering(interaction):
            if game_id is None:
                games = await self.repo.finished_games_of(
                    interaction.guild_id or 0, interaction.user.id, limit=1
                )
                if not games:
                    raise Refusal("review.none")
                game = games[0]
            else:
                game = await self.repo.get_game(game_id)
                if game is None:
                    raise Refusal("game.unknown")
            if game.running:
                raise Refusal("review.running")
            if not reviewable(game):
                raise Refusal("review.too_big")
            content = render_records.review_text(game, review(game), interaction.locale)
            await interaction.response.send_message(
                content, ephemeral=True, allowed_mentions=NO_MENTIONS
            )

    async def on_forget(self, interaction: discord.Interaction) -> None:
        user_id = interaction.user.id
        view = discord.ui.View(timeout=None)
        for confirmed, style in ((True, discord.ButtonStyle.danger),
                                 (False, discord.ButtonStyle.secondary)):  # fmt: skip
            label = text(
                "button.forget_yes" if confirmed else "button.forget_no", interaction.locale
            )
            button = discord.ui.Button(
                custom_id=custom_ids.forget(user_id, confirmed), label=label, style=style
            )
            view.add_item(ForgetButton(user_id, confirmed, button))
        await interaction.response.send_message(
            text("forget.ask", interaction.locale), view=view, ephemeral=True
        )

    async def on_forget_answer(
        self, interaction: discord.Interaction, user_id: int, confirmed: bool
    ) -> None:
        async with self._answering(interaction):
            if interaction.user.id != user_id:
                raise Refusal("forget.not_yours")
            if not confirmed:
                message = text("forget.cancelled", interaction.locale)
            else:
                running = [g for g in await self.repo.running_games() if g.mark_of(user_id)]
                if running:
                    raise Refusal("forget.running")
                message = text(
                    "forget.done", interaction.locale, count=await self.repo.forget_player(user_id)
                )
            await interaction.response.edit_message(content=message, view=None)
