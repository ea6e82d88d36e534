"""Tournaments in Discord: /ttt tournament create, start, status, remove, correct and
cancel, and the Join, Leave and Ready buttons. Each asks the tournament service once,
answers the interaction, and leaves the rest of the step to the publisher."""

from __future__ import annotations

import logging

import discord

from bot.core.models import Variant
from bot.core.refusals import Refusal
from bot.core.tournaments.models import Format
from bot.core.tournaments.service import TournamentService
from bot.core.tournaments.signup import Setup
from bot.core.tournaments.view import TournamentView
from bot.discord_ui import render_tournament
from bot.discord_ui.custom_ids import JoinClick, LeaveClick, ReadyClick
from bot.discord_ui.responder import (
    NO_MENTIONS,
    Responder,
    in_time,
    locale_code,
    public_locale,
    role_ids,
)
from bot.discord_ui.tournament_publisher import TournamentPublisher
from bot.i18n import text

log = logging.getLogger(__name__)


def _may_manage(interaction: discord.Interaction) -> bool:
    """Manage Server, as Discord resolved it for the member here."""
    return bool(interaction.permissions.manage_guild)


def _channel(interaction: discord.Interaction) -> int:
    return interaction.channel_id or 0


class TournamentController:
    def __init__(
        self, tournaments: TournamentService, responder: Responder, shows: TournamentPublisher
    ) -> None:
        self.tournaments = tournaments
        self.responder = responder
        self.shows = shows

    async def on_create(
        self, interaction: discord.Interaction, *, name: str, format: Format, size: int,
        best_of: int, max_players: int, signup_minutes: float | None, rounds: int,
        show_up_minutes: float, variant: Variant = "classic",
    ) -> None:  # fmt: skip
        async with self.responder.answering(interaction):
            self.responder.require_channel_permissions(interaction)
            setup = Setup(
                name, format, size=size, variant=variant, best_of=best_of,
                max_players=max_players, rounds=rounds,
                signup_seconds=None if signup_minutes is None else signup_minutes * 60,
                show_up=show_up_minutes * 60,
            )  # fmt: skip
            view = await self.tournaments.create(
                setup, guild_id=interaction.guild_id or 0, channel_id=_channel(interaction),
                organiser_id=interaction.user.id, may_manage=_may_manage(interaction),
                locale=locale_code(public_locale(interaction)),
            )  # fmt: skip
            t = view.tournament
            try:
                response = await interaction.response.send_message(
                    render_tournament.tournament_content(view, t.locale),
                    view=render_tournament.signup_view(t, t.locale),  # type: ignore[arg-type]
                    allowed_mentions=NO_MENTIONS,
                )
            except discord.HTTPException as exc:
                # Nobody could join a tournament nobody sees: do not let it hold the channel.
                log.warning("tournament %s: could not post its message (%s); cancelling it",
                            t.id, exc)  # fmt: skip
                await self.tournaments.cancel(t.channel_id, t.organiser_id, may_manage=True)
                raise Refusal("tournament.not_posted") from None
            if response.message_id is not None:
                await self.tournaments.attach_message(t, response.message_id)

    async def on_join(self, interaction: discord.Interaction, click: JoinClick) -> None:
        async with self.responder.answering(interaction):
            view = await self.tournaments.join(
                click.tournament_id, interaction.user.id, role_ids(interaction),
                name=interaction.user.display_name,
            )  # fmt: skip
            await self._answer_signup(interaction, view)

    async def on_leave(self, interaction: discord.Interaction, click: LeaveClick) -> None:
        async with self.responder.answering(interaction):
            view = await self.tournaments.leave(click.tournament_id, interaction.user.id)
            await self._answer_signup(interaction, view)

    async def _answer_signup(self, interaction: discord.Interaction, view: TournamentView) -> None:
        """The tournament's message as it stands, as the click's answer; edited on the
        bot's own account if the click came too late to be answered (it is stored)."""
        t = view.tournament
        answer = interaction.response.edit_message(
            content=render_tournament.tournament_content(view, t.locale),
            view=render_tournament.signup_view(t, t.locale), allowed_mentions=NO_MENTIONS,
        )  # fmt: skip
        if not await in_time(interaction, answer):
            log.info("tournament %s: its click went unanswered; editing its message", t.id)
            await self.shows.redraw(view)

    async def on_ready(self, interaction: discord.Interaction, click: ReadyClick) -> None:
        async with self.responder.answering(interaction):
            view = await self.tournaments.ready(click.match_id, interaction.user.id)
            match = next(m for m in view.matches if m.id == click.match_id)
            locale = view.tournament.locale
            answer = interaction.response.edit_message(
                content=render_tournament.match_content(view, match, locale),
                view=render_tournament.match_view(match, locale), allowed_mentions=NO_MENTIONS,
            )  # fmt: skip
            # too late to answer: the match's message is edited with the rest of the step
            answered = match.id if await in_time(interaction, answer) else None
            await self.shows.show(view, answered=answered)

    async def on_start(self, interaction: discord.Interaction) -> None:
        async with self.responder.answering(interaction):
            view = await self.tournaments.start(
                _channel(interaction), interaction.user.id, may_manage=_may_manage(interaction)
            )
            await self._done(interaction, "tournament.started_done", view)

    async def on_status(self, interaction: discord.Interaction) -> None:
        async with self.responder.answering(interaction):
            view = await self.tournaments.view_in(_channel(interaction))
            content = render_tournament.tournament_content(view, interaction.locale)
            await interaction.response.send_message(content, ephemeral=True)

    async def on_remove(self, interaction: discord.Interaction, member: discord.abc.User) -> None:
        async with self.responder.answering(interaction):
            view = await self.tournaments.remove(
                _channel(interaction), interaction.user.id, member.id,
                may_manage=_may_manage(interaction),
            )  # fmt: skip
            await self._done(interaction, "tournament.removed_done", view, member=member.mention)

    async def on_correct(
        self, interaction: discord.Interaction, number: int, winner: discord.abc.User | None,
        draw: bool,
    ) -> None:  # fmt: skip
        async with self.responder.answering(interaction):
            if (winner is None) != draw:
                raise Refusal("tournament.winner_or_draw")
            view = await self.tournaments.correct(
                _channel(interaction), interaction.user.id, number,
                None if winner is None else winner.id, may_manage=_may_manage(interaction),
            )  # fmt: skip
            await self._done(interaction, "tournament.corrected_done", view, number=number)

    async def on_cancel(self, interaction: discord.Interaction) -> None:
        async with self.responder.answering(interaction):
            view = await self.tournaments.cancel(
                _channel(interaction), interaction.user.id, may_manage=_may_manage(interaction)
            )
            await self._done(interaction, "tournament.cancelled_done", view)

    async def _done(
        self, interaction: discord.Interaction, key: str, view: TournamentView, **params: object
    ) -> None:
        """Say privately that it is done (unless the interaction expired), then show the
        step to everyone."""
        await self.responder.reply_private(
            interaction, text(key, interaction.locale, name=view.tournament.name, **params)
        )
        await self.shows.show(view)
