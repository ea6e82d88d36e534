"""A click on a "your move" reminder in a DM. A square (``ttt:rc``): the move is played
through the same service call as a click on the game's own message, then shown there
(and on the live board) as after any click, and the DM redrawn as the game stands,
without buttons once the move is made. Ultimate's free move (``ttt:ru``, ``ttt:rb``):
the DM shows the chosen small board's squares (or the boards again), through the same
service call as on the game's message, which changes nothing stored. A click on a
reminder whose game has moved on since is stale: the DM is redrawn, nothing is played,
and the member is told why, privately.

Accept or Decline on a challenge's DM (``ttt:ra``, ``ttt:rd``) answers it as ``/ttt
games`` does (:class:`~bot.discord_ui.challenge_answers.ChallengeAnswers`): the
challenge's message shows the game (or the refusal), and the DM is redrawn without its
buttons, saying what was done. A click after the challenge closed (answered in the
channel, withdrawn, lapsed) is refused privately with the reason, and nothing changes."""

from __future__ import annotations

from collections.abc import Awaitable

import discord

from bot.core.models import GameUpdate
from bot.core.refusals import Refusal
from bot.core.reminders.models import waiting_for
from bot.core.service import GameService
from bot.discord_ui import render_reminder
from bot.discord_ui.challenge_answers import ChallengeAnswers
from bot.discord_ui.custom_ids import (
    ReminderAcceptClick,
    ReminderBoardClick,
    ReminderCellClick,
    ReminderDeclineClick,
)
from bot.discord_ui.publisher import Publisher
from bot.discord_ui.render_common import message_link
from bot.discord_ui.responder import NO_MENTIONS, Responder, answer_by
from bot.discord_ui.turn_pinger import TurnPinger
from bot.i18n import text

STALE = ("move.stale", "move.over", "move.not_your_turn", "move.late")
"""Refusals of a reminder's click that the game's present answers: the DM is redrawn."""


class ReminderClicks:
    def __init__(
        self, games: GameService, responder: Responder, publisher: Publisher,
        pinger: TurnPinger, answers: ChallengeAnswers,
    ) -> None:  # fmt: skip
        self.games = games
        self.answers = answers
        self.responder = responder
        self.publisher = publisher
        self.pinger = pinger

    async def on_cell(self, interaction: discord.Interaction, click: ReminderCellClick) -> None:
        async with self.responder.answering(interaction):
            # no message to compare: the DM is not the game's board
            update = await self._or_redrawn(interaction, click.game_id, self.games.play_turn(
                click.game_id, click.ply, click.cell, interaction.user.id,
                message_id=None, answer_by=answer_by(interaction),
            ))  # fmt: skip
            await self._redraw(interaction, update)
            await self.publisher.publish(update)  # the game's own message, as after a click
            await self.pinger.game_changed(update.game, interaction.user.id)

    async def on_accept(self, interaction: discord.Interaction, click: ReminderAcceptClick) -> None:
        async with self.responder.answering(interaction):
            update = await self.answers.accept(click.challenge_id, interaction.user.id)
            game = update.game
            link = message_link(game.guild_id, game.channel_id, game.message_id)
            await self._answered(interaction, text("reminder.challenge_accepted",
                                                   interaction.locale, link=link))  # fmt: skip

    async def on_decline(
        self, interaction: discord.Interaction, click: ReminderDeclineClick
    ) -> None:
        async with self.responder.answering(interaction):
            await self.answers.decline(click.challenge_id, interaction.user.id)
            await self._answered(interaction, text("reminder.challenge_declined",
                                                   interaction.locale))  # fmt: skip

    async def _answered(self, interaction: discord.Interaction, note: str) -> None:
        """The challenge's DM as it was, without its buttons, and what was done."""
        said = interaction.message.content if interaction.message is not None else ""
        await interaction.response.edit_message(
            content=f"{said}\n-# {note}", view=None, allowed_mentions=NO_MENTIONS
        )

    async def on_board(self, interaction: discord.Interaction, click: ReminderBoardClick) -> None:
        """Ultimate's free move: a small board's squares shown on the DM (or the boards)."""
        async with self.responder.answering(interaction):
            update = await self._or_redrawn(interaction, click.game_id, self.games.choose_board(
                click.game_id, click.ply, click.board, interaction.user.id, None
            ))  # fmt: skip
            await self._redraw(interaction, update)

    async def _or_redrawn(
        self, interaction: discord.Interaction, game_id: int, asked: Awaitable[GameUpdate]
    ) -> GameUpdate:
        """What the service answers; for a stale click, the DM redrawn as the game stands
        before the refusal is raised (told privately, after the redrawn DM)."""
        try:
            return await asked
        except Refusal as refusal:
            current = await self.games.current(game_id)
            if refusal.key not in STALE or current is None:
                raise
            await self._redraw(interaction, current)
            raise

    async def _redraw(self, interaction: discord.Interaction, update: GameUpdate) -> None:
        """The DM as the game stands: its squares playable only while it waits for the
        member's move (a layout stays one: Discord keeps its IS_COMPONENTS_V2 flag), in
        the member's language, as the DM was sent (only they read it)."""
        game, member = update.game, interaction.user.id
        said = render_reminder.jump_link(game)
        content, view = render_reminder.reminder_board(
            update, said, interaction.locale, playable=waiting_for(game, member)
        )
        await interaction.response.edit_message(
            content=content, view=view, allowed_mentions=NO_MENTIONS
        )
