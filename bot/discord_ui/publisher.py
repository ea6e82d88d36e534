"""Showing a change nobody clicked for (a timeout, an expiry, /ttt resign, a bot move
resumed after a crash): the game's or challenge's own message is edited over REST, or,
where only a member's own install reaches, through its latest interaction token."""

from __future__ import annotations

import logging
from typing import Literal

import discord

from bot.core.lobby import Lobby
from bot.core.models import Challenge, Game, GameUpdate
from bot.core.service import GameService
from bot.discord_ui import render_game
from bot.discord_ui.reply_tokens import ReplyTokens, kind_of
from bot.discord_ui.turn_pinger import TurnPinger

log = logging.getLogger(__name__)

Display = Literal["shown", "deleted", "refused"]
"""What became of a change the chat was to show: shown, its message deleted, or not
shown (Discord refused the edit for another reason, or no token of a guest's was valid)."""

NO_MENTIONS = discord.AllowedMentions.none()


async def post(
    channel: discord.abc.Messageable, content: str | None,
    view: discord.ui.View | discord.ui.LayoutView | None,
) -> discord.Message:  # fmt: skip
    """A new message from what a renderer made: a components-v2 layout carries its text
    itself (such a message may have no content), a legacy one its content and buttons."""
    if view is None:
        return await channel.send(content=content, allowed_mentions=NO_MENTIONS)
    if isinstance(view, discord.ui.LayoutView):
        return await channel.send(view=view, allowed_mentions=NO_MENTIONS)
    return await channel.send(content=content, view=view, allowed_mentions=NO_MENTIONS)


class Publisher:
    def __init__(
        self, client: discord.Client, games: GameService, lobby: Lobby, pinger: TurnPinger,
        tokens: ReplyTokens,
    ) -> None:  # fmt: skip
        self.client = client
        self.games = games
        self.lobby = lobby
        self.pinger = pinger
        self.tokens = tokens

    async def publish(self, item: GameUpdate | Challenge) -> bool:
        """Edit the message of a game or challenge that changed, in the server's language
        (post it, for one that has none yet); whether the chat shows it. A running game
        whose message was deleted ends as abandoned."""
        shown = await self.show(item)
        if shown == "deleted" and isinstance(item, GameUpdate) and item.game.running:
            await self.abandon(item.game)
        return shown == "shown"

    async def abandon(self, game: Game) -> None:
        """End ``game``, whose message was deleted, as abandoned (under its lock)."""
        ended = await self.games.abandon(game.id)
        if ended is not None:
            await self.pinger.game_changed(ended)

    async def show(self, item: GameUpdate | Challenge) -> Display:
        """:meth:`publish` without the abandoning, so it may run under the game's lock:
        ``deleted`` if Discord says the message was deleted, ``refused`` if Discord
        refused the edit for another reason (logged) or no token could show it."""
        target = item.game if isinstance(item, GameUpdate) else item
        locale = render_game.server_locale(self.client, target)
        content: str | None  # None for a 5×5 layout: an edit then clears the text
        view: discord.ui.View | discord.ui.LayoutView | None
        if isinstance(item, GameUpdate):
            content, view = render_game.game_message(item, locale)
        else:
            content = render_game.challenge_content(item, locale)
            view = render_game.challenge_view(item, locale)
        if target.guest:
            return "shown" if await self._publish_as_guest(target, content, view) else "refused"
        channel = self.client.get_partial_messageable(target.channel_id)
        try:
            if target.message_id is None:
                # The process died between posting the message and storing its id: the
                # channel still has to learn what happened, so say it in a new message.
                sent = await post(channel, content, view)
                if isinstance(target, Game):
                    await self.games.attach_game_message(target, sent.id)
                else:
                    await self.lobby.attach_challenge_message(target, sent.id)
                return "shown"
            message = channel.get_partial_message(target.message_id)
            await message.edit(content=content, view=view, allowed_mentions=NO_MENTIONS)
            return "shown"
        except discord.NotFound:
            log.warning("message %s of %s %s was deleted", target.message_id,
                        type(target).__name__.lower(), target.id)  # fmt: skip
            return "deleted"
        except discord.Forbidden as exc:
            log.warning("cannot update message %s in channel %s, missing permissions: %s",
                        target.message_id, target.channel_id, exc)  # fmt: skip
        except discord.HTTPException as exc:
            log.warning("could not update message %s in channel %s: %s",
                        target.message_id, target.channel_id, exc)  # fmt: skip
        return "refused"

    async def _publish_as_guest(
        self, target: Game | Challenge, content: str | None,
        view: discord.ui.View | discord.ui.LayoutView | None,
    ) -> bool:  # fmt: skip
        kind = kind_of(target)
        if target.message_id is None:  # started on a page: posted through the channel's token
            posted = await self.tokens.post(target, content=content, view=view)
            if posted is not None:
                if isinstance(target, Game):
                    await self.games.attach_game_message(target, posted)
                else:
                    await self.lobby.attach_challenge_message(target, posted)
            shown = posted is not None
        else:
            shown = await self.tokens.edit(kind, target.id, target.message_id, content=content,
                                           view=view)  # fmt: skip
        await self.tokens.shown(target)  # closed now: its tokens go
        if not shown:
            log.info("%s %s: no valid token to show its change; its message shows it at the "
                     "next click", kind, target.id)  # fmt: skip
        return shown

    async def retire(self, update: GameUpdate, message_id: int) -> None:
        """Turn an old board of the game (posted again since) into a pointer to the live
        one: its buttons off, so a click there never lands on a board nobody watches."""
        game = update.game
        if game.guest:
            return  # never posted again: /ttt board needs a server that added ttt
        live = render_game.message_link(game.guild_id, game.channel_id, game.message_id)
        locale = render_game.server_locale(self.client, game)
        content, view = render_game.retired_message(update, live, locale)
        message = self.client.get_partial_messageable(game.channel_id).get_partial_message(
            message_id
        )
        try:
            await message.edit(content=content, view=view, allowed_mentions=NO_MENTIONS)
        except discord.HTTPException as exc:  # deleted already: nothing left to click there
            log.info("game %s: old board %s not disabled (%s)", game.id, message_id, exc)

    async def message_gone(self, game: Game) -> bool:
        """True if Discord says the game's message no longer exists (never known for a
        guest's game: the bot cannot read that channel)."""
        if game.message_id is None or game.guest:
            return False
        channel = self.client.get_partial_messageable(game.channel_id)
        try:
            await channel.fetch_message(game.message_id)
        except discord.NotFound:
            return True
        except discord.HTTPException:
            return False
        return False
