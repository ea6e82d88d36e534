"""Signing a member in from the Activity: Discord's OAuth2 code exchanged with the client
secret, the member read with the access token, and the Activity instance checked with
the bot's token (the member must be in it; it names the channel). The secret and the
tokens never leave this module's requests: never in a page, a response body but the
access token the page itself asked for, or a log line."""

from __future__ import annotations

import logging
import re
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import aiohttp

from bot.web.errors import WebRefusal

log = logging.getLogger(__name__)
DISCORD_API = "https://discord.com/api/v10"
TIMEOUT = aiohttp.ClientTimeout(total=5)
KNOWN_USERS = 10_000
UNKNOWN_FOR = 300.0
INSTANCE_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")
"""What an Activity instance id is made of (``i-<launch>-gc-<guild>-<channel>``)."""


@dataclass(frozen=True, slots=True)
class SignedIn:
    access_token: str
    user_id: int
    name: str
    avatar: str | None
    channel_id: int
    guild_id: int | None
    locale: str


def avatar_url(user: dict[str, Any]) -> str | None:
    avatar = user.get("avatar")
    if not avatar:
        return None
    return f"https://cdn.discordapp.com/avatars/{user['id']}/{avatar}.png?size=64"


def display_name(user: dict[str, Any]) -> str:
    return str(user.get("global_name") or user.get("username") or user.get("id"))


class DiscordAuth:
    def __init__(
        self, http: aiohttp.ClientSession, *, api_base: str | None, client_id: int,
        client_secret: str, bot_token: str,
    ) -> None:  # fmt: skip
        self.http = http
        self.api = (api_base or DISCORD_API).rstrip("/")
        self.client_id = client_id
        self._secret = client_secret
        self._bot = f"Bot {bot_token}"
        self._users: OrderedDict[int, dict[str, Any]] = OrderedDict()

    async def sign_in(self, code: str, instance_id: str) -> SignedIn:
        """Raises: WebRefusal: a code Discord refuses (forged, used, expired), or a member
        who is not a participant of the instance."""
        form = {"client_id": str(self.client_id), "client_secret": self._secret,
                "grant_type": "authorization_code", "code": code}  # fmt: skip
        async with self.http.post(f"{self.api}/oauth2/token", data=form, timeout=TIMEOUT) as res:
            if res.status != 200:
                log.info("activity sign-in: Discord refused a code (%s)", res.status)
                raise WebRefusal(400, "bad_code", "Discord refused this sign-in code: it is "
                                 "forged, already used or expired")  # fmt: skip
            token = str((await res.json())["access_token"])
        headers = {"Authorization": f"Bearer {token}"}
        async with self.http.get(f"{self.api}/users/@me", headers=headers, timeout=TIMEOUT) as res:
            if res.status != 200:
                raise WebRefusal(400, "bad_code", "Discord did not accept the sign-in")
            user = await res.json()
        instance = await self._instance(instance_id)
        if str(user["id"]) not in {str(u) for u in instance.get("users", [])}:
            raise WebRefusal(403, "not_in_instance", "you are not in this Activity: open it "
                             "from Discord to play")  # fmt: skip
        location = instance.get("location") or {}
        guild = location.get("guild_id")
        self._users[int(user["id"])] = user
        return SignedIn(token, int(user["id"]), display_name(user), avatar_url(user),
                        int(location["channel_id"]), int(guild) if guild else None,
                        str(user.get("locale") or "en-US"))  # fmt: skip

    async def instance(self, instance_id: str) -> dict[str, Any]:
        """The Activity instance as Discord tells it: its ``location``, and its ``users``
        (the ids of the members in it now).

        Raises:
            WebRefusal: 403 ``not_in_instance`` for an instance that is not running, 400
                for no instance id, 502 when Discord does not answer as it should.
            aiohttp.ClientError, TimeoutError: Discord cannot be reached.
        """
        return await self._instance(instance_id)

    async def _instance(self, instance_id: str) -> dict[str, Any]:
        if not INSTANCE_ID.fullmatch(instance_id):  # it goes into a URL fetched as the bot
            raise WebRefusal(400, "bad_request", "no Activity instance was named")
        url = f"{self.api}/applications/{self.client_id}/activity-instances/{instance_id}"
        headers = {"Authorization": self._bot}
        async with self.http.get(url, headers=headers, timeout=TIMEOUT) as res:
            if res.status == 404:
                raise WebRefusal(403, "not_in_instance", "this Activity instance is not running")
            if res.status != 200:
                raise WebRefusal(502, "discord", "Discord did not answer; try again")
            instance: dict[str, Any] = await res.json()
            return instance

    async def user(self, user_id: int) -> dict[str, Any]:
        """A user's public profile (their name and avatar on the page), kept once read;
        one Discord would not give is kept too, as its id, for :data:`UNKNOWN_FOR`
        seconds (a page's every render must not ask Discord again)."""
        known = self._users.get(user_id)
        if known is not None and known.get("_until", float("inf")) > time.monotonic():
            self._users.move_to_end(user_id)
            return known
        headers = {"Authorization": self._bot}
        try:
            async with self.http.get(f"{self.api}/users/{user_id}", headers=headers,
                                     timeout=TIMEOUT) as res:  # fmt: skip
                user: dict[str, Any] = await res.json() if res.status == 200 else {}
        except (aiohttp.ClientError, TimeoutError):
            user = {}
        if not user:
            user = {"_until": time.monotonic() + UNKNOWN_FOR}
        user.setdefault("id", str(user_id))
        self._users[user_id] = user
        if len(self._users) > KNOWN_USERS:
            self._users.popitem(last=False)
        return user
