"""A ban ends the banned member's Activity sessions at once, in every process.

Discord sends ``GUILD_BAN_ADD`` to a bot with the ``GUILD_MODERATION`` intent (not
privileged) and, in that server, the Ban Members or View Audit Log permission; ttt asks
neither permission, so only where a server granted one does a ban revoke at once.
Elsewhere the banned member leaves the voice channel, and so the Activity instance, and
the web service's presence check refuses their next intent (docs/run/under-abuse.md)."""

from __future__ import annotations

import logging

import discord
from discord.ext import commands

from bot.core.records import RecordsService

log = logging.getLogger(__name__)


class Bans(commands.Cog):
    def __init__(self, records: RecordsService) -> None:
        self.records = records

    @commands.Cog.listener()
    async def on_member_ban(
        self, guild: discord.Guild, user: discord.User | discord.Member
    ) -> None:
        try:
            await self.records.revoke_sessions(user.id)
        except Exception:  # the database is out: the presence check still holds
            log.exception("could not revoke the sessions of a member banned in %s", guild.id)
        else:
            log.info("a member banned in %s: their Activity sessions are revoked", guild.id)
