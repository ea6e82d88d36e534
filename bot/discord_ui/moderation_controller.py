"""Keeping a channel's games in order: /ttt stop (moderators end a game) and /ttt board
(a player posts their board again when it scrolled away)."""

from __future__ import annotations

import discord

from bot.core.game_messages import GameMessages
from bot.core.models import GameUpdate
from bot.core.refusals import Refusal
from bot.core.service import GameService
from bot.discord_ui import render_game
from bot.discord_ui.publisher import Publisher
from bot.discord_ui.responder import NO_MENTIONS, Responder
from bot.discord_ui.turn_pinger import TurnPinger
from bot.i18n import text


class ModerationController:
    def __init__(
        self, games: GameService, messages: GameMessages, responder: Responder,
        publisher: Publisher, pinger: TurnPinger,
    ) -> None:  # fmt: skip
        self.games = games
        self.messages = messages
        self.responder = responder
        self.publisher = publisher
        self.pinger = pinger

    async def on_stop(
        self, interaction: discord.Interaction, member: discord.abc.User | None
    ) -> None:
        """Manage Messages is read from the permissions Discord resolved for this
        interaction (roles and channel overwrites included), so no process needs the
        server's members or roles in its cache."""
        async with self.responder.answering(interaction):
            if interaction.channel_id is None or interaction.guild_id is None:
                raise Refusal("start.not_in_guild")
            update = await self.games.stop(
                interaction.user.id, interaction.channel_id,
                may_moderate=interaction.permissions.manage_messages,
                member_id=member.id if member is not None else None,
            )  # fmt: skip
            game = update.game
            link = render_game.message_link(game.guild_id, game.channel_id, game.message_id)
            # privately, and an expired interaction does not keep the board from showing it
            await self.responder.reply_private(
                interaction, text("stop.done", interaction.locale, link=link)
            )
            await self.publisher.publish(update)
            await self.pinger.game_changed(game)

    async def on_board(self, interaction: discord.Interaction) -> None:
        async with self.responder.answering(interaction):
            if interaction.channel_id is None or interaction.guild_id is None:
                raise Refusal("start.not_in_guild")
            shown: list[int] = []

            async def post(update: GameUpdate) -> int:
                response = await interaction.response.send_message(
                    **render_game.game_message(
                        update, update.game.locale or interaction.guild_locale
                    )._asdict(),
                    allowed_mentions=NO_MENTIONS,
                )
                if response.message_id is None:  # Discord always returns it for a message
                    raise RuntimeError("the board posted again has no message id")
                shown.append(update.game.ply)
                return response.message_id

            reposted = await self.messages.repost(interaction.user.id, interaction.channel_id, post)
            update = reposted.update
            old = reposted.old_message_id
            if old is not None and old != update.game.message_id:
                await self.publisher.retire(update, old)
            if not reposted.live:  # another process posted it first, or the game ended
                await self.publisher.retire(update, reposted.posted_id)
            elif shown and shown[0] != update.game.ply:  # a move landed meanwhile elsewhere
                await self.publisher.publish(update)
            await self.pinger.relink(update.game)
