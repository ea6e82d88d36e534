"""DiscordEmulator: a local Discord (REST v10 + gateway) for end-to-end bot tests."""

from __future__ import annotations

import asyncio
import base64
import copy
import logging
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from .actions import InteractionActions
from .activities import EMBEDDED, Activities, ActivityActions
from .faults import FaultPlan, Hold
from .gateway import (
    INTENT_DIRECT_MESSAGES,
    INTENT_GUILD_EMOJIS,
    INTENT_GUILD_MEMBERS,
    INTENT_GUILD_MESSAGES,
    INTENT_GUILD_MODERATION,
    Gateway,
)
from .http_mode import HttpMode
from .interactions import LOADING, WAIT_CEILING, InteractionRecord
from .oauth import OAuth, OAuthActions
from .ratelimits import RateLimits
from .rest import RequestRecord, RestApi
from .state import (
    DM_APP_PERMISSIONS,
    USER_APP_PERMISSIONS,
    EmuChannel,
    EmuGuild,
    EmuUser,
    SnowflakeGenerator,
    apply_edit,
    build_message,
    guild_create_payload,
    member_dict,
    snapshot,
)
from .validation import (
    SpecValidator,
    check_edit,
    default_spec_path,
    load_validator,
    warn_spec_missing,
)

log = logging.getLogger("discord_emulator")

NONCE_MEMORY = 5 * 60.0
"""Seconds a message's nonce is remembered for ``enforce_nonce`` ("the past few minutes")."""


class DiscordEmulator(InteractionActions, ActivityActions, OAuthActions):
    def __init__(
        self,
        spec_path: Path | None = None,
        interaction_deadline: float = 3.0,
        *,
        heartbeat_interval: int = 41250,
        token_lifetime: float = 15 * 60,
        validate: bool = True,
    ) -> None:
        self.snowflakes = SnowflakeGenerator()
        self.interaction_deadline = interaction_deadline
        self.lag = 0.0
        """Seconds each interaction takes to reach the bot after it was made, as a bot
        starved of CPU reads its gateway late; its deadline runs from when it was made."""
        self.heartbeat_interval = heartbeat_interval
        self.token_lifetime = token_lifetime
        self.clock_offset = 0.0
        """Seconds added to the clock that interaction tokens expire by (:meth:`advance`)."""
        self.spec_path = Path(spec_path) if spec_path is not None else default_spec_path()
        self.validator: SpecValidator | None = None
        if validate:
            if self.spec_path.is_file():
                self.validator = load_validator(self.spec_path)
            else:
                warn_spec_missing(self.spec_path)
        self.application_id = self.snowflakes.next()
        # shaped like Discord's: the bot's id in base64, a timestamp part, an HMAC part
        bot_id = base64.urlsafe_b64encode(str(self.application_id).encode()).decode()
        self.token = f"{bot_id.rstrip('=')}.{secrets.token_urlsafe(4)}.{secrets.token_urlsafe(27)}"
        self._bot = EmuUser(self.application_id, "TTT Bot", bot=True)
        self.owner = EmuUser(self.snowflakes.next(), "owner")
        self.users: dict[int, EmuUser] = {self._bot.id: self._bot, self.owner.id: self.owner}
        self.guilds: dict[int, EmuGuild] = {}
        self.channels: dict[int, EmuChannel] = {}
        self._dms: dict[int, EmuChannel] = {}
        """Each user's DM channel with the bot, by user id."""
        self._messages: dict[int, dict[str, Any]] = {}
        self._nonces: dict[tuple[int, str], tuple[int, float]] = {}
        """The message each (channel, nonce) made, and when (see :meth:`sent_with_nonce`)."""
        self.files: dict[str, bytes] = {}
        """Every uploaded attachment's bytes, by attachment id (see :meth:`attachment`)."""
        self.uploads: dict[int, list[dict[str, Any]]] = {}
        """The attachments uploaded into each message (multipart file parts), by message id,
        in order; their bytes are in :attr:`files`. One an edit keeps is not uploaded again."""
        self._ephemeral_for: dict[int, int] = {}
        self._channel_order: dict[int, list[int]] = {}
        self._commands: dict[int | None, list[dict[str, Any]]] = {}
        self.sync_count = 0
        self.identify_payloads: list[dict[str, Any]] = []
        self.violations: list[str] = []
        self.requests: list[RequestRecord] = []
        self.error_responses: list[tuple[str, str, int, dict[str, Any]]] = []
        self.faults = FaultPlan()
        """``emu.faults.add(method, path_regex, status, code=..., times=...)``; a slow
        answer: ``emu.faults.hold(method, path_regex, seconds, times=...)``; one held
        until the test says: :meth:`hold`."""
        self.interactions: dict[int, InteractionRecord] = {}
        self.interactions_by_token: dict[str, InteractionRecord] = {}
        self._listeners: list[
            tuple[Callable[[dict[str, Any]], bool], asyncio.Future[dict[str, Any]]]
        ] = []
        self.ready_event = asyncio.Event()
        self.ready_count = 0  # completed IDENTIFY -> READY + GUILD_CREATEs handshakes
        self.shard_count = 1
        """The shards /gateway/bot recommends, and the count every IDENTIFY must use."""
        self.max_concurrency = 1
        """Concurrency buckets of IDENTIFY (shard_id % max_concurrency)."""
        self.identify_spacing = 0.0
        """Seconds between two IDENTIFYs of one bucket; Discord's is 5 (gateway.py's
        IDENTIFY_SPACING). Off by default: tests restart a single bot at once, which a
        real bot would do after its own back-off; sharding tests turn it on."""
        self.commands_event = asyncio.Event()
        self.embedded = True
        """The application has an Activity (the EMBEDDED flag): entry point commands and
        LAUNCH_ACTIVITY answers are accepted. Off: Discord refuses both."""
        self.activities = Activities(self)
        self.oauth = OAuth(self)
        """Codes, tokens and the client secret (``emu.client_secret``)."""
        self.rate_limits = RateLimits(self)
        """The routes Discord's rate limits are played on (``emu.rate_limits.token``: the
        token route's calls, 429s and calls made during a Retry-After)."""
        self._deadline_handles: list[asyncio.TimerHandle] = []
        self.gateway = Gateway(self)
        self.rest = RestApi(self)
        self.http_mode = HttpMode(self)
        """Interactions POSTed to the bot's endpoint instead of the gateway: ``use_http``."""
        self.transport = "gateway"
        """How bots started by the tests' harness take interactions: "gateway" or "http"
        (no gateway connection; the ``transport`` fixture sets it)."""
        self._runner: web.AppRunner | None = None
        self.port = 0
        self.guild = self.create_guild("Test Guild")
        self.channel = self.guild.channels[0]

    # -- lifecycle -------------------------------------------------------
    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/", self.gateway.handler)
        app.router.add_route("*", "/api/v10/{tail:.*}", self.rest.handle)
        app.router.add_route("*", "/{tail:.*}", self.rest.handle_unknown)
        self._runner = web.AppRunner(app, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def stop(self) -> None:
        self.faults.release_all()  # a held request's handler ends before the server does
        for handle in self._deadline_handles:
            handle.cancel()
        for rec in self.interactions.values():
            pending = time.monotonic() - rec.created < self.interaction_deadline
            if rec.response_type is None and pending:
                self.violation(f"{rec.describe()}: still unanswered when the emulator stopped")
                rec.responded.set()
        await self.gateway.close_all()
        await self.http_mode.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> DiscordEmulator:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    @property
    def client_id(self) -> str:
        """The OAuth2 client id: the application's id."""
        return str(self.application_id)

    @property
    def client_secret(self) -> str:
        return self.oauth.client_secret

    @property
    def application_flags(self) -> int:
        return EMBEDDED if self.embedded else 0

    @property
    def bot_user(self) -> dict[str, Any]:
        return self._bot.to_dict()

    def now(self) -> float:
        """The clock interaction tokens expire by: monotonic, plus :meth:`advance`."""
        return time.monotonic() + self.clock_offset

    def advance(self, seconds: float) -> None:
        """Move the token clock on: interactions created more than ``token_lifetime``
        (15 minutes) before it are then refused on their webhook, as Discord does."""
        self.clock_offset += seconds

    def hold(self, method: str, path: str, *, times: int = 1) -> Hold:
        """Hold the next ``times`` REST requests whose path (relative to /api/v10) matches
        the regex ``path``, as a Discord slow to answer: ``await hold.reached.wait()``
        says one arrived, ``hold.release()`` lets them be handled as usual (the emulator's
        stop releases every hold)."""
        return self.faults.hold_until_released(method, path, times=times)

    def use_http(self, url: str | None) -> None:
        """Send interactions to the bot's Interactions Endpoint URL (``None``: the gateway,
        as by default), signed with :attr:`public_key`."""
        self.http_mode.url = url

    @property
    def public_key(self) -> str:
        """The application's public key, as the Developer Portal shows it (hex)."""
        return self.http_mode.public_key

    def violation(self, text: str) -> None:
        log.warning("discord emulator violation: %s", text)
        self.violations.append(text)

    # -- world -----------------------------------------------------------
    def create_guild(
        self, name: str = "Test", *, locale: str = "en-US", with_bot: bool = True
    ) -> EmuGuild:
        """A server; ``with_bot=False``: one that never added the bot (no gateway event,
        403 on its routes; members reach the app there through their own installs)."""
        guild = EmuGuild(self.snowflakes.next(), name, self.owner.id, locale=locale,
                         has_bot=with_bot)  # fmt: skip
        guild.member_ids += [self._bot.id, self.owner.id] if with_bot else [self.owner.id]
        self.guilds[guild.id] = guild
        self.create_channel(guild.id, "general", dispatch=False)
        if with_bot:
            self.gateway.dispatch("GUILD_CREATE", self.guild_create_payload(guild))
        return guild

    def create_channel(
        self, guild_id: int | EmuGuild, name: str = "games", *, dispatch: bool = True
    ) -> EmuChannel:
        guild = self.guilds[guild_id.id if isinstance(guild_id, EmuGuild) else int(guild_id)]
        channel = EmuChannel(self.snowflakes.next(), guild.id, name, position=len(guild.channels))
        if not guild.has_bot:
            channel.bot_present = False
            channel.app_permissions = USER_APP_PERMISSIONS
        guild.channels.append(channel)
        self._register(channel)
        if dispatch and guild.has_bot:
            self.gateway.dispatch("CHANNEL_CREATE", channel.to_dict())
        return channel

    def create_thread(
        self, parent: EmuChannel, name: str, *, type: int = 11, owner_id: int | None = None,
        message_id: int | None = None, auto_archive_duration: int = 1440,
    ) -> EmuChannel:  # fmt: skip
        """A thread in ``parent``: from the message ``message_id`` (the thread then has
        the message's id, and the message names it), or standalone. Dispatches
        THREAD_CREATE, and MESSAGE_UPDATE for the starter message, as Discord does."""
        assert parent.guild_id is not None and not parent.is_thread
        guild = self.guilds[parent.guild_id]
        thread = EmuChannel(
            message_id if message_id is not None else self.snowflakes.next(), guild.id, name,
            type=type, app_permissions=parent.app_permissions, bot_present=parent.bot_present,
            parent_id=parent.id, owner_id=owner_id if owner_id is not None else self._bot.id,
            auto_archive_duration=auto_archive_duration,
        )  # fmt: skip
        guild.threads.append(thread)
        self._register(thread)
        if guild.has_bot:
            self.gateway.dispatch("THREAD_CREATE", thread.to_dict() | {"newly_created": True})
        if message_id is not None:
            msg = self._messages[message_id]
            msg["thread"] = thread.to_dict()
            self._gateway_message("MESSAGE_UPDATE", msg)
        return thread

    def _register(self, channel: EmuChannel) -> None:
        """A new channel of any kind is known by id and has no messages yet."""
        self.channels[channel.id] = channel
        self._channel_order[channel.id] = []

    def open_dm(self, user: EmuUser) -> EmuChannel:
        """The DM channel between ``user`` and the bot, as their client opens it (the same
        channel every time). Discord lets a user message a bot they share a server with,
        and sends bots no CHANNEL_CREATE for DMs, so none is dispatched."""
        if user.id in self._dms:
            return self._dms[user.id]
        if user.bot or not self.shares_server(user):
            raise ValueError(f"{user.name} shares no server with the bot and cannot DM it")
        return self.dm_channel(user)

    def shares_server(self, user: EmuUser) -> bool:
        """Whether ``user`` and the bot are members of one server (Discord's condition
        for the bot's messages to reach their DMs, besides their own settings)."""
        return any(
            user.id in g.member_ids and self._bot.id in g.member_ids and g.has_bot
            for g in self.guilds.values()
        )

    def dm_reachable(self, user: EmuUser) -> bool:
        """Whether a message the bot posts in its DM with ``user`` is delivered: a server
        shared, DMs from server members open, the bot not blocked (else 50007)."""
        return not user.dms_closed and self.shares_server(user)

    def dm_channel(self, user: EmuUser) -> EmuChannel:
        """The DM channel between ``user`` and the bot, made if none is (as ``POST
        /users/@me/channels`` does whoever the user is: whether a message then reaches
        them is the message's to find out)."""
        if user.id in self._dms:
            return self._dms[user.id]
        channel = EmuChannel(
            self.snowflakes.next(), None, "", type=1, app_permissions=DM_APP_PERMISSIONS,
            recipient=user,
        )  # fmt: skip
        self._dms[user.id] = channel
        self._register(channel)
        return channel

    def open_private(self, *users: EmuUser, name: str = "") -> EmuChannel:
        """A DM between two users, or a group DM of three or more (Discord allows 10): the
        bot is not in it. Only a member who installed the app to their account can run its
        commands there; everyone in it can click its messages."""
        if len(users) < 2 or len(users) > 10 or any(u.bot for u in users):
            raise ValueError("a DM needs 2 users and a group DM at most 10, none of them bots")
        channel = EmuChannel(
            self.snowflakes.next(), None, name, type=1 if len(users) == 2 else 3,
            app_permissions=USER_APP_PERMISSIONS, recipients=list(users), bot_present=False,
        )  # fmt: skip
        self._register(channel)
        return channel

    def create_role(self, name: str, guild: EmuGuild | None = None) -> int:
        """A role in ``guild`` (default: the default guild); give it to members through
        ``user.role_ids``. Returns its id."""
        guild = guild or self.guild
        role_id = self.snowflakes.next()
        guild.extra_roles[role_id] = name
        payload = {"guild_id": str(guild.id), "role": guild.role_dict(role_id, name)}
        self.gateway.dispatch("GUILD_ROLE_CREATE", payload)
        return role_id

    def create_emoji(
        self, name: str, guild: EmuGuild | None = None, *, available: bool = True
    ) -> str:
        """A custom emoji of ``guild`` (default: the default guild), announced as Discord
        does (GUILD_EMOJIS_UPDATE with the whole list). Returns it as a message writes it,
        ``<:name:id>``."""
        guild = guild or self.guild
        emoji_id = self.snowflakes.next()
        guild.emojis[emoji_id] = {
            "id": str(emoji_id), "name": name, "roles": [], "require_colons": True,
            "managed": False, "animated": False, "available": available,
        }  # fmt: skip
        payload = {"guild_id": str(guild.id), "emojis": list(guild.emojis.values())}
        self.gateway.dispatch("GUILD_EMOJIS_UPDATE", payload, intent=INTENT_GUILD_EMOJIS)
        return f"<:{name}:{emoji_id}>"

    def create_user(
        self, name: str, bot: bool = False, locale: str = "en-US", guilds: list[Any] | None = None
    ) -> EmuUser:
        user = EmuUser(self.snowflakes.next(), name, bot=bot, locale=locale)
        self.users[user.id] = user
        targets = [
            self.guild,
            *(self.guilds[g.id if isinstance(g, EmuGuild) else int(g)] for g in guilds or []),
        ]
        for guild in {g.id: g for g in targets}.values():
            guild.member_ids.append(user.id)
            if not guild.has_bot:
                continue
            member = member_dict(user, guild) | {"guild_id": str(guild.id)}
            self.gateway.dispatch("GUILD_MEMBER_ADD", member, intent=INTENT_GUILD_MEMBERS)
        return user

    def ban(self, user: EmuUser, guild: EmuGuild | None = None, *, bot_told: bool = True) -> None:
        """A moderator bans ``user`` from ``guild`` (default: the emulator's): they are no
        longer a member, and leave its Activity instances (a ban disconnects them from
        voice). ``GUILD_BAN_ADD`` goes to a bot with the GUILD_MODERATION intent and, in
        that server, Ban Members or View Audit Log (``bot_told``; Discord's gateway
        events, "Guild Ban Add")."""
        guild = guild or self.guild
        if user.id in guild.member_ids:
            guild.member_ids.remove(user.id)
        for instance in list(self.activities.instances.values()):
            if instance.channel.guild_id == guild.id and user.id in instance.users:
                self.activities.leave(user, instance.instance_id)
        if bot_told and guild.has_bot:
            payload = {"guild_id": str(guild.id), "user": user.to_dict()}
            self.gateway.dispatch("GUILD_BAN_ADD", payload, intent=INTENT_GUILD_MODERATION)

    def ready_payload(self, session_id: str, shard: tuple[int, int] = (0, 1)) -> dict[str, Any]:
        guilds = [
            g for g, guild in self.guilds.items()
            if guild.has_bot and self.gateway.shard_of(g) == shard[0]
        ]  # fmt: skip
        return {
            "v": 10,
            "user": self.bot_user | {"verified": True, "mfa_enabled": False, "email": None},
            "guilds": [{"id": str(g), "unavailable": True} for g in guilds],
            "session_id": session_id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "shard": list(shard),
            "application": {"id": str(self.application_id), "flags": self.application_flags},
            "private_channels": [],
            "relationships": [],
            "user_settings": {},
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
        }

    def guild_create_payload(self, guild: EmuGuild) -> dict[str, Any]:
        return guild_create_payload(guild, self.users)

    # -- messages --------------------------------------------------------
    def has_message(self, message_id: int | str) -> bool:
        return int(message_id) in self._messages

    def message(self, message_id: int | str | dict[str, Any]) -> dict[str, Any]:
        mid = int(message_id["id"]) if isinstance(message_id, dict) else int(message_id)
        return snapshot(self._messages[mid])

    def is_ephemeral(self, message_id: int | str) -> bool:
        return int(message_id) in self._ephemeral_for

    def visible_to(self, message_id: int | str, user: EmuUser | int) -> bool:
        owner = self._ephemeral_for.get(int(message_id))
        return owner is None or owner == (user.id if isinstance(user, EmuUser) else int(user))

    def channel_messages(self, channel_id: int | EmuChannel) -> list[dict[str, Any]]:
        cid = channel_id.id if isinstance(channel_id, EmuChannel) else int(channel_id)
        return [
            self.message(m)
            for m in self._channel_order.get(cid, [])
            if m not in self._ephemeral_for
        ]

    def store_message(
        self,
        channel_id: int,
        body: dict[str, Any],
        *,
        message_type: int = 0,
        interaction_metadata: dict[str, Any] | None = None,
        ephemeral_for: int | None = None,
        interaction_id: int | None = None,
    ) -> dict[str, Any]:
        mid = self.snowflakes.next()
        msg = build_message(
            message_id=mid,
            channel_id=channel_id,
            author=self.bot_user,
            body=body,
            application_id=self.application_id if interaction_id is not None else None,
            message_type=message_type,
            interaction_metadata=interaction_metadata,
            files=self.files,
        )
        self._resolve_attachment_urls(msg)
        self._record_uploads(mid, set(), msg)
        self._messages[mid] = msg
        if body.get("nonce") is not None:
            msg["nonce"] = body["nonce"]
            self._nonces[(channel_id, str(body["nonce"]))] = (mid, self.now())
        self._channel_order.setdefault(channel_id, []).append(mid)
        if ephemeral_for is not None:
            self._ephemeral_for[mid] = ephemeral_for
        else:
            self._gateway_message("MESSAGE_CREATE", msg)
        self._notify(msg)
        return self.message(mid)

    def sent_with_nonce(self, channel_id: int, body: dict[str, Any]) -> dict[str, Any] | None:
        """The bot's message already created in the channel with this body's ``nonce``
        within the last few minutes, when the body asks for it (``enforce_nonce``):
        Discord then creates none and answers that one, so a retried send never doubles."""
        nonce = body.get("nonce")
        if nonce is None or not body.get("enforce_nonce"):
            return None
        kept = self._nonces.get((channel_id, str(nonce)))
        if kept is None or self.now() - kept[1] > NONCE_MEMORY or not self.has_message(kept[0]):
            return None
        return self.message(kept[0])

    def edit_message(
        self,
        message_id: int,
        body: dict[str, Any],
        *,
        clear_loading: bool = False,
        prefix: list[str | int] | None = None,
    ) -> dict[str, Any]:
        """Apply an edit; raises BodyError (Discord's 400) for one the message's state
        refuses (``prefix`` is where the body sits in the request, for the error path)."""
        msg = self._messages[int(message_id)]
        check_edit(msg, body, prefix or [])
        before = {a["id"] for a in msg["attachments"]}
        apply_edit(msg, body, self.files)
        self._record_uploads(int(message_id), before, msg)
        self._resolve_attachment_urls(msg)
        if clear_loading:
            msg["flags"] &= ~LOADING
        if int(message_id) not in self._ephemeral_for:
            self._gateway_message("MESSAGE_UPDATE", msg)
        self._notify(msg)
        return self.message(message_id)

    def _record_uploads(self, mid: int, before: set[str], msg: dict[str, Any]) -> None:
        new = [a for a in msg["attachments"] if a["id"] not in before and a["id"] in self.files]
        if new:
            self.uploads.setdefault(mid, []).extend(new)

    def _resolve_attachment_urls(self, msg: dict[str, Any]) -> None:
        """``attachment://name`` in an embed points at the message's attachment of that
        name: Discord shows it there, and returns the attachment's URL in its place."""
        urls = {a["filename"]: a["url"] for a in msg["attachments"]}
        for embed in msg["embeds"]:
            for key, field_ in (("image", "url"), ("thumbnail", "url"), ("author", "icon_url"),
                                ("footer", "icon_url")):  # fmt: skip
                part = embed.get(key)
                ref = part.get(field_) if isinstance(part, dict) else None
                if isinstance(ref, str) and ref.startswith("attachment://"):
                    name = ref.removeprefix("attachment://")
                    if name not in urls:
                        self.violation(f"embed {key} refers to {ref}, no attachment of the message")
                    else:
                        part[field_] = urls[name]

    def attachment(self, message: dict[str, Any] | int | str, filename: str) -> bytes:
        """The bytes of ``message``'s attachment named ``filename`` (as a member would
        download it)."""
        mid = message["id"] if isinstance(message, dict) else message
        for item in self._messages[int(mid)]["attachments"]:
            if item["filename"] == filename:
                return self.files[item["id"]]
        raise KeyError(f"message {mid} has no attachment {filename!r}")

    def delete_message(self, message_id: int) -> None:
        msg = self._messages.pop(int(message_id))
        self._channel_order[int(msg["channel_id"])].remove(int(message_id))
        channel = self.channels.get(int(msg["channel_id"]))
        gone = self._ephemeral_for.pop(int(message_id), None)
        if gone is None and (channel is None or channel.bot_present):
            payload = {"id": msg["id"], "channel_id": msg["channel_id"]}
            if channel is not None and channel.guild_id is not None:
                payload["guild_id"] = str(channel.guild_id)
            self.gateway.dispatch("MESSAGE_DELETE", payload, intent=_message_intent(channel))

    def _gateway_message(self, event: str, msg: dict[str, Any]) -> None:
        channel = self.channels.get(int(msg["channel_id"]))
        if channel is not None and not channel.bot_present:
            return  # the bot is in neither the DM nor the server: no events from there
        payload = snapshot(msg)
        if channel is not None and channel.guild_id is not None:
            payload["guild_id"] = str(channel.guild_id)
            payload["member"] = member_dict(
                self._bot, self.guilds[channel.guild_id], with_user=False
            )
        self.gateway.dispatch(event, payload, intent=_message_intent(channel))

    def _notify(self, msg: dict[str, Any]) -> None:
        # One copy for every listener's look (a predicate reads, never writes): a copy a
        # listener made each message cost O(listeners) deep copies, which a bench with
        # hundreds of members waiting spent most of its CPU on.
        view = snapshot(msg) if self._listeners else msg
        for pred, fut in list(self._listeners):
            if fut.done():
                self._listeners.remove((pred, fut))
                continue
            try:
                if pred(view):
                    fut.set_result(snapshot(msg))
                    self._listeners.remove((pred, fut))
            except Exception as exc:
                fut.set_exception(exc)
                self._listeners.remove((pred, fut))

    async def wait_for_message(
        self,
        predicate: Callable[[dict[str, Any]], bool],
        timeout: float = WAIT_CEILING,
        *,
        include_existing: bool = False,
    ) -> dict[str, Any]:
        """Next message create/edit matching predicate (optionally also current messages)."""
        if include_existing:
            for mid in self._messages:
                if predicate(self.message(mid)):
                    return self.message(mid)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        entry = (predicate, fut)
        self._listeners.append(entry)
        try:
            return await asyncio.wait_for(fut, timeout)
        finally:
            if entry in self._listeners:
                self._listeners.remove(entry)

    # -- commands --------------------------------------------------------
    def commands(self, guild_id: int | None = None) -> list[dict[str, Any]]:
        return copy.deepcopy(
            self._commands.get(int(guild_id) if guild_id is not None else None, [])
        )

    def _mark_ready(self) -> None:
        self.ready_count += 1
        self.ready_event.set()

    async def _poll(self, cond: Callable[[], bool], timeout: float, what: str) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not cond():
            if loop.time() > end:
                raise TimeoutError(
                    f"discord emulator: timed out after {timeout}s waiting for {what}"
                )
            await asyncio.sleep(0.01)

    async def wait_until_deleted(
        self, message_id: int | str, timeout: float = WAIT_CEILING
    ) -> None:
        """Wait until the message no longer exists (deleted over REST or a webhook)."""
        await self._poll(lambda: not self.has_message(message_id), timeout,
                         f"the deletion of message {message_id}")  # fmt: skip

    async def wait_until_ready(self, timeout: float = WAIT_CEILING, *, count: int = 1) -> None:
        """Wait until `count` bot sessions have identified and received READY + GUILD_CREATEs.

        For a bot restart inside one test, pass count=2 for the second bot, etc.
        """
        await self._poll(lambda: self.ready_count >= count, timeout, f"READY #{count}")

    async def wait_for_commands(self, timeout: float = WAIT_CEILING, *, count: int = 1) -> None:
        """Wait until commands were bulk-overwritten (PUT) at least `count` times."""
        await self._poll(lambda: self.sync_count >= count, timeout, f"command sync #{count}")

    async def wait_until_resumed(self, timeout: float = WAIT_CEILING) -> None:
        await asyncio.wait_for(self.gateway.resumed.wait(), timeout)

    async def drop_gateway(
        self, code: int = 4000, *, invalidate: bool = False, shard: int = 0
    ) -> None:
        """Close a shard's gateway socket with `code` (invalidate=True: force a re-IDENTIFY)."""
        await self.gateway.drop(code, invalidate=invalidate, shard=shard)


def _message_intent(channel: EmuChannel | None) -> int:
    """The intent a message event needs: DIRECT_MESSAGES in a DM, GUILD_MESSAGES else."""
    return (
        INTENT_DIRECT_MESSAGES if channel is not None and channel.is_dm else INTENT_GUILD_MESSAGES
    )
