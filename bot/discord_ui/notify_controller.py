"""``/ttt notify``: a member's choice of "your move" reminders, always answered
privately; the offer a member's first correspondence game makes (a private button, never
a DM before they choose); and, once, at their next interaction, word that their DMs do
not reach them (Discord answered 50007 to a reminder)."""

from __future__ import annotations

import logging

import discord

from bot.core.refusals import Refusal
from bot.core.reminders.models import ReminderSetting
from bot.core.reminders.service import Reminders
from bot.discord_ui import custom_ids
from bot.discord_ui.custom_ids import NotifyClick
from bot.discord_ui.render_common import Unlistened
from bot.discord_ui.responder import Responder, expired, locale_code
from bot.i18n import text

log = logging.getLogger(__name__)


def describe(setting: ReminderSetting, locale: object) -> str:
    """The member's choice, said back to them."""
    if setting.mode == "digest":
        hours, minutes = divmod(abs(setting.utc_offset), 60)
        sign = "-" if setting.utc_offset < 0 else "+"
        offset = f"{sign}{hours}" + (f":{minutes:02d}" if minutes else "")
        said = text("notify.saved.digest", locale, hour=setting.digest_hour, offset=offset)
    else:
        said = text(f"notify.saved.{setting.mode}", locale)
    warnings = "notify.warnings_on" if setting.warnings else "notify.warnings_off"
    return f"{said}\n{text(warnings, locale)}"


class NotifyController:
    def __init__(self, reminders: Reminders, responder: Responder) -> None:
        self.reminders = reminders
        self.responder = responder

    async def on_notify(
        self, interaction: discord.Interaction, mode: str, hour: int | None,
        utc_offset: float | None, warnings: bool | None,
    ) -> None:  # fmt: skip
        async with self.responder.answering(interaction):
            minutes = round((utc_offset or 0.0) * 60)
            if utc_offset is not None and abs(minutes - utc_offset * 60) > 1e-6:
                raise Refusal("notify.bad_offset")
            setting = await self.reminders.choose(
                interaction.user.id,
                mode,
                hour=hour,
                utc_offset=minutes,
                warnings=warnings,
                locale=locale_code(interaction.locale),
            )
            await interaction.response.send_message(
                describe(setting, interaction.locale), ephemeral=True
            )

    async def on_offer_answer(self, interaction: discord.Interaction, click: NotifyClick) -> None:
        async with self.responder.answering(interaction):
            if click.user_id != interaction.user.id:  # an offer is only ever shown to its member
                raise Refusal("move.stale")
            setting = await self.reminders.choose(
                interaction.user.id, "every", locale=locale_code(interaction.locale)
            )
            await interaction.response.edit_message(
                content=describe(setting, interaction.locale), view=None
            )

    async def offer(self, interaction: discord.Interaction) -> None:
        """After a member's correspondence game started or was accepted (the interaction
        answered): the first time, a private offer of reminders. Never raises."""
        try:
            if expired(interaction) or not await self.reminders.offer_once(interaction.user.id):
                return
            view = Unlistened()
            view.add_item(discord.ui.Button(
                custom_id=custom_ids.notify_every(interaction.user.id),
                label=text("button.notify_every", interaction.locale),
                style=discord.ButtonStyle.primary,
            ))  # fmt: skip
            await interaction.followup.send(
                text("notify.offer", interaction.locale), view=view, ephemeral=True
            )
        except Exception:
            log.exception("interaction %s: the reminders' offer failed", interaction.id)

    async def after_answer(self, interaction: discord.Interaction) -> None:
        """Tell a member once, privately, that reminders stopped reaching them by DM.
        Costs nothing for anyone else (see :meth:`Reminders.tell_unreachable`)."""
        if expired(interaction) or not interaction.response.is_done():
            return
        if await self.reminders.tell_unreachable(interaction.user.id):
            try:
                await interaction.followup.send(
                    text("reminder.unreachable", interaction.locale), ephemeral=True
                )
            except discord.HTTPException as exc:
                log.info("could not tell %s their DMs do not reach them (%s)",
                         interaction.user.id, exc)  # fmt: skip
