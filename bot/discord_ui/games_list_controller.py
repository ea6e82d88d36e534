"""``/ttt games`` in Discord: the member's list, privately, and what its buttons do: turn
a page, show a game's board privately (its clicks then go through the game controller as
any board's), accept or decline a challenge through the lobby as the challenge's own
buttons do, and show the change on the challenge's message (both through
:class:`~bot.discord_ui.challenge_answers.ChallengeAnswers`, as a reminder DM's)."""

from __future__ import annotations

import discord

from bot.core.my_games import MyGames
from bot.core.refusals import Refusal
from bot.discord_ui import render_game
from bot.discord_ui.challenge_answers import ChallengeAnswers
from bot.discord_ui.custom_ids import AcceptClick, DeclineClick, GamesPageClick, PrivateBoardClick
from bot.discord_ui.render_common import message_link
from bot.discord_ui.render_games_list import ListMessage, games_list
from bot.discord_ui.responder import NO_MENTIONS, Responder
from bot.i18n import text


class GamesListController:
    def __init__(
        self, my_games: MyGames, answers: ChallengeAnswers, responder: Responder,
        client: discord.Client,
    ) -> None:  # fmt: skip
        self.my_games = my_games
        self.answers = answers
        self.responder = responder
        self.client = client

    def _guild_name(self, guild_id: int) -> str | None:
        """A server's name, where this process's cache has it (a gateway shard of it)."""
        guild = self.client.get_guild(guild_id)
        return guild.name if guild is not None else None

    async def _list(
        self, interaction: discord.Interaction, page: int, note: str | None = None
    ) -> ListMessage:
        entries = await self.my_games.of(interaction.user.id)
        return games_list(entries, interaction.user.id, page, interaction.locale,
                          self._guild_name, note)  # fmt: skip

    async def on_games(self, interaction: discord.Interaction) -> None:
        """``/ttt games``: the first page, privately."""
        async with self.responder.answering(interaction):
            shown = await self._list(interaction, 0)
            await interaction.response.send_message(
                content=shown.content, embed=shown.embed or discord.utils.MISSING,
                view=shown.view or discord.utils.MISSING, ephemeral=True,
                allowed_mentions=NO_MENTIONS,
            )  # fmt: skip

    async def _show(self, interaction: discord.Interaction, shown: ListMessage) -> None:
        """The list's message, read again (a page turned, a challenge answered): not a
        board's hot path, so discord.py's own edit, which takes embeds."""
        await interaction.response.edit_message(
            content=shown.content, embeds=[] if shown.embed is None else [shown.embed],
            view=shown.view, allowed_mentions=NO_MENTIONS,
        )  # fmt: skip

    async def on_page(self, interaction: discord.Interaction, click: GamesPageClick) -> None:
        async with self.responder.answering(interaction):
            if click.user_id != interaction.user.id:
                raise Refusal("games.not_yours")
            await self._show(interaction, await self._list(interaction, click.page))

    async def on_board(self, interaction: discord.Interaction, click: PrivateBoardClick) -> None:
        """A game's board, privately, with its buttons: where its own message is out of
        reach or days behind (a DM between members after its last click's 15 minutes)."""
        async with self.responder.answering(interaction):
            update = await self.my_games.board(click.game_id, interaction.user.id)
            game = update.game
            content, view = render_game.game_message(update, interaction.locale)
            link = message_link(game.guild_id, game.channel_id, game.message_id)
            note = text("games.private_board", interaction.locale, link=link)
            if isinstance(view, discord.ui.LayoutView):  # a 5×5 board: no content at all
                (container,) = view.children
                assert isinstance(container, discord.ui.Container)
                container.add_item(discord.ui.TextDisplay(note))
                await interaction.response.send_message(view=view, ephemeral=True,
                                                        allowed_mentions=NO_MENTIONS)  # fmt: skip
                return
            await interaction.response.send_message(f"{content}\n-# {note}", view=view,
                                                    ephemeral=True,
                                                    allowed_mentions=NO_MENTIONS)  # fmt: skip

    async def on_accept(self, interaction: discord.Interaction, click: AcceptClick) -> None:
        """Accept from the list: the game starts on the challenge's message, shown there
        (over REST, or through the challenge's token where only an install reaches);
        the list says where, and is read again."""
        async with self.responder.answering(interaction):
            update = await self.answers.accept(click.challenge_id, interaction.user.id)
            game = update.game
            link = message_link(game.guild_id, game.channel_id, game.message_id)
            note = text("games.accepted", interaction.locale, link=link)
            await self._show(interaction, await self._list(interaction, 0, note))

    async def on_decline(self, interaction: discord.Interaction, click: DeclineClick) -> None:
        async with self.responder.answering(interaction):
            await self.answers.decline(click.challenge_id, interaction.user.id)
            note = text("games.declined", interaction.locale)
            await self._show(interaction, await self._list(interaction, 0, note))
