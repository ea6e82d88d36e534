"""The turn ping: a short message that mentions the member to move (an edited board
notifies nobody), deleted when the game changes again. Which member, and which ping is
stale, is :class:`~bot.core.game_messages.GameMessages`'s to say."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import discord

from bot.core.game_messages import GameMessages
from bot.core.models import Game
from bot.discord_ui import render_game

log = logging.getLogger(__name__)


class TurnPinger:
    def __init__(self, client: discord.Client, messages: GameMessages) -> None:
        self.client = client
        self.messages = messages
        self.on_ended: list[Callable[[Game], Awaitable[None]]] = []
        """Told of every game whose ending was shown (a tournament's next step)."""

    async def game_changed(
        self, game: Game, actor_id: int | None = None, *, follow: bool = True
    ) -> None:
        """After any change of ``game`` was shown (a move, an ending of any kind): delete
        the ping that is now stale, and mention the member to move if one is due. Never
        raises: the change itself is stored and shown already. An ending is then told to
        :attr:`on_ended` (unless not ``follow``: it was a follower's own doing)."""
        await self._ping(game, actor_id)
        if follow and not game.running:
            for follower in self.on_ended:
                try:
                    await follower(game)
                except Exception:
                    log.exception("game %s: what follows its ending failed", game.id)

    async def _ping(self, game: Game, actor_id: int | None) -> None:
        try:
            stale = await self.messages.take_ping(game)
            if stale is not None:
                await self._delete(game.channel_id, stale)
            member = await self.messages.ping_due(game, actor_id)
            if member is not None:
                await self._send(game, member)
        except Exception:
            log.exception("game %s: the turn ping failed", game.id)

    async def ping_instead(self, game: Game, member_id: int) -> None:
        """Mention ``member_id``, whose reminders do not reach them by DM, in the game's
        channel: the turn's one ping (none if one was sent for this turn already, as on
        a server with the turn ping on), deleted as any when the game changes. Where
        the bot cannot post (a member's own install), nothing. Never raises."""
        if game.ping_message_id is not None or game.guest or not game.running:
            return
        try:
            await self._send(game, member_id)
        except Exception as exc:
            log.info("game %s: no turn ping in its channel instead of a DM (%s)", game.id, exc)

    async def _send(self, game: Game, member: int) -> None:
        channel = self.client.get_partial_messageable(game.channel_id)
        locale = render_game.server_locale(self.client, game)
        sent = await channel.send(
            render_game.turn_ping(game, member, locale),
            allowed_mentions=discord.AllowedMentions(
                everyone=False, roles=False, users=[discord.Object(member)], replied_user=False,
            ),
        )  # fmt: skip
        if not await self.messages.keep_ping(game, sent.id):
            await self._delete(game.channel_id, sent.id)  # the game moved on meanwhile

    async def relink(self, game: Game) -> None:
        """Point the game's ping at its board posted again (an edit: nobody is notified
        twice)."""
        if game.ping_message_id is None or not game.running:
            return
        member = game.player(game.board.to_move)
        message = self.client.get_partial_messageable(game.channel_id).get_partial_message(
            game.ping_message_id
        )
        locale = render_game.server_locale(self.client, game)
        try:
            await message.edit(
                content=render_game.turn_ping(game, member, locale),
                allowed_mentions=discord.AllowedMentions.none(),
            )
        except discord.HTTPException as exc:  # deleted meanwhile: the next change tidies up
            log.info("game %s: could not point its ping to the new board (%s)", game.id, exc)

    async def _delete(self, channel_id: int, message_id: int) -> None:
        message = self.client.get_partial_messageable(channel_id).get_partial_message(message_id)
        try:
            await message.delete()
        except discord.NotFound:
            pass  # deleted already (by a member, or a moderator): nothing left to do
        except discord.HTTPException as exc:
            log.warning("could not delete turn ping %s in channel %s: %s", message_id,
                        channel_id, exc)  # fmt: skip
