"""Showing what a tournament step changed, on the bot's own account: the tournament's
message redrawn (its picture drawn off the event loop), a thread for each new match
(or the tournament's channel where the bot may not create threads) with its Ready
message, the boards of the games that started, and the games ended around their
players (a removal, a correction, a cancel)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Literal

import discord

from bot.core.models import Game
from bot.core.service import GameService
from bot.core.tournaments.models import Match
from bot.core.tournaments.service import TournamentService
from bot.core.tournaments.view import TournamentView
from bot.discord_ui import render_game, render_tournament
from bot.discord_ui.publisher import Publisher, post
from bot.discord_ui.turn_pinger import TurnPinger

log = logging.getLogger(__name__)

NO_MENTIONS = discord.AllowedMentions.none()
ARCHIVE_MINUTES: Literal[1440] = 1440
"""A match thread quiet for a day leaves the channel's thread list (Discord archives it)."""
PUBLIC_THREAD: Literal[11] = 11


class ShownPictures:
    """Which picture each tournament message showed when this process last edited it:
    a guess that saves a request, never the truth. The message is the truth (its
    picture's name carries a hash of the picture): a message this process does not know,
    after a restart or one another process edited, is edited without a file first, and
    its answer says whether the picture must be uploaded."""

    LIMIT = 256
    """Messages remembered: the running tournaments of a process, with room to spare."""

    def __init__(self) -> None:
        self._shown: dict[int, str | None] = {}

    def may_show(self, message_id: int, filename: str) -> bool:
        """Whether ``message_id`` may show ``filename`` already (or nothing is known)."""
        return self._shown.get(message_id, filename) == filename

    def remember(self, message_id: int, filename: str | None) -> None:
        self._shown.pop(message_id, None)  # the latest last: the oldest goes first
        self._shown[message_id] = filename
        if len(self._shown) > self.LIMIT:
            del self._shown[next(iter(self._shown))]


class TournamentPublisher:
    def __init__(
        self, client: discord.Client, tournaments: TournamentService, games: GameService,
        publisher: Publisher, pinger: TurnPinger,
    ) -> None:  # fmt: skip
        self.client = client
        self.tournaments = tournaments
        self.games = games
        self.publisher = publisher
        self.pinger = pinger
        self.shown = ShownPictures()

    async def game_ended(self, game: Game) -> None:
        """A game's ending was shown: if it is a tournament's, take the next step."""
        view = await self.tournaments.game_ended(game)
        if view is not None:
            await self.show(view)

    async def show(self, view: TournamentView, *, answered: int | None = None) -> None:
        """Show everything ``view`` says changed (``answered``: a match whose message the
        interaction's own answer already showed). Never raises: it is all stored, and
        one part that fails (a thread Discord refused) does not hold back the others."""
        t = view.tournament
        steps: list[tuple[str, Callable[[], Awaitable[None]]]] = [
            ("its message", lambda: self.redraw(view))
        ]
        steps += [(f"opening match {m.number}", partial(self._open, view, m))
                  for m in view.opened]  # fmt: skip
        steps += [(f"match {m.number}'s message", partial(self._edit_match, view, m))
                  for m in view.changed if m.id != answered]  # fmt: skip
        steps += [(f"posting game {g.id}", partial(self._post_game, g)) for g in view.new_games]
        steps += [(f"showing game {g.id} ended", partial(self._show_ended, g))
                  for g in view.ended_games]  # fmt: skip
        for what, step in steps:
            try:
                await step()
            except Exception:
                log.exception("tournament %s: %s failed", t.id, what)

    async def _show_ended(self, game: Game) -> None:
        await self.publisher.publish(await self.games.update(game))
        await self.pinger.game_changed(game, follow=False)

    async def redraw(self, view: TournamentView) -> None:
        """The tournament's message as it stands: text, picture and buttons. The picture
        is uploaded only when it is not the one the message shows already."""
        t = view.tournament
        if t.message_id is None:
            return
        locale = t.locale
        content = render_tournament.tournament_content(view, locale)
        picture = await asyncio.to_thread(render_tournament.picture, view, locale)
        message = self.client.get_partial_messageable(t.channel_id).get_partial_message(
            t.message_id
        )
        ui = render_tournament.signup_view(t, locale)
        try:
            if picture is None:
                await message.edit(content=content, view=ui, embed=None, attachments=[],
                                   allowed_mentions=NO_MENTIONS)  # fmt: skip
                self.shown.remember(t.message_id, None)
                return
            if self.shown.may_show(t.message_id, picture.filename):
                # No files and no embed in the edit: Discord keeps both (re-sending the
                # embed would show its picture twice, discord-api-docs#5675). Its answer
                # says which picture the message shows, whoever uploaded it.
                edited = await message.edit(content=content, view=ui,
                                            allowed_mentions=NO_MENTIONS)  # fmt: skip
                shown = render_tournament.shown_picture(edited)
                self.shown.remember(t.message_id, shown)
                if shown == picture.filename:
                    return
            await self._upload(view, message, picture, content, ui)
        except discord.HTTPException as exc:
            log.warning("tournament %s: could not update its message (%s)", t.id, exc)

    async def _upload(
        self, view: TournamentView, message: discord.PartialMessage,
        picture: render_tournament.Picture, content: str, ui: discord.ui.View | None,
    ) -> None:  # fmt: skip
        t = view.tournament
        colour = (await self.games.policies.policy(t.guild_id)).embed_colour
        try:
            await message.edit(
                content=content, view=ui, embed=picture.embed(colour),
                attachments=[picture.file()], allowed_mentions=NO_MENTIONS,
            )  # fmt: skip
            self.shown.remember(message.id, picture.filename)
        except discord.Forbidden:
            # no Attach Files here: the text says it all, without the picture
            log.info("tournament %s: may not attach its picture in channel %s", t.id,
                     t.channel_id)  # fmt: skip
            await message.edit(content=content, view=ui, embed=None, attachments=[],
                               allowed_mentions=NO_MENTIONS)  # fmt: skip
            self.shown.remember(message.id, None)

    async def _open(self, view: TournamentView, match: Match) -> None:
        """A thread for the match, mentioning both players, with its Ready button."""
        t = view.tournament
        locale = t.locale
        where = t.channel_id
        try:  # over REST: the channel need not be in this process's cache (another shard's)
            thread = await self.client.http.start_thread_without_message(
                t.channel_id, name=render_tournament.thread_name(view, match, locale),
                auto_archive_duration=ARCHIVE_MINUTES, type=PUBLIC_THREAD,
            )  # fmt: skip
            where = int(thread["id"])
        except discord.HTTPException as exc:  # no right to, or no channel that has threads
            log.info("tournament %s: no thread for match %s (%s); it is played in the "
                     "channel", t.id, match.number, exc)  # fmt: skip
        sent = await self.client.get_partial_messageable(where).send(
            render_tournament.match_content(view, match, locale),
            view=render_tournament.match_view(match, locale),  # type: ignore[arg-type]
            allowed_mentions=render_tournament.match_mentions(match),
        )
        if not await self.tournaments.place_match(match, where, sent.id):
            await sent.delete()  # another process showed it first

    async def _edit_match(self, view: TournamentView, match: Match) -> None:
        current = next((m for m in view.matches if m.id == match.id), match)
        if current.thread_id is None or current.message_id is None:
            return
        locale = view.tournament.locale
        message = self.client.get_partial_messageable(current.thread_id).get_partial_message(
            current.message_id
        )
        try:
            await message.edit(
                content=render_tournament.match_content(view, current, locale),
                view=render_tournament.match_view(current, locale), allowed_mentions=NO_MENTIONS,
            )  # fmt: skip
        except discord.HTTPException as exc:
            log.info("match %s: could not update its message (%s)", match.id, exc)

    async def _post_game(self, game: Game) -> None:
        update = await self.games.started(game)
        locale = game.locale
        content, layout = render_game.game_message(update, locale)
        sent = await post(self.client.get_partial_messageable(game.channel_id), content, layout)
        if not await self.games.claim_game_message(game, sent.id):
            await sent.delete()  # another process posted it first
            return
        await self.pinger.game_changed(update.game.with_changes(message_id=sent.id))
