"""The live board's "My games": the member's running games and open challenges in every
place they play, from the same core method as ``/ttt games``
(:class:`~bot.core.my_games.MyGames`), in its order.

Route (under ``/api`` and ``/.proxy/api``; docs/develop/activity-api.md):

- ``GET my-games``: ``{"entries": [Entry…], "texts": {...}}``. A read, as ``GET games``
  is: one query of the store, and the opponents' names from the profiles the page's
  games already keep (:meth:`~bot.web.discord_auth.DiscordAuth.user`); no budget of its
  own. An entry of the session's channel opens on this board (``here``); the others
  link to their message in Discord. The list is the session's member's alone: another
  server's games are said to be there, never named on a board anyone else sees.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from bot.core.models import Game
from bot.core.my_games import ORDER, Listed, MyGames
from bot.core.variants import variant_of
from bot.i18n import text
from bot.web.discord_auth import DiscordAuth, avatar_url, display_name
from bot.web.page_text import plain
from bot.web.sessions import Gate, Session

PLACES = ("here", "server", "dm", "private")
"""Where an entry is played, as the page says it: this Activity's channel, another
channel of a server, the member's DMs with ttt, a DM or group DM between members."""
TEXTS = ("title", "none", "open", "in_discord", *(f"place.{p}" for p in PLACES))
SECTIONS = {"you": "games.you", "opponent": "games.opponent", "to_you": "games.challenges",
            "from_you": "games.challenges"}  # fmt: skip


class MyGamesApi:
    def __init__(self, *, my_games: MyGames, gate: Gate, auth: DiscordAuth) -> None:
        self.my_games = my_games
        self.gate = gate
        self.auth = auth

    def routes(self, prefix: str) -> list[web.RouteDef]:
        return [web.get(f"{prefix}/my-games", self.list)]

    async def list(self, request: web.Request) -> web.Response:
        header = request.headers.get("Authorization", "")
        session = await self.gate.read(header.removeprefix("Bearer ").strip() or None)
        entries = await self.my_games.of(session.user_id)
        texts = {f"my_games.{key}": plain(text(f"web.my_games.{key}", session.locale))
                 for key in TEXTS}  # fmt: skip
        texts |= {f"my_games.section.{w}": plain(text(SECTIONS[w], session.locale))
                  for w in ORDER}  # fmt: skip
        shown = [await self._entry(entry, session) for entry in entries]
        return web.json_response({"entries": shown, "texts": texts})

    async def _entry(self, entry: Listed, session: Session) -> dict[str, Any]:
        item, locale = entry.item, session.locale
        game = entry.game
        sized = variant_of(item.variant).sized
        shape = text(f"choice.size.{item.size}" if sized else "web.ultimate.name", locale)
        pace = text("games.live" if item.days_per_move is None
                    else f"choice.pace.{item.days_per_move}", locale)  # fmt: skip
        here = item.channel_id == session.channel_id
        where = ("here" if here else "private" if item.guest and item.guild_id is None
                 else "dm" if item.guild_id is None else "server")  # fmt: skip
        link = None
        if item.message_id is not None:
            link = (f"https://discord.com/channels/{item.guild_id or '@me'}/{item.channel_id}"
                    f"/{item.message_id}")  # fmt: skip
        return {
            "kind": "game" if game is not None else "challenge",
            "id": str(item.id), "waiting": entry.waiting, "variant": item.variant,
            "size": item.size, "shape": shape, "pace": pace, "days_per_move": item.days_per_move,
            "deadline": entry.deadline, "opponent": await self._opponent(entry, game, locale),
            "place": where, "here": here and game is not None, "link": link,
        }  # fmt: skip

    async def _opponent(
        self, entry: Listed, game: Game | None, locale: str
    ) -> dict[str, Any] | None:
        if entry.opponent_id is None:
            return None  # an open challenge: anyone in its channel
        if game is not None and game.bot_side is not None:
            level = text(f"choice.difficulty.{game.difficulty}", locale)
            return {"id": str(entry.opponent_id), "name": text("bot.name", locale,
                    difficulty=level), "avatar": None, "bot": True}  # fmt: skip
        user = await self.auth.user(entry.opponent_id)
        return {"id": str(entry.opponent_id), "name": display_name(user),
                "avatar": avatar_url(user), "bot": False}  # fmt: skip
