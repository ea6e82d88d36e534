"""Answers interactions: asks the service, renders what it returns, replies exactly once.

Every path ends in a response Discord accepts, so no click shows 'This interaction failed':
refusals become private replies, and anything unexpected a private apology and a log line.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import discord

from bot import render
from bot.models import Challenge, Game
from bot.service import First, Refusal
from bot.texts import text

if TYPE_CHECKING:
    from bot.client import TTTBot

log = logging.getLogger(__name__)

NO_MENTIONS = discord.AllowedMentions.none()
CHANNEL_PERMISSIONS = (
    ("view_channel", "perm.view_channel"),
    ("send_messages", "perm.send_messages"),
    ("embed_links", "perm.embed_links"),
)


def role_ids(interaction: discord.Interaction) -> list[int]:
    """The clicker's roles in the server (none outside one)."""
    return [role.id for role in getattr(interaction.user, "roles", ())]


class Controller:
    def __init__(self, bot: TTTBot) -> None:
        self.bot = bot

    @property
    def service(self):
        return self.bot.service

    # --- commands -----------------------------------------------------------------------

    async def on_start(
        self,
        interaction: discord.Interaction,
        opponent: discord.abc.User | None,
        difficulty: str | None,
        first: First,
        size: int | None = None,
    ) -> None:
        async with self.answering(interaction):
            if interaction.channel_id is None:
                raise Refusal("start.not_in_guild")
            self.require_channel_permissions(interaction)
            me = self.bot.user
            rules = await self.service.policy(interaction.guild_id)
            common = {
                "guild_id": interaction.guild_id,
                "channel_id": interaction.channel_id,
                "user_id": interaction.user.id,
                "first": first,
                "size": size or rules.default_size,
                "role_ids": role_ids(interaction),
            }
            vs_bot = opponent is None or (me is not None and opponent.id == me.id)
            if not vs_bot and opponent.bot:
                raise Refusal("start.other_bot", name=opponent.display_name)
            for attempt in (1, 2):
                try:
                    if vs_bot:
                        level = difficulty or rules.default_difficulty
                        game = await self.service.start_bot_game(**common, difficulty=level)
                        await self._send_game(interaction, game)
                    else:
                        challenge = await self.service.challenge(**common, opponent_id=opponent.id)
                        await self._send_challenge(interaction, challenge)
                    return
                except Refusal as refusal:
                    # A game whose message a moderator deleted would block the channel
                    # until its timeout: check, end it, and start this one instead.
                    blocking = refusal.params.get("game")
                    if attempt == 2 or not isinstance(blocking, Game):
                        raise
                    if not await self._message_gone(blocking):
                        raise
                    await self.service.abandon(blocking.id)

    async def on_resign_command(self, interaction: discord.Interaction) -> None:
        async with self.answering(interaction):
            game = await self.service.resign(interaction.user.id, channel_id=interaction.channel_id)
            await interaction.response.send_message(
                text("resign.done", interaction.locale), ephemeral=True
            )
            await self.publish(game)

    async def on_help(self, interaction: discord.Interaction) -> None:
        settings = await self.service.policy(interaction.guild_id)
        await interaction.response.send_message(
            text(
                "help",
                interaction.locale,
                default=text(
                    f"choice.difficulty.{settings.default_difficulty}", interaction.locale
                ),
                challenge=int(settings.challenge_timeout),
                turn=int(settings.turn_timeout),
            ),
            ephemeral=True,
        )

    # --- buttons ------------------------------------------------------------------------

    async def on_cell(
        self, interaction: discord.Interaction, game_id: int, ply: int, cell: int
    ) -> None:
        async with self.answering(interaction):
            game = await self.service.play(game_id, ply, cell, interaction.user.id)
            reply = asyncio.ensure_future(self.service.bot_reply(game))
            try:
                game = await asyncio.wait_for(asyncio.shield(reply), self.bot.settings.defer_after)
            except TimeoutError:
                # The bot is thinking (a big board): show the member's move now, and the
                # reply when it comes.
                await self._update_game(interaction, game)
                game = await reply
                await interaction.edit_original_response(
                    **await self._game_message(game, interaction.guild_locale),
                    allowed_mentions=NO_MENTIONS,
                )
                return
            await self._update_game(interaction, game)

    async def on_vanished_button(self, interaction: discord.Interaction) -> None:
        async with self.answering(interaction):
            raise Refusal("move.stale")

    async def on_resign_button(self, interaction: discord.Interaction, game_id: int) -> None:
        async with self.answering(interaction):
            game = await self.service.resign(interaction.user.id, game_id=game_id)
            await self._update_game(interaction, game)

    async def on_rematch(self, interaction: discord.Interaction, game_id: int) -> None:
        async with self.answering(interaction):
            result = await self.service.rematch(
                game_id, interaction.user.id, role_ids=role_ids(interaction)
            )
            if isinstance(result, Game):
                await self._send_game(interaction, result)
            else:
                await self._send_challenge(interaction, result)

    async def on_accept(self, interaction: discord.Interaction, challenge_id: int) -> None:
        async with self.answering(interaction):
            message_id = interaction.message.id if interaction.message else None
            game = await self.service.accept(challenge_id, interaction.user.id, message_id)
            await self._update_game(interaction, game)

    async def on_decline(self, interaction: discord.Interaction, challenge_id: int) -> None:
        async with self.answering(interaction):
            challenge = await self.service.decline(challenge_id, interaction.user.id)
            await interaction.response.edit_message(
                content=render.challenge_content(challenge, interaction.guild_locale),
                view=None,
                allowed_mentions=NO_MENTIONS,
            )

    # --- showing ------------------------------------------------------------------------

    async def _send_game(self, interaction: discord.Interaction, game: Game) -> None:
        try:
            response = await interaction.response.send_message(
                **await self._game_message(game, interaction.guild_locale),
                allowed_mentions=NO_MENTIONS,
            )  # fmt: skip
        except discord.HTTPException as exc:
            # Nobody will ever see this game: do not let it hold the channel.
            log.warning("game %s: could not post its message (%s); abandoning it", game.id, exc)
            await self.service.abandon(game.id)
            return
        if response.message_id is not None:
            await self.service.attach_game_message(game, response.message_id)

    async def _send_challenge(self, interaction: discord.Interaction, challenge: Challenge) -> None:
        try:
            response = await interaction.response.send_message(
                render.challenge_content(challenge, interaction.guild_locale),
                view=render.challenge_view(challenge, interaction.guild_locale),
                allowed_mentions=discord.AllowedMentions(
                    users=[discord.Object(challenge.opponent_id)], everyone=False, roles=False
                ),
            )
        except discord.HTTPException as exc:
            log.warning("challenge %s: could not post it (%s); withdrawing it", challenge.id, exc)
            await self.service.withdraw(challenge)
            return
        if response.message_id is not None:
            await self.service.attach_challenge_message(challenge, response.message_id)

    async def _update_game(self, interaction: discord.Interaction, game: Game) -> None:
        try:
            await interaction.response.edit_message(
                **await self._game_message(game, interaction.guild_locale),
                allowed_mentions=NO_MENTIONS,
            )
        except discord.NotFound as exc:
            # The interaction expired before our answer (Discord's 10062): the move is
            # stored, so show it by editing the message itself, or the board would lag.
            log.warning("interaction %s expired before its answer (%s); editing the game "
                        "message instead", interaction.id, exc)  # fmt: skip
            await self.publish(game)

    async def _game_message(self, game: Game, locale: object) -> dict[str, object]:
        """Content and buttons of a game message, in the server's emoji set."""
        emoji_set = (await self.service.policy(game.guild_id)).emoji_set
        return {
            "content": render.game_content(game, locale, emoji_set),
            "view": render.game_view(game, locale, emoji_set),
        }

    async def _message_gone(self, game: Game) -> bool:
        """True if Discord says the game's message no longer exists."""
        if game.message_id is None:
            return False
        channel = self.bot.get_partial_messageable(game.channel_id)
        try:
            await channel.fetch_message(game.message_id)
        except discord.NotFound:
            return True
        except discord.HTTPException:
            return False
        return False

    async def publish(self, item: Game | Challenge) -> None:
        """Edit the message of a game or challenge that changed without a click on it
        (a timeout, an expiry, /ttt resign), in the server's language."""
        guild = self.bot.get_guild(item.guild_id) if item.guild_id else None
        locale = guild.preferred_locale if guild is not None else None
        if isinstance(item, Game):
            shown = await self._game_message(item, locale)
            content, view = shown["content"], shown["view"]
        else:
            content = render.challenge_content(item, locale)
            view = render.challenge_view(item, locale)
        channel = self.bot.get_partial_messageable(item.channel_id)
        try:
            if item.message_id is None:
                # The process died between posting the message and storing its id: the
                # channel still has to learn what happened, so say it in a new message.
                sent = await channel.send(content=content, view=view, allowed_mentions=NO_MENTIONS)
                if isinstance(item, Game):
                    await self.service.attach_game_message(item, sent.id)
                else:
                    await self.service.attach_challenge_message(item, sent.id)
                return
            message = channel.get_partial_message(item.message_id)
            await message.edit(content=content, view=view, allowed_mentions=NO_MENTIONS)
        except discord.NotFound:
            log.warning("message %s of %s %s was deleted", item.message_id,
                        type(item).__name__.lower(), item.id)  # fmt: skip
            if isinstance(item, Game) and item.running:
                await self.service.abandon(item.id)
        except discord.Forbidden as exc:
            log.warning("cannot update message %s in channel %s, missing permissions: %s",
                        item.message_id, item.channel_id, exc)  # fmt: skip
        except discord.HTTPException as exc:
            log.warning("could not update message %s in channel %s: %s",
                        item.message_id, item.channel_id, exc)  # fmt: skip

    @staticmethod
    def require_channel_permissions(interaction: discord.Interaction) -> None:
        """Refuse, naming them, when the bot lacks what a game needs in this channel:
        answers reach members regardless, but timeouts and restarts edit or post messages
        on the bot's own account.

        Raises:
            Refusal: ``perm.missing``.
        """
        granted = interaction.app_permissions
        missing = [key for attr, key in CHANNEL_PERMISSIONS if not getattr(granted, attr)]
        if missing:
            raise Refusal("perm.missing", permission_keys=missing)

    # --- answering ----------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def answering(self, interaction: discord.Interaction) -> AsyncIterator[None]:
        """Turn refusals into private replies and failures into an apology; a shutdown
        waits for whatever is inside."""
        try:
            with self.bot.handling():
                yield
        except Refusal as refusal:
            await self._reply_private(interaction, self._refusal_text(refusal, interaction.locale))
        except Exception:
            log.exception("interaction %s failed", interaction.id)
            with contextlib.suppress(discord.HTTPException):
                await self._reply_private(interaction, text("error.generic", interaction.locale))

    async def _reply_private(self, interaction: discord.Interaction, message: str) -> None:
        if interaction.response.is_done():
            await interaction.followup.send(message, ephemeral=True)
        else:
            await interaction.response.send_message(message, ephemeral=True)

    @staticmethod
    def _refusal_text(refusal: Refusal, locale: object) -> str:
        params = dict(refusal.params)
        game = params.pop("game", None)
        challenge = params.pop("challenge", None)
        if "permission_keys" in params:
            keys = params.pop("permission_keys")
            params["permissions"] = ", ".join(text(k, locale) for k in keys)
        if refusal.key == "move.not_your_turn" and game is not None:
            params["player"] = render.player_name(game, params.pop("mark"), locale)
        elif game is not None:
            params["link"] = render.message_link(game.guild_id, game.channel_id, game.message_id)
        elif challenge is not None:
            params["link"] = render.message_link(
                challenge.guild_id, challenge.channel_id, challenge.message_id
            )
        elif refusal.key == "start.busy_challenge":
            params["link"] = ""
        return text(refusal.key, locale, **params)
