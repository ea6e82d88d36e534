"""Where a page starts a game, as the chat knows it from the interaction: the member's
roles in the server (for its start rules), and whether only the member's own install of
ttt reaches there (a DM or group DM between members, a server that did not add ttt: a
*guest*'s game, shown only through interaction tokens, under no server's settings).

An interaction carries both; a page has only its session. So the bot's token asks
Discord, once per :data:`FRESH_FOR` seconds for each member and place: the member in the
server (``GET /guilds/{guild}/members/{user}``, refused to a bot the server did not add),
or the channel outside servers (``GET /channels/{channel}``, refused to a bot that is not
in that DM)."""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.i18n import text
from bot.web.bot_rest import BotRest
from bot.web.errors import WebRefusal
from bot.web.sessions import Session

log = logging.getLogger(__name__)
FRESH_FOR = 60.0
"""Seconds a member's roles are trusted: a role given or taken shows within a minute."""
KNOWN_PLACES = 10_000
MISSING_ACCESS, UNKNOWN_GUILD, UNKNOWN_CHANNEL = 50001, 10004, 10003


@dataclass(frozen=True, slots=True)
class Place:
    guest: bool
    """Only the member's own install reaches here: the bot can neither post nor edit."""
    role_ids: tuple[int, ...] = ()


class Places:
    def __init__(self, bot: BotRest, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.bot = bot
        """The bot's REST client: these calls wait for its rate limits as all of its do."""
        self.clock = clock
        self._known: OrderedDict[tuple[int, int], tuple[float, Place]] = OrderedDict()

    async def of(self, session: Session) -> Place:
        """The place the session's page is in, as :data:`FRESH_FOR` seconds ago at most.

        Raises:
            WebRefusal: 403 for a member no longer in the server; 502 when Discord does
                not answer.
        """
        key = (session.guild_id or 0, session.user_id if session.guild_id else session.channel_id)
        known = self._known.get(key)
        if known is not None and known[0] > self.clock():
            self._known.move_to_end(key)
            return known[1]
        if session.guild_id is not None:
            place = await self._member(session.guild_id, session.user_id, session.locale)
        else:
            place = await self._channel(session.channel_id)
        self._known[key] = (self.clock() + FRESH_FOR, place)
        if len(self._known) > KNOWN_PLACES:
            self._known.popitem(last=False)
        return place

    async def _member(self, guild_id: int, user_id: int, locale: str) -> Place:
        status, body = await self._get("/guilds/{guild_id}/members/{user_id}",
                                       guild_id=guild_id, user_id=user_id)  # fmt: skip
        if status == 200:
            return Place(False, tuple(int(r) for r in body.get("roles") or ()))
        if _not_added(status, body, UNKNOWN_GUILD):
            return Place(True)
        if status == 404:
            raise WebRefusal(403, "not_member", text("web.not_member", locale))
        raise WebRefusal(502, "discord", "Discord did not answer; try again")

    async def _channel(self, channel_id: int) -> Place:
        status, body = await self._get("/channels/{channel_id}", channel_id=channel_id)
        if status == 200:
            return Place(False)  # a DM with the bot: it posts there itself
        if _not_added(status, body, UNKNOWN_CHANNEL):
            return Place(True)
        raise WebRefusal(502, "discord", "Discord did not answer; try again")

    async def _get(self, path: str, **params: int) -> tuple[int, dict[str, Any]]:
        try:
            return await self.bot.get(path, **params)
        except OSError as exc:
            log.info("activity: Discord did not answer %s (%s)", path.split("/")[1], exc)
            raise WebRefusal(502, "discord", "Discord did not answer; try again") from None


def _not_added(status: int, body: dict[str, Any], unknown: int) -> bool:
    """Discord's answer to a bot outside the place: Missing Access, or (for some) as if
    the place did not exist."""
    return (status, body.get("code")) in ((403, MISSING_ACCESS), (404, unknown))
