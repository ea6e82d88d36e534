"""Puzzles in Discord: /ttt puzzle, the clicks on a puzzle's message (a square, an
ultimate board's choice, Retry, Share) and the puzzle leaderboard. Each asks the
puzzle service once and renders what it returns; the service decides everything.

A puzzle's message is private (no spoilers in the channel); the only public message is
a member's Share, one line without squares, where the server allows it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import discord

from bot.core.policies import PolicyBook
from bot.core.puzzles.models import Mode, PuzzleKind, PuzzleView
from bot.core.puzzles.service import PuzzleService
from bot.discord_ui import render_puzzle
from bot.discord_ui.custom_ids import PuzzleBoardClick, PuzzleCellClick, RetryClick, ShareClick
from bot.discord_ui.render_common import GameMessage
from bot.discord_ui.responder import (
    NO_MENTIONS,
    Responder,
    answer_by,
    in_time,
    public_locale,
    settings_guild,
)
from bot.discord_ui.update_answer import update_message
from bot.i18n import text

T = TypeVar("T")


class PuzzleController:
    def __init__(
        self, puzzles: PuzzleService, policies: PolicyBook, responder: Responder, *,
        patience: float = 1.0,
    ) -> None:  # fmt: skip
        self.puzzles = puzzles
        self.policies = policies
        self.responder = responder
        self.patience = patience
        """Seconds a service call may take before the interaction is deferred (a search in
        the engine pool, an own-game scan): Discord's first answer is due within 3."""

    async def on_puzzle(
        self, interaction: discord.Interaction, mode: Mode, kind: PuzzleKind | None
    ) -> None:
        """/ttt puzzle: the member's open attempt, or a new one (privately)."""
        async with self.responder.answering(interaction):
            opening = self.puzzles.open(interaction.user.id, settings_guild(interaction), mode,
                                        kind if mode == "training" else None)  # fmt: skip
            view = await self._soon(
                interaction, opening, lambda: interaction.response.defer(ephemeral=True,
                                                                         thinking=True),
            )  # fmt: skip
            if view is None:
                return
            message = await self._render(interaction, view)
            if interaction.response.is_done():  # deferred: the "thinking" message becomes it
                await interaction.edit_original_response(**message._asdict(),
                                                         allowed_mentions=NO_MENTIONS)  # fmt: skip
            else:
                await interaction.response.send_message(
                    **message._asdict(), ephemeral=True, allowed_mentions=NO_MENTIONS
                )

    async def on_cell(self, interaction: discord.Interaction, click: PuzzleCellClick) -> None:
        """A square: the member's move, and the defender's reply, on the same message."""
        async with self.responder.answering(interaction):
            moving = self.puzzles.move(interaction.user.id, click.attempt_id, click.ply,
                                       click.cell)  # fmt: skip
            view = await self._soon(interaction, moving, interaction.response.defer)
            if view is not None:
                await self._show(interaction, view, pointer=view.stale and view.attempt.over)

    async def on_board(self, interaction: discord.Interaction, click: PuzzleBoardClick) -> None:
        """An ultimate puzzle's free move: a small board's squares, or Back (nothing
        stored; the board chosen lives in the buttons' custom_ids). A choice on a board
        no longer shown redraws the message as the attempt stands."""
        async with self.responder.answering(interaction):
            view = await self.puzzles.show(interaction.user.id, click.attempt_id)
            current = click.ply == view.attempt.ply and not view.attempt.over
            await self._show(interaction, view, click.board if current else None,
                             pointer=view.attempt.over)  # fmt: skip

    async def on_retry(self, interaction: discord.Interaction, click: RetryClick) -> None:
        """Retry: the same message shows a new, unrated attempt at the puzzle."""
        async with self.responder.answering(interaction):
            view = await self.puzzles.retry(interaction.user.id, click.attempt_id)
            await self._show(interaction, view)

    async def on_share(self, interaction: discord.Interaction, click: ShareClick) -> None:
        """Share: one public line in the channel (the result, never the squares), where
        the server lets games be played; elsewhere a private refusal.

        Raises (as private replies):
            Refusal: ``perm.missing`` and the service's (``puzzle.share.channel``...).
        """
        async with self.responder.answering(interaction):
            self.responder.require_channel_permissions(interaction)
            guild = settings_guild(interaction)
            line = await self.puzzles.share(
                interaction.user.id, click.attempt_id, guild, interaction.channel_id
            )
            rules = await self.policies.policy(guild)
            if guild is None:
                locale: object = public_locale(interaction)
            else:
                server = interaction.guild_locale.value if interaction.guild_locale else None
                locale = rules.public_locale(server)
            await interaction.response.send_message(
                render_puzzle.share_line(line, locale), allowed_mentions=NO_MENTIONS
            )

    async def on_leaderboard(self, interaction: discord.Interaction) -> None:
        """/ttt leaderboard game:puzzles, in the channel as the other leaderboards."""
        async with self.responder.answering(interaction):
            self.responder.require_channel_permissions(interaction)
            assert interaction.guild_id is not None  # the command is server_only
            standings = await self.puzzles.leaderboard(interaction.guild_id)
            rules = await self.policies.policy(interaction.guild_id)
            server = interaction.guild_locale.value if interaction.guild_locale else None
            embed = render_puzzle.leaderboard_embed(
                standings, rules.public_locale(server), rules.embed_colour
            )
            await interaction.response.send_message(embed=embed, allowed_mentions=NO_MENTIONS)

    async def _render(
        self, interaction: discord.Interaction, view: PuzzleView, focus: int | None = None
    ) -> GameMessage:
        """The puzzle's message in the member's language and the server's marks."""
        marks = (await self.policies.policy(settings_guild(interaction))).marks
        return render_puzzle.puzzle_message(view, interaction.locale, marks, focus)

    async def _show(
        self, interaction: discord.Interaction, view: PuzzleView, focus: int | None = None, *,
        pointer: bool = False,
    ) -> None:  # fmt: skip
        """Edit the clicked message to ``view``; with ``pointer`` (a click on a puzzle
        already over: a double click, an old message, the page played it) also tell the
        member privately that it is over and how to start the next one."""
        message = await self._render(interaction, view, focus)
        if interaction.response.is_done():  # deferred while the service searched
            await interaction.edit_original_response(**message._asdict(),
                                                     allowed_mentions=NO_MENTIONS)  # fmt: skip
        else:
            await update_message(interaction, **message._asdict(), allowed_mentions=NO_MENTIONS)
        if pointer:
            await interaction.followup.send(text("puzzle.over", interaction.locale), ephemeral=True)

    async def _soon(
        self, interaction: discord.Interaction, work: Awaitable[T],
        defer: Callable[[], Awaitable[object]],
    ) -> T | None:  # fmt: skip
        """``work``'s result; the interaction deferred first (``defer``) when it takes
        longer than :attr:`patience` or than Discord's deadline allows. None when Discord
        refused the deferral as too late: nothing can show the result then (the attempt
        keeps it: the next ``/ttt puzzle`` or click shows it).

        Raises:
            Exception: whatever ``work`` raises (a Refusal: a private reply).
        """
        task = asyncio.ensure_future(work)
        wait = max(0.0, min(self.patience, answer_by(interaction) - time.time()))
        try:
            done = (await asyncio.wait({task}, timeout=wait))[0] if wait > 0 else set()
            if not done and not await in_time(interaction, defer()):
                await task
                return None
            return await task
        except asyncio.CancelledError:
            task.cancel()
            raise
