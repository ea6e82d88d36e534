"""Signing a member in from the Activity: the Activity instance read with the bot's token
(it must be running; it names the channel), Discord's OAuth2 code exchanged with the
client secret, the member read with the access token, and checked to be a participant of
the instance. The secret and the tokens never leave this module's requests: never in a
page, a response body but the access token the page itself asked for, or a log line.

The instance comes first, before any budget shared by members is spent: read once and
kept (:class:`~bot.web.instances.Instances`), an unknown id refused from then on for a
while, and ids nobody vouches for read within a budget of their own. Only a sign-in from
a running instance spends a sign-in credit: the instance's share, then everyone's. A
flood of junk naming ids that are not running so spends nothing members need.

Every call obeys Discord's rate limits: the bot's through discord.py's client
(:class:`~bot.web.bot_rest.BotRest`), the OAuth2 ones through the process's
:class:`~bot.web.oauth_limits.OAuthLimiter`. A sign-in that would have to wait for them,
or for a budget, is refused at once with a 429 that says how long to wait and whether
its code was spent (it is once the code was sent to Discord): nothing queues, so a flood
never stands ahead of a member."""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import aiohttp

from bot.core.budgets import Budget
from bot.i18n import text
from bot.web.bot_rest import BotRest
from bot.web.errors import WebRefusal
from bot.web.instances import Instances, busy, lookup_budget, told_wait
from bot.web.oauth_limits import OAuthLimiter

log = logging.getLogger(__name__)
DISCORD_API = "https://discord.com/api/v10"
TIMEOUT = aiohttp.ClientTimeout(total=5)
KNOWN_USERS = 10_000
UNKNOWN_FOR = 300.0
INSTANCE_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")
"""What an Activity instance id is made of (``i-<launch>-gc-<guild>-<channel>``)."""
TOKEN_ROUTE, ME_ROUTE = "POST /oauth2/token", "GET /users/@me"
OVERALL_WINDOW = 60.0
"""Seconds over which the process's sign-in budget comes back in full."""
MEMBER_WINDOW = 600.0
"""Seconds over which a member's sign-in budget comes back in full."""


@dataclass(frozen=True, slots=True)
class SignedIn:
    access_token: str
    user_id: int
    name: str
    avatar: str | None
    channel_id: int
    guild_id: int | None
    locale: str


@dataclass(frozen=True, slots=True)
class SignInLimits:
    """What a sign-in may spend: Discord's word on the OAuth2 routes, the reads of
    instances not kept (``lookups``), the sign-ins of running instances (``overall``,
    keyed by instance: each one's share and everyone's; spent before the code is sent),
    and each member's (spent once Discord said who the member is)."""

    discord: OAuthLimiter
    overall: Budget
    members: Budget
    lookups: Budget


def sign_in_limits(
    *, overall: int, per_member: int, per_instance: int | None = None, lookups: int = 60,
    clock: Callable[[], float] = time.monotonic,
) -> SignInLimits:  # fmt: skip
    """``overall`` sign-ins a minute for the process, ``per_instance`` (None: as many)
    of them from one Activity instance, ``per_member`` in ten minutes for each member,
    ``lookups`` reads a minute of instance ids not kept (for places seen, and as many for
    places new: :func:`~bot.web.instances.lookup_budget`).

    Raises:
        ValueError: a budget below one.
    """
    everyone = Budget("sign-in", per_key=per_instance or overall, overall=overall,
                      window=OVERALL_WINDOW, clock=clock)  # fmt: skip
    # no overall cap of its own: the one above is everyone's
    members = Budget("member sign-in", per_key=per_member, overall=10**9, window=MEMBER_WINDOW,
                     clock=clock)  # fmt: skip
    return SignInLimits(OAuthLimiter(clock), everyone, members, lookup_budget(lookups, clock))


def avatar_url(user: dict[str, Any]) -> str | None:
    avatar = user.get("avatar")
    if not avatar:
        return None
    return f"https://cdn.discordapp.com/avatars/{user['id']}/{avatar}.png?size=64"


def display_name(user: dict[str, Any]) -> str:
    return str(user.get("global_name") or user.get("username") or user.get("id"))


class DiscordAuth:
    def __init__(
        self, http: aiohttp.ClientSession, bot: BotRest, limits: SignInLimits, *,
        api_base: str | None, client_id: int, client_secret: str,
        instances: Instances | None = None,
    ) -> None:  # fmt: skip
        self.http = http
        """For the OAuth2 calls only (with the member's token or the client's secret)."""
        self.bot = bot
        self.limits = limits
        self.instances = instances or Instances(bot, client_id, limits.lookups)
        """The instances read with the bot's token, kept: the sessions' presence checks
        and the live pages' share them."""
        self.api = (api_base or DISCORD_API).rstrip("/")
        self.client_id = client_id
        self._secret = client_secret
        self._users: OrderedDict[int, dict[str, Any]] = OrderedDict()

    async def sign_in(self, code: str, instance_id: str, locale: str = "en") -> SignedIn:
        """``locale``: the page's language, for a refusal before the member is known.

        Raises:
            WebRefusal: 400, a code Discord refuses (forged, used, expired) or no
                instance id; 403, a member who is not a participant of the instance; 429,
                a sign-in that would wait (its ``retry_after`` and ``code_spent``); 502,
                Discord did not answer.
        """
        if not INSTANCE_ID.fullmatch(instance_id):  # it goes into a URL fetched as the bot
            raise WebRefusal(400, "bad_request", "no Activity instance was named")
        await self.instances.read(instance_id, locale=locale)  # running, before any credit
        spent = self.limits.overall.spend(instance_id)
        if spent is not None:
            raise busy(spent.retry_after, locale, code_spent=False)
        form = {"client_id": str(self.client_id), "client_secret": self._secret,
                "grant_type": "authorization_code", "code": code}  # fmt: skip
        status, body = await self._oauth(TOKEN_ROUTE, "", locale, "POST", "/oauth2/token",
                                         data=form)  # fmt: skip
        if status != 200 or not isinstance(body, dict) or "access_token" not in body:
            log.info("activity sign-in: Discord refused a code (%s)", status)
            raise WebRefusal(400, "bad_code", "Discord refused this sign-in code: it is "
                             "forged, already used or expired")  # fmt: skip
        token = str(body["access_token"])
        who = hashlib.sha256(token.encode()).hexdigest()[:32]  # a user's own limits
        status, user = await self._oauth(ME_ROUTE, who, locale, "GET", "/users/@me",
                                         headers={"Authorization": f"Bearer {token}"})  # fmt: skip
        if status != 200 or not isinstance(user, dict) or "id" not in user:
            raise WebRefusal(400, "bad_code", "Discord did not accept the sign-in")
        own = str(user.get("locale") or locale)
        again = self.limits.members.spend(int(user["id"]))
        if again is not None:
            whole, after = told_wait(again.retry_after)
            raise WebRefusal(429, "too_often", text("web.sign_in_often", own, seconds=whole),
                             retry_after=after, code_spent=True)  # fmt: skip
        # read again if it does not list the member: they may have joined since it was read
        instance = await self.instances.read(instance_id, vouched=True, again_for=int(user["id"]))
        if str(user["id"]) not in {str(u) for u in instance.get("users", [])}:
            raise WebRefusal(403, "not_in_instance", "you are not in this Activity: open it "
                             "from Discord to play")  # fmt: skip
        location = instance.get("location") or {}
        guild = location.get("guild_id")
        self._users[int(user["id"])] = user
        return SignedIn(token, int(user["id"]), display_name(user), avatar_url(user),
                        int(location["channel_id"]), int(guild) if guild else None,
                        str(user.get("locale") or "en-US"))  # fmt: skip

    async def _oauth(
        self, route: str, who: str, locale: str, method: str, path: str, **options: Any
    ) -> tuple[int, Any]:
        """One OAuth2 call within Discord's limits: its status and body (JSON, or the
        text of an answer that is not).

        Raises:
            WebRefusal: 429 when Discord's limits say wait (before the call, or in its
                answer); 502 when no answer came.
        """
        limiter = self.limits.discord
        spent = route != TOKEN_ROUTE  # past the token route, the code was sent
        wait = limiter.take(route, who)
        if wait > 0:
            raise busy(wait, locale, code_spent=spent)
        try:
            async with self.http.request(method, self.api + path, timeout=TIMEOUT,
                                         **options) as res:  # fmt: skip
                raw = await res.read()
                status, headers = res.status, res.headers
        except (aiohttp.ClientError, TimeoutError):
            limiter.unanswered(route, who)
            log.info("activity sign-in: Discord did not answer %s", route)
            raise WebRefusal(502, "discord", "Discord did not answer; try again",
                             code_spent=True) from None  # fmt: skip
        except BaseException:  # cancelled (a stop): its place must not stay taken
            limiter.unanswered(route, who)
            raise
        try:
            body: Any = json.loads(raw) if raw else None
        except (ValueError, UnicodeDecodeError):
            body = raw.decode(errors="replace")
        limiter.answered(route, status, headers, body, who)
        if status == 429:
            log.warning("activity sign-in: Discord answered %s with 429 (Retry-After %s)",
                        route, headers.get("Retry-After"))  # fmt: skip
            raise busy(limiter.wait(route, who), locale, code_spent=True)
        return status, body

    async def instance(self, instance_id: str) -> dict[str, Any]:
        """The Activity instance as Discord told the bot within
        :data:`~bot.web.instances.RUNNING_FOR` seconds: its participants' ids
        (``users``, strings) and its place (``location``: ``channel_id``, ``guild_id``).
        For the live pages, whose sessions vouch for it (no lookup is spent).

        Raises:
            WebRefusal: 400, an id that is none; 403 (``not_in_instance``), an instance
                that is not running (Discord's 404); 502, Discord did not answer.
        """
        if not INSTANCE_ID.fullmatch(instance_id):  # it goes into a URL fetched as the bot
            raise WebRefusal(400, "bad_request", "no Activity instance was named")
        return await self.instances.read(instance_id, vouched=True)

    async def user(self, user_id: int) -> dict[str, Any]:
        """A user's public profile (their name and avatar on the page), kept once read;
        one Discord would not give is kept too, as its id, for :data:`UNKNOWN_FOR`
        seconds (a page's every render must not ask Discord again)."""
        known = self._users.get(user_id)
        if known is not None and known.get("_until", float("inf")) > time.monotonic():
            self._users.move_to_end(user_id)
            return known
        try:
            status, user = await self.bot.get("/users/{user_id}", user_id=user_id)
        except OSError:
            status, user = 0, {}
        if status != 200 or not user:
            user = {"_until": time.monotonic() + UNKNOWN_FOR}
        user.setdefault("id", str(user_id))
        self._users[user_id] = user
        if len(self._users) > KNOWN_USERS:
            self._users.popitem(last=False)
        return user
