"""The /ttt slash commands. They route to the controller; nothing is decided here."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.settings import DIFFICULTIES
from bot.texts import text

if TYPE_CHECKING:
    from bot.client import TTTBot

FIRST_CHOICES = [
    app_commands.Choice(name=text(f"choice.first.{value}"), value=value)
    for value in ("random", "me", "opponent")
]
DIFFICULTY_CHOICES = [app_commands.Choice(name=name, value=name) for name in DIFFICULTIES]
SIZE_CHOICES = [
    app_commands.Choice(name=text(f"choice.size.{size}"), value=size) for size in (3, 4, 5)
]


@app_commands.guild_only()
class TicTacToe(commands.GroupCog, group_name="ttt", group_description=text("cmd.group")):
    def __init__(self, bot: TTTBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name="start", description=text("cmd.start"))
    @app_commands.describe(
        opponent=text("cmd.start.opponent"),
        difficulty=text("cmd.start.difficulty", default="medium"),
        first=text("cmd.start.first"),
        size=text("cmd.start.size"),
    )
    @app_commands.choices(difficulty=DIFFICULTY_CHOICES, first=FIRST_CHOICES, size=SIZE_CHOICES)
    async def start(
        self,
        interaction: discord.Interaction,
        opponent: discord.User | None = None,
        difficulty: app_commands.Choice[str] | None = None,
        first: app_commands.Choice[str] | None = None,
        size: app_commands.Choice[int] | None = None,
    ) -> None:
        await self.bot.controller.on_start(
            interaction,
            opponent,
            difficulty.value if difficulty else None,
            first.value if first else "random",  # type: ignore[arg-type]
            size.value if size else 3,
        )

    @app_commands.command(name="resign", description=text("cmd.resign"))
    async def resign(self, interaction: discord.Interaction) -> None:
        await self.bot.controller.on_resign_command(interaction)

    @app_commands.command(name="stats", description=text("cmd.stats"))
    @app_commands.describe(member=text("cmd.stats.member"))
    async def stats(
        self, interaction: discord.Interaction, member: discord.User | None = None
    ) -> None:
        await self.bot.records.on_stats(interaction, member)

    @app_commands.command(name="leaderboard", description=text("cmd.leaderboard"))
    async def leaderboard(self, interaction: discord.Interaction) -> None:
        await self.bot.records.on_leaderboard(interaction)

    @app_commands.command(name="history", description=text("cmd.history"))
    @app_commands.describe(member=text("cmd.history.member"))
    async def history(
        self, interaction: discord.Interaction, member: discord.User | None = None
    ) -> None:
        await self.bot.records.on_history(interaction, member)

    @app_commands.command(name="review", description=text("cmd.review"))
    async def review(self, interaction: discord.Interaction) -> None:
        await self.bot.records.on_review(interaction)

    @app_commands.command(name="forget-me", description=text("cmd.forget"))
    async def forget_me(self, interaction: discord.Interaction) -> None:
        await self.bot.records.on_forget(interaction)

    @app_commands.command(name="help", description=text("cmd.help"))
    async def help(self, interaction: discord.Interaction) -> None:
        await self.bot.controller.on_help(interaction)
