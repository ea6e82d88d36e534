"""Records in Discord: /ttt stats, leaderboard, history, review and forget-me (and the
Review and forget-me buttons). Each asks the records service once and renders.

Everything here is private to the member who asked except the leaderboard, which a
member usually wants to show; it answers in the channel, without pinging anyone.
"""

from __future__ import annotations

import asyncio

import discord

from bot.core.models import Variant
from bot.core.policies import PolicyBook
from bot.core.puzzles.service import PuzzleService
from bot.core.records import RecordsService
from bot.core.refusals import Refusal
from bot.core.stats import PlayerStats
from bot.discord_ui import custom_ids, render_puzzle, render_records
from bot.discord_ui.custom_ids import ForgetClick
from bot.discord_ui.render_common import Unlistened
from bot.discord_ui.renderers import renderer_of
from bot.discord_ui.responder import (
    NO_MENTIONS,
    Responder,
    is_guest,
    refusal_text,
    settings_guild,
)
from bot.i18n import text


class RecordsController:
    def __init__(
        self, records: RecordsService, policies: PolicyBook, responder: Responder,
        puzzles: PuzzleService | None = None,
    ) -> None:  # fmt: skip
        self.records = records
        self.policies = policies
        self.responder = responder
        self.puzzles = puzzles
        """The puzzle records /ttt stats shows beside the games' (one per member)."""

    async def _colour(self, interaction: discord.Interaction) -> int:
        return (await self.policies.policy(settings_guild(interaction))).embed_colour

    async def on_stats(
        self, interaction: discord.Interaction, member: discord.abc.User | None,
        variant: Variant = "classic",
    ) -> None:  # fmt: skip
        async with self.responder.answering(interaction):
            user, locale = member or interaction.user, interaction.locale
            colour = await self._colour(interaction)
            puzzles = None if self.puzzles is None else await self.puzzles.player(user.id)
            stats: PlayerStats | None = None
            try:
                found = await self.records.stats(
                    settings_guild(interaction), user.id, interaction.user.id,
                    guest=is_guest(interaction), variant=variant,
                )  # fmt: skip
            except Refusal as refusal:  # no game here, but puzzles (the same everywhere)?
                if puzzles is None or not refusal.key.startswith("stats.none"):
                    raise
                embed = discord.Embed(
                    title=text("stats.title", locale, name=user.mention),
                    description=refusal_text(refusal, locale), colour=colour,
                )  # fmt: skip
            else:
                stats = found
                embed = render_records.stats_embed(user.mention, found, locale, colour)
            if puzzles is not None:
                field, value = render_puzzle.player_field(puzzles, locale)
                embed.add_field(name=field, value=value, inline=False)
            chart = None if stats is None else await asyncio.to_thread(
                render_records.rating_chart, user.display_name, stats, locale
            )  # fmt: skip
            await interaction.response.send_message(
                embed=embed, files=[chart] if chart else [], ephemeral=True,
                allowed_mentions=NO_MENTIONS,
            )  # fmt: skip

    async def on_leaderboard(
        self, interaction: discord.Interaction, variant: Variant = "classic"
    ) -> None:
        async with self.responder.answering(interaction):
            self.responder.require_channel_permissions(interaction)
            assert interaction.guild_id is not None  # the command is server_only
            board = await self.records.leaderboard(
                interaction.guild_id, interaction.user.id, variant
            )
            policy = await self.policies.policy(interaction.guild_id)
            guild_locale = interaction.guild_locale.value if interaction.guild_locale else None
            embed = render_records.leaderboard_embed(
                board, policy.public_locale(guild_locale), policy.embed_colour
            )
            await interaction.response.send_message(embed=embed, allowed_mentions=NO_MENTIONS)

    async def on_history(
        self, interaction: discord.Interaction, member: discord.abc.User | None
    ) -> None:
        async with self.responder.answering(interaction):
            user = member or interaction.user
            scope = settings_guild(interaction)
            games = await self.records.history(
                scope, user.id, interaction.user.id, guest=is_guest(interaction)
            )
            embed = render_records.history_embed(
                user.mention, user.id, games, interaction.locale, await self._colour(interaction)
            )
            await interaction.response.send_message(
                embed=embed, ephemeral=True, allowed_mentions=NO_MENTIONS
            )

    async def on_review(self, interaction: discord.Interaction, game_id: int | None = None) -> None:
        """The Review button (any finished game) or /ttt review (the caller's last game)."""
        async with self.responder.answering(interaction):
            game = await self.records.review_target(
                settings_guild(interaction), interaction.user.id, game_id,
                guest=is_guest(interaction),
            )  # fmt: skip

            async def thinking() -> None:  # worked out now, in seconds: say so, answer when done
                await interaction.response.defer(ephemeral=True, thinking=True)

            # busy: refused before the "thinking", a private reply in the member's language
            review = await self.records.analyze(game, interaction.user.id, waiting=thinking)
            marks = (await self.policies.policy(game.settings_guild)).marks
            content = renderer_of(game.variant).review_text(review, interaction.locale, marks)
            if interaction.response.is_done():
                await interaction.followup.send(
                    content, ephemeral=True, allowed_mentions=NO_MENTIONS
                )
            else:
                await interaction.response.send_message(
                    content, ephemeral=True, allowed_mentions=NO_MENTIONS
                )

    async def on_forget(self, interaction: discord.Interaction) -> None:
        async with self.responder.answering(interaction):
            user_id = interaction.user.id
            view = Unlistened()
            for confirmed, style in ((True, discord.ButtonStyle.danger),
                                     (False, discord.ButtonStyle.secondary)):  # fmt: skip
                key = "button.forget_yes" if confirmed else "button.forget_no"
                view.add_item(
                    discord.ui.Button(
                        custom_id=custom_ids.forget(user_id, confirmed),
                        label=text(key, interaction.locale),
                        style=style,
                    )
                )
            await interaction.response.send_message(
                text("forget.ask", interaction.locale), view=view, ephemeral=True
            )

    async def on_forget_answer(self, interaction: discord.Interaction, click: ForgetClick) -> None:
        async with self.responder.answering(interaction):
            deleted = await self.records.forget(interaction.user.id, click.user_id, click.confirmed)
            if deleted is None:
                message = text("forget.cancelled", interaction.locale)
            else:
                message = text("forget.done", interaction.locale, count=deleted)
            await interaction.response.edit_message(content=message, view=None)
