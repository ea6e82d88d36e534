"""Games in Discord: /ttt start, resign and help, and the board and challenge buttons.
Each asks the game service once and shows what it returns."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable

import discord

from bot.core.lobby import Lobby
from bot.core.models import Challenge, Game, GameUpdate, Variant
from bot.core.refusals import Refusal
from bot.core.service import First, GameService
from bot.discord_ui import render_game
from bot.discord_ui.custom_ids import AcceptClick, CellClick, DeclineClick, HintClick
from bot.discord_ui.publisher import Publisher
from bot.discord_ui.render_common import challenge_mentions
from bot.discord_ui.render_help import help_messages
from bot.discord_ui.renderers import renderer_of
from bot.discord_ui.reply_tokens import ReplyTokens
from bot.discord_ui.responder import (
    NO_MENTIONS,
    Responder,
    answer_by,
    expired,
    in_time,
    is_guest,
    note_expired,
    outside_private_channel,
    public_locale,
    role_ids,
    settings_guild,
)
from bot.discord_ui.turn_pinger import TurnPinger
from bot.discord_ui.update_answer import clicked_board, on_private_message, update_message
from bot.i18n import text

log = logging.getLogger(__name__)

Offer = Callable[[discord.Interaction], Awaitable[None]]

UNKNOWN_MESSAGE = 10008
IN_FLIGHT = 5.0
"""Seconds after a stored change during which its own answer may still be landing (the
3 s Discord allows, a bot reply shown after the member's move, and a margin)."""


class GameController:
    def __init__(
        self, games: GameService, lobby: Lobby, responder: Responder, publisher: Publisher,
        pinger: TurnPinger, tokens: ReplyTokens, *, offer_reminders: Offer | None = None,
    ) -> None:  # fmt: skip
        self.games = games
        self.lobby = lobby
        self.responder = responder
        self.publisher = publisher
        self.pinger = pinger
        self.tokens = tokens
        self.offer_reminders = offer_reminders
        """After a correspondence challenge is made or accepted: the member's first one
        offers "your move" reminders, privately."""

    # --- commands -----------------------------------------------------------------------

    async def on_start(
        self,
        interaction: discord.Interaction,
        opponent: discord.abc.User | None,
        difficulty: str | None,
        first: First,
        size: int | None = None,
        *,
        open_challenge: bool = False,
        variant: Variant = "classic",
        days_per_move: int | None = None,
    ) -> None:
        async with self.responder.answering(interaction):
            if interaction.channel_id is None:
                raise Refusal("start.not_in_guild")
            if open_challenge and opponent is not None:
                raise Refusal("start.open_and_named")
            self.responder.require_channel_permissions(interaction)
            guest = is_guest(interaction)
            rules = await self.games.policies.policy(settings_guild(interaction))
            vs_bot = not open_challenge and (
                opponent is None or opponent.id == self.games.bot_user_id
            )
            if opponent is not None and not vs_bot:
                if opponent.bot:
                    raise Refusal("start.other_bot", name=opponent.display_name)
                if interaction.guild_id is not None and not isinstance(opponent, discord.Member):
                    # Discord resolves a user option to a member only if they are one
                    raise Refusal("start.not_a_member", name=opponent.mention)
                if outside_private_channel(interaction, opponent.id):
                    raise Refusal("start.not_in_dm", name=opponent.mention)
            where = {
                "guild_id": interaction.guild_id, "channel_id": interaction.channel_id,
                "user_id": interaction.user.id, "first": first,
                "size": size or rules.default_size, "role_ids": role_ids(interaction),
                "locale": str(locale.value) if (locale := public_locale(interaction)) else None,
                "guest": guest, "variant": variant, "days_per_move": days_per_move,
            }  # fmt: skip
            by = answer_by(interaction)
            for attempt in (1, 2):
                try:
                    if vs_bot:
                        level = difficulty or rules.default_difficulty
                        update = await self.lobby.start_bot_game(
                            **where,  # type: ignore[arg-type]
                            difficulty=level,
                            answer_by=by,
                        )
                        await self._send_game(interaction, update)
                    else:
                        named = opponent.id if opponent is not None else None
                        challenge = await self.lobby.challenge(**where, opponent_id=named)  # type: ignore[arg-type]
                        await self._send_challenge(interaction, challenge)
                        if days_per_move and self.offer_reminders is not None:
                            await self.offer_reminders(interaction)
                    return
                except Refusal as refusal:
                    # A game whose message a moderator deleted would block the channel
                    # until its timeout: check, end it, and start this one instead.
                    blocking = refusal.params.get("game")
                    if attempt == 2 or not isinstance(blocking, Game):
                        raise
                    if not await self.publisher.message_gone(blocking):
                        raise
                    await self._abandon(blocking.id)

    async def on_resign_command(self, interaction: discord.Interaction) -> None:
        async with self.responder.answering(interaction):
            update = await self.games.resign(interaction.user.id, channel_id=interaction.channel_id)
            # privately, and an expired interaction does not keep the board from showing it
            await self.responder.reply_private(interaction, text("resign.done", interaction.locale))
            await self.publisher.publish(update)
            await self.pinger.game_changed(update.game)

    async def on_help(self, interaction: discord.Interaction) -> None:
        async with self.responder.answering(interaction):
            rules = await self.games.policies.policy(settings_guild(interaction))
            guest = is_guest(interaction)
            dm = interaction.guild_id is None and not guest
            first, *more = help_messages(rules, interaction.locale, dm=dm, guest=guest)
            await interaction.response.send_message(first, ephemeral=True)
            for message in more:  # one message holds 2,000 characters
                await interaction.followup.send(message, ephemeral=True)

    # --- buttons ------------------------------------------------------------------------

    async def on_cell(self, interaction: discord.Interaction, click: CellClick) -> None:
        async with self.responder.answering(interaction):
            shown_early = board_gone = False

            async def show_early(update: GameUpdate) -> None:
                # The bot is thinking (a big board): show the member's move now, and the
                # reply when it comes. This runs under the game's lock: a board found
                # deleted is told at once and abandoned below (that needs the lock); an
                # expired interaction is marked, and the message edited below instead.
                nonlocal shown_early, board_gone
                try:
                    await self._edit(interaction, update)
                    shown_early = True
                except discord.NotFound as exc:
                    if exc.code == UNKNOWN_MESSAGE:
                        board_gone = True
                        await self._tell_board_deleted(interaction, update.game.id)
                    else:
                        note_expired(interaction, exc)

            try:
                update = await self.games.play_turn(
                    click.game_id, click.ply, click.cell, interaction.user.id,
                    show_early=show_early, message_id=clicked_board(interaction),
                    answer_by=answer_by(interaction),
                )  # fmt: skip
            except Refusal as refusal:
                current = await self._catch_up(interaction, click.game_id, refusal)
                if current is None:
                    raise
                now = render_game.grid(current.game, current.marks)
                raise Refusal(refusal.key, **refusal.params, now=now) from None
            if board_gone:
                await self._abandon(update.game.id)
                return
            if shown_early:
                await interaction.edit_original_response(
                    **render_game.game_message(
                        update, update.game.locale or public_locale(interaction)
                    )._asdict(),
                    allowed_mentions=NO_MENTIONS,
                )
            elif not await self._update_game(interaction, update):
                return  # the board was deleted meanwhile: the game is abandoned, no ping
            await self._shown(interaction, update)
            await self.pinger.game_changed(update.game, interaction.user.id)

    async def on_resign_button(self, interaction: discord.Interaction, game_id: int) -> None:
        async with self.responder.answering(interaction):
            update = await self.games.resign(
                interaction.user.id, game_id=game_id, message_id=clicked_board(interaction)
            )
            await self._update_game(interaction, update)
            await self._shown(interaction, update)
            await self.pinger.game_changed(update.game)

    async def _shown(self, interaction: discord.Interaction, update: GameUpdate) -> None:
        """After a click's answer showed the game: keep its token (where only a member's
        install reaches), or, for a board ``/ttt games`` showed privately, show the change
        on the game's own message too (over REST, or through the token kept for it: its
        private click's token edits nothing but that private board)."""
        if on_private_message(interaction):
            await self.publisher.publish(update)
        else:
            await self.tokens.shown(update.game, interaction)

    async def on_live(self, interaction: discord.Interaction) -> None:
        """Live board: Discord opens the Activity for the member, in this channel."""
        async with self.responder.answering(interaction):
            await interaction.response.launch_activity()

    async def on_hint(self, interaction: discord.Interaction, click: HintClick) -> None:
        async with self.responder.answering(interaction):

            async def searching() -> None:  # 4×4 and 5×5: say so, answer when done
                await interaction.response.defer(ephemeral=True, thinking=True)

            update, hint = await self.games.hint(
                click.game_id, click.ply, interaction.user.id, searching=searching
            )
            content = renderer_of(update.game.variant).hint_text(
                update.game, hint, interaction.locale, update.marks
            )
            if interaction.response.is_done():
                await interaction.followup.send(content, ephemeral=True)
            else:
                await interaction.response.send_message(content, ephemeral=True)

    async def on_rematch(self, interaction: discord.Interaction, game_id: int) -> None:
        async with self.responder.answering(interaction):
            result = await self.lobby.rematch(
                game_id, interaction.user.id, role_ids=role_ids(interaction),
                answer_by=answer_by(interaction),
            )  # fmt: skip
            if isinstance(result, GameUpdate):
                await self._send_game(interaction, result)
            else:
                await self._send_challenge(interaction, result)

    async def on_accept(self, interaction: discord.Interaction, click: AcceptClick) -> None:
        async with self.responder.answering(interaction):
            message_id = interaction.message.id if interaction.message else None
            try:
                update = await self.lobby.accept(
                    click.challenge_id, interaction.user.id, message_id, role_ids(interaction)
                )
            except Refusal:
                # Accepted from /ttt games where no token could show it (a DM between
                # members): this message is its game's board, behind; show it as it is.
                started = await self.lobby.started_from(click.challenge_id)
                if started is None or message_id is None or started.game.message_id != message_id:
                    raise
                log.info("challenge %s: accepted elsewhere; its message brought up to date",
                         click.challenge_id)  # fmt: skip
                update = started
            await self._update_game(interaction, update)
            if update.game.guest:
                await self.tokens.forget("challenge", click.challenge_id)
            await self.tokens.shown(update.game, interaction)
            await self.pinger.game_changed(update.game, interaction.user.id)
            if update.game.days_per_move and self.offer_reminders is not None:
                await self.offer_reminders(interaction)

    async def on_decline(self, interaction: discord.Interaction, click: DeclineClick) -> None:
        async with self.responder.answering(interaction):
            challenge = await self.lobby.decline(click.challenge_id, interaction.user.id)
            answer = interaction.response.edit_message(
                content=render_game.challenge_content(
                    challenge, challenge.locale or public_locale(interaction)
                ),
                view=None,
                allowed_mentions=NO_MENTIONS,
            )
            if not await in_time(interaction, answer):  # stored: show it all the same
                log.info("challenge %s: its click went unanswered; editing its message",
                         challenge.id)  # fmt: skip
                await self.publisher.publish(challenge)
            await self.tokens.shown(challenge)  # declined: its tokens go

    async def _catch_up(
        self, interaction: discord.Interaction, game_id: int, refusal: Refusal
    ) -> GameUpdate | None:
        """For a click refused because its board is behind what is stored (a failure
        between storing a move and showing it, or a write whose outcome was unknown): the
        game as stored, for the private answer to show, and the stored board shown on the
        message before that answer goes out. The router only lets through buttons still
        on the message, so a stale ply here means the message itself is behind, not the
        member's client; unless the change is so recent that its own answer may still be
        on its way (a double click), which is left to land. None for other refusals."""
        if refusal.key not in ("move.stale", "move.over") or interaction.message is None:
            return None
        current = await self.games.current(game_id)
        if current is not None and on_private_message(interaction):
            await self._update_game(interaction, current)  # a private board: as it stands
            return current
        if current is None or current.game.message_id != interaction.message.id:
            return None
        # A guest's game may have ended while no token could show it: catch up at once.
        if current.game.guest or self.games.clock() - current.game.updated_at >= IN_FLIGHT:
            log.info("game %s: its message was behind the stored board; brought up to date",
                     game_id)  # fmt: skip
            await self._update_game(interaction, current)
        return current

    # --- showing ------------------------------------------------------------------------

    async def _send_game(self, interaction: discord.Interaction, update: GameUpdate) -> None:
        try:
            response = await interaction.response.send_message(
                **render_game.game_message(
                    update, update.game.locale or public_locale(interaction)
                )._asdict(),
                allowed_mentions=NO_MENTIONS,
            )
        except discord.HTTPException as exc:
            # Nobody will ever see this game: do not let it hold the channel.
            log.warning("game %s: could not post its message (%s); abandoning it",
                        update.game.id, exc)  # fmt: skip
            await self.games.abandon(update.game.id)
            note_expired(interaction, exc)  # then too late for the refusal's answer as well
            raise Refusal("start.not_posted") from None  # the member still gets an answer
        if response.message_id is not None:
            await self.games.attach_game_message(update.game, response.message_id)
        await self.tokens.shown(update.game, interaction)

    async def _send_challenge(self, interaction: discord.Interaction, challenge: Challenge) -> None:
        view = render_game.challenge_view(challenge, challenge.locale or public_locale(interaction))
        assert view is not None  # a new challenge is pending
        try:
            response = await interaction.response.send_message(
                render_game.challenge_content(
                    challenge, challenge.locale or public_locale(interaction)
                ),
                view=view,
                allowed_mentions=challenge_mentions(challenge),
            )
        except discord.HTTPException as exc:
            log.warning("challenge %s: could not post it (%s); withdrawing it", challenge.id, exc)
            await self.lobby.expire(challenge)
            note_expired(interaction, exc)
            raise Refusal("start.not_posted") from None
        if response.message_id is not None:
            await self.lobby.attach_challenge_message(challenge, response.message_id)
        await self.tokens.shown(challenge, interaction)

    async def _edit(self, interaction: discord.Interaction, update: GameUpdate) -> None:
        """Answer a click on the game's message by showing the game as it is now."""
        await update_message(
            interaction,
            **render_game.game_message(
                update, update.game.locale or public_locale(interaction)
            )._asdict(),
            allowed_mentions=NO_MENTIONS,
        )

    async def _tell_board_deleted(self, interaction: discord.Interaction, game_id: int) -> None:
        log.warning("message of game %s was deleted", game_id)
        with contextlib.suppress(discord.HTTPException):  # the click is answered all the same
            await self.responder.reply_private(
                interaction, text("game.board_deleted", interaction.locale)
            )

    async def _update_game(self, interaction: discord.Interaction, update: GameUpdate) -> bool:
        """Answer the click with the game as it is now; False if its board was deleted
        meanwhile (by a moderator: the game is then abandoned, the member told). One whose
        interaction expired (now, or at an earlier answer) is shown by editing the message
        directly."""
        if not expired(interaction):
            try:
                await self._edit(interaction, update)
                return True
            except discord.NotFound as exc:
                if exc.code == UNKNOWN_MESSAGE:
                    await self._abandon(update.game.id)
                    await self._tell_board_deleted(interaction, update.game.id)
                    return False
                if not note_expired(interaction, exc):
                    log.warning("interaction %s: its answer was refused (%s)", interaction.id,
                                exc)  # fmt: skip
        # The move is stored: show it by editing the message itself, or the board would lag.
        log.info("game %s: its click went unanswered; editing its message", update.game.id)
        await self.publisher.publish(update)
        return True

    async def _abandon(self, game_id: int) -> None:
        ended = await self.games.abandon(game_id)
        if ended is not None:
            await self.pinger.game_changed(ended)
