"""Interaction tokens: how a game is shown where only a member's own install reaches.

In a DM between members, a group DM, or a server that did not add ttt, the bot may not
post or edit in the channel (Discord answers 403 Missing Access): every message is an
interaction's answer, and a change nobody clicked for (a turn timeout, an expiry,
``/ttt resign``) is shown through the webhook of the latest interaction that showed the
game, which Discord accepts for 15 minutes after that interaction. Each click brings a
fresh token, so a game lasts as long as its players click; a change that falls due after
the last token expired is stored, and its board shows it at the next click on it.

The tokens are kept in the store (any process, or a restarted one, can use them). They
are credentials: never logged, forgotten when their game or challenge closes.

Each such channel's latest answered interaction is kept too (kind ``channel``): a game
the Activity's page starts there, which no click brought, is posted as a follow-up
through it while it is valid, and then shown through it like a clicked one.
"""

from __future__ import annotations

import logging
import time
from typing import Literal

import discord

from bot.core.models import Challenge, Game
from bot.core.repository import Store
from bot.core.service import Clock
from bot.discord_ui.responder import expired, is_guest

log = logging.getLogger(__name__)

Kind = Literal["game", "challenge", "channel"]
MARGIN = 60.0
"""Seconds before Discord's 15 minutes that a token stops being used: the clocks of
Discord and of this machine, and a request in flight."""


def kind_of(item: Game | Challenge) -> Kind:
    return "game" if isinstance(item, Game) else "challenge"


class ReplyTokens:
    def __init__(self, client: discord.Client, store: Store, clock: Clock = time.time) -> None:
        self.client = client
        self.store = store
        self.clock = clock

    async def keep(self, kind: Kind, item_id: int, interaction: discord.Interaction) -> None:
        """Remember the token of an interaction whose answer showed the game or challenge
        (its original message is the board)."""
        expires = interaction.expires_at.timestamp() - MARGIN
        await self.store.keep_token(kind, item_id, interaction.token, expires, self.clock())

    async def channel_answered(self, interaction: discord.Interaction) -> None:
        """Keep the token of an interaction answered where only a member's own install
        reaches as its channel's (see :meth:`post`)."""
        channel_id = interaction.channel_id
        if (channel_id is None or not interaction.response.is_done() or expired(interaction)
                or not is_guest(interaction)):  # fmt: skip
            return
        await self.keep("channel", channel_id, interaction)

    async def post(
        self, item: Game | Challenge, *, content: str | None,
        view: discord.ui.View | discord.ui.LayoutView | None,
    ) -> int | None:  # fmt: skip
        """Post a guest's game or challenge that no interaction showed (one a page
        started) as a follow-up of its channel's latest interaction, and keep that token
        as the item's; its message id, or None when no token of the channel is valid (or
        Discord refuses it: expired, or its follow-ups used up)."""
        now = self.clock()
        kept = await self.store.kept_token("channel", item.channel_id, now)
        application_id = self.client.application_id
        if kept is None or application_id is None:
            return None
        token, expires = kept
        webhook = discord.Webhook.partial(application_id, token, client=self.client)
        mentions = discord.AllowedMentions.none()
        try:
            if isinstance(view, discord.ui.LayoutView):  # a 5×5 board: no content at all
                sent = await webhook.send(view=view, allowed_mentions=mentions, wait=True)
            elif view is None:
                sent = await webhook.send(content or "", allowed_mentions=mentions, wait=True)
            else:
                sent = await webhook.send(content or "", view=view, allowed_mentions=mentions,
                                          wait=True)  # fmt: skip
        except discord.HTTPException as exc:
            log.info("channel %s: its token was refused (%s %s)", item.channel_id, exc.status,
                     exc.code)  # fmt: skip
            if exc.status in (401, 404):
                await self.forget("channel", item.channel_id)
            return None
        await self.store.keep_token(kind_of(item), item.id, token, expires, now)
        return sent.id

    async def carry(self, challenge_id: int, game: Game) -> None:
        """A guest's challenge accepted from elsewhere (``/ttt games``): its game is shown
        on its message through the challenge's latest token, kept now as the game's."""
        if not game.guest:
            return
        now = self.clock()
        kept = await self.store.kept_token("challenge", challenge_id, now)
        if kept is not None:
            await self.store.keep_token("game", game.id, kept[0], kept[1], now)
        await self.forget("challenge", challenge_id)

    async def forget(self, kind: Kind, item_id: int) -> None:
        await self.store.forget_token(kind, item_id)

    async def shown(
        self, item: Game | Challenge, interaction: discord.Interaction | None = None
    ) -> None:
        """After a guest's game or challenge was shown (by ``interaction``'s answer, or
        through a kept token): keep that interaction's token while the item is open (a
        timeout or expiry is shown through it), forget its tokens once it has closed. An
        interaction whose answer Discord refused as expired leaves the kept one: its own
        token, never acknowledged, shows nothing."""
        if not item.guest:
            return
        kind = kind_of(item)
        if item.running if isinstance(item, Game) else item.pending:
            if interaction is not None and not expired(interaction):
                await self.keep(kind, item.id, interaction)
        else:
            await self.forget(kind, item.id)

    async def edit(
        self, kind: Kind, item_id: int, message_id: int | None, *, content: str | None,
        view: discord.ui.View | discord.ui.LayoutView | None,
    ) -> bool:  # fmt: skip
        """Edit the item's message through its latest token; False when none is valid
        (or Discord no longer accepts it, which then forgets it)."""
        token = await self.store.token_of(kind, item_id, self.clock())
        application_id = self.client.application_id
        if token is None or message_id is None or application_id is None:
            return False
        webhook = discord.Webhook.partial(application_id, token, client=self.client)
        try:
            # By id: an interaction's webhook may edit the message its answer showed.
            mentions = discord.AllowedMentions.none()
            if isinstance(view, discord.ui.LayoutView):  # a 5×5 board: no content at all
                await webhook.edit_message(message_id, view=view, allowed_mentions=mentions)
            else:
                await webhook.edit_message(
                    message_id, content=content, view=view, allowed_mentions=mentions
                )
        except discord.HTTPException as exc:
            log.info("%s %s: its token was refused (%s %s)", kind, item_id, exc.status, exc.code)
            if exc.status in (401, 404):
                await self.forget(kind, item_id)
            return False
        return True
