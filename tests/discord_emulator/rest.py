"""REST API v10: routing, auth, body parsing, spec validation, handlers."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from aiohttp import web

from . import interactions as ix
from .commands import check_command_definitions, command_object, store_commands
from .errors import (
    ApiError,
    cannot_message_user,
    missing_access,
    missing_permissions,
    unknown_channel,
    unknown_message,
)
from .oauth import FormBody, user_for_bearer
from .state import (
    PERM_ATTACH_FILES,
    PERM_CREATE_PRIVATE_THREADS,
    PERM_CREATE_PUBLIC_THREADS,
    PERM_SEND_MESSAGES_IN_THREADS,
    UPLOADS,
    EmuChannel,
    EmuGuild,
    Upload,
    member_dict,
)
from .validation import BodyError, check_message_body, discord_errors

if TYPE_CHECKING:
    from .server import DiscordEmulator


class RequestRecord(NamedTuple):
    method: str
    path: str
    body: Any
    query: dict[str, str]
    """The query string's parameters (``with_response``, ``wait``...)."""


RECEIVED_AT = web.RequestKey("received_at", float)
LIMIT_HEADERS = web.RequestKey("limit_headers", dict[str, str])


class Req(NamedTuple):
    request: web.Request
    params: dict[str, str]
    body: Any


Handler = Callable[[Req], Awaitable[Any]]

# (method, pattern, handler name, needs bot auth, message-body check: None / "create" / "edit")
ROUTES: list[tuple[str, str, str, bool, str | None]] = [
    ("GET", r"/users/@me", "get_me", True, None),
    ("GET", r"/users/(?P<user_id>\d+)", "get_user", True, None),
    ("POST", r"/users/@me/channels", "create_dm", True, None),
    ("GET", r"/gateway", "get_gateway", False, None),
    ("GET", r"/gateway/bot", "get_gateway_bot", True, None),
    ("GET", r"/oauth2/applications/@me", "get_application", True, None),
    ("GET", r"/applications/@me", "get_application", True, None),
    (
        "GET",
        r"/applications/(?P<app>\d+)/activity-instances/(?P<instance_id>[^/]+)",
        "get_activity_instance",
        True,
        None,
    ),
    ("POST", r"/oauth2/token", "oauth_token", False, None),
    ("GET", r"/applications/(?P<app>\d+)/commands", "get_commands", True, None),
    ("PUT", r"/applications/(?P<app>\d+)/commands", "put_commands", True, None),
    ("POST", r"/applications/(?P<app>\d+)/commands", "post_command", True, None),
    (
        "GET",
        r"/applications/(?P<app>\d+)/guilds/(?P<guild_id>\d+)/commands",
        "get_commands",
        True,
        None,
    ),
    (
        "PUT",
        r"/applications/(?P<app>\d+)/guilds/(?P<guild_id>\d+)/commands",
        "put_commands",
        True,
        None,
    ),
    (
        "POST",
        r"/applications/(?P<app>\d+)/guilds/(?P<guild_id>\d+)/commands",
        "post_command",
        True,
        None,
    ),
    ("POST", r"/interactions/(?P<iid>\d+)/(?P<token>[^/]+)/callback", "callback", False, None),
    ("POST", r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)", "followup", False, "create"),
    (
        "GET",
        r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)/messages/(?P<mid>@original|\d+)",
        "wh_get",
        False,
        None,
    ),
    (
        "PATCH",
        r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)/messages/(?P<mid>@original|\d+)",
        "wh_edit",
        False,
        "edit",
    ),
    (
        "DELETE",
        r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)/messages/(?P<mid>@original|\d+)",
        "wh_delete",
        False,
        None,
    ),
    ("GET", r"/channels/(?P<cid>\d+)", "get_channel", True, None),
    ("GET", r"/channels/(?P<cid>\d+)/messages", "list_messages", True, None),
    ("POST", r"/channels/(?P<cid>\d+)/messages", "post_message", True, "create"),
    ("GET", r"/channels/(?P<cid>\d+)/messages/(?P<mid>\d+)", "get_message", True, None),
    ("PATCH", r"/channels/(?P<cid>\d+)/messages/(?P<mid>\d+)", "edit_message", True, "edit"),
    ("DELETE", r"/channels/(?P<cid>\d+)/messages/(?P<mid>\d+)", "delete_message", True, None),
    (
        "POST",
        r"/channels/(?P<cid>\d+)/messages/(?P<mid>\d+)/threads",
        "thread_from_message",
        True,
        None,
    ),
    ("POST", r"/channels/(?P<cid>\d+)/threads", "thread_alone", True, None),
    ("GET", r"/guilds/(?P<guild_id>\d+)", "get_guild", True, None),
    ("GET", r"/guilds/(?P<guild_id>\d+)/channels", "get_guild_channels", True, None),
    ("GET", r"/guilds/(?P<guild_id>\d+)/members/(?P<user_id>\d+)", "get_member", True, None),
    ("GET", r"/guilds/(?P<guild_id>\d+)/emojis/(?P<emoji_id>\d+)", "get_emoji", True, None),
]
BEARER_ROUTES = frozenset({"get_me"})
"""Routes a user's OAuth2 access token may call as well as the bot."""
_COMPILED = [(m, re.compile(f"^{p}$"), h, a, c) for m, p, h, a, c in ROUTES]


_TOKEN_IN_PATH = re.compile(r"^(/(?:interactions|webhooks)/\d+/)[^/]+")


def _mask(path: str) -> str:
    """Interaction tokens are long; keep violation messages readable."""
    return _TOKEN_IN_PATH.sub(r"\1<token>", path)


def _find_route(method: str, path: str) -> tuple[str, bool, str | None, re.Match[str]] | None:
    for m, regex, name, auth, check in _COMPILED:
        match = regex.match(path)
        if m == method and match:
            return name, auth, check, match
    return None


def _json(data: Any, status: int = 200) -> web.Response:
    # discord.py only parses JSON if content-type is exactly "application/json" (as Discord sends).
    body = json.dumps(data, separators=(",", ":")).encode()
    return web.Response(body=body, status=status, headers={"Content-Type": "application/json"})


class RestApi:
    def __init__(self, emu: DiscordEmulator) -> None:
        self.emu = emu

    async def handle_unknown(self, request: web.Request) -> web.Response:
        self.emu.violation(f"unknown route {request.method} {request.path}")
        return _json({"code": 0, "message": "404: Not Found"}, 404)

    async def _body(self, request: web.Request) -> Any:
        if not request.can_read_body:
            return None
        ctype = request.content_type
        if ctype == "application/x-www-form-urlencoded":  # OAuth2's token route
            form = await request.post()
            return FormBody({key: str(form.getone(key)) for key in form})
        if ctype == "multipart/form-data":
            body: Any = None
            files: list[Upload] = []
            reader = await request.multipart()
            async for part in reader:
                if part.name == "payload_json":
                    body = json.loads(await part.text())  # type: ignore[union-attr]
                else:
                    data = bytes(await part.read())  # type: ignore[union-attr]
                    name = getattr(part, "filename", None) or str(part.name)
                    files.append(Upload(str(part.name), name, data,
                                        part.headers.get("Content-Type")))  # fmt: skip
            if isinstance(body, dict) and files:
                body.setdefault("_files", files)
            return body
        raw = await request.read()
        if not raw:
            return None
        return json.loads(raw)

    async def handle(self, request: web.Request) -> web.Response:
        response = await self._handle(request)
        for name, value in request.get(LIMIT_HEADERS, {}).items():  # every answer of the route
            response.headers.setdefault(name, value)  # (an injected 429 keeps its own)
        return response

    async def _handle(self, request: web.Request) -> web.Response:
        emu = self.emu
        # Discord times a response by when it arrives, not by how long this emulator then
        # spends validating it: keep the arrival time for the interaction deadline.
        request[RECEIVED_AT] = time.monotonic()
        path = "/" + request.match_info["tail"]
        method = request.method
        try:
            body = await self._body(request)
        except ValueError:
            return _json({"code": 50109, "message": "The request body contains invalid JSON."}, 400)
        files = body.pop("_files", None) if isinstance(body, dict) else None
        emu.requests.append(RequestRecord(method, path, body, dict(request.query)))
        found = _find_route(method, path)
        limit = emu.rate_limits.routes.get(found[0]) if found is not None else None
        if limit is not None:  # Discord counts a call as it arrives
            request[LIMIT_HEADERS], refused = limit.admit()
            if refused is not None:
                return refused
        hold = emu.faults.held(method, path)
        if hold is not None:
            await hold.wait(path)
        fault = emu.faults.take(method, path)
        if fault is not None and fault.held:
            await fault.wait()
        elif fault is not None:
            if limit is not None and fault.status == 429:
                limit.told_to_wait(fault.retry_after or 0.1)
            return fault.response()
        try:
            route = _find_route(method, path)
            if route is None:
                raise ApiError(404, 0, "404: Not Found", violation="unknown route")
            name, auth, check, match = route
            given = request.headers.get("Authorization")
            if (
                auth
                and given != f"Bot {emu.token}"
                and not (name in BEARER_ROUTES and emu.oauth.bearer_user(given) is not None)
            ):
                raise ApiError(401, 0, "401: Unauthorized")
            self._validate(method, path, body, check, files)
            if files:  # the message body gets its file parts (after validation)
                target = body.get("data") if path.endswith("/callback") else body
                if isinstance(target, dict):
                    target[UPLOADS] = {f.field: f for f in files}
            result = await getattr(self, name)(Req(request, match.groupdict(), body))
        except ApiError as err:
            if err.violation:
                emu.violation(f"{method} {_mask(path)}: {err.violation}")
            emu.error_responses.append((method, path, err.status, err.to_json()))
            return _json(err.to_json(), err.status)
        except BodyError as err:
            emu.violation(f"{method} {_mask(path)}: invalid body: {err.summary}")
            emu.error_responses.append((method, path, 400, err.to_json()))
            return _json(err.to_json(), 400)
        if result is None:
            return web.Response(status=204)
        return _json(result)

    def _validate(self, method: str, path: str, body: Any, check: str | None, files: Any) -> None:
        emu = self.emu
        if emu.validator is not None and body is not None:
            emu.validator.validate(method, path, body)
        if method == "POST" and path.endswith("/callback") and isinstance(body, dict):
            if body.get("type") in (4, 7) and isinstance(body.get("data"), dict):
                check_message_body(
                    body["data"], ["data"], create=body.get("type") == 4 and not files
                )
        elif check and isinstance(body, dict):
            check_message_body(body, [], create=check == "create" and not files)
        if method == "PUT" and path.endswith("/commands"):
            problem = check_command_definitions(body)
            if problem:
                raise BodyError(problem, discord_errors([], "APPLICATION_COMMAND_INVALID", problem))

    # -- users / gateway / application ------------------------------------
    async def get_me(self, req: Req) -> Any:
        grant = self.emu.oauth.bearer_user(req.request.headers.get("Authorization"))
        if grant is not None:
            return user_for_bearer(grant)
        return self.emu.bot_user | {
            "verified": True,
            "mfa_enabled": False,
            "locale": "en-US",
            "email": None,
        }

    async def get_user(self, req: Req) -> Any:
        user = self.emu.users.get(int(req.params["user_id"]))
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return user.to_dict()

    async def create_dm(self, req: Req) -> Any:
        """Discord's Create DM: the DM channel with ``recipient_id`` (type 1, the user in
        ``recipients``), the same one every time. It is made whoever the user is; whether
        a message then reaches them is answered by the message (50007)."""
        body = req.body if isinstance(req.body, dict) else {}
        user = self.emu.users.get(int(body.get("recipient_id") or 0))
        if user is None or user.bot:
            raise ApiError(400, 50033, "Invalid Recipient(s)")
        return self.emu.dm_channel(user).to_dict()

    async def get_gateway(self, req: Req) -> Any:
        return {"url": self.emu.gateway_url.rstrip("/")}

    async def get_gateway_bot(self, req: Req) -> Any:
        emu = self.emu
        limit = {"total": 1000, "remaining": 999, "reset_after": 0,
                 "max_concurrency": emu.max_concurrency}  # fmt: skip
        return {"url": emu.gateway_url.rstrip("/"), "shards": emu.shard_count,
                "session_start_limit": limit}  # fmt: skip

    async def get_application(self, req: Req) -> Any:
        emu = self.emu
        return {
            "id": str(emu.application_id),
            "name": emu._bot.name,
            "icon": None,
            "description": "",
            "summary": "",
            "type": None,
            "bot_public": True,
            "bot_require_code_grant": False,
            "verify_key": "0" * 64,
            "flags": emu.application_flags,
            "owner": emu.owner.to_dict(),
            "team": None,
            "bot": emu.bot_user,
            "interactions_endpoint_url": None,
            "redirect_uris": [],
            "tags": [],
            "approximate_guild_count": len(emu.guilds),
        }

    # -- application commands ---------------------------------------------
    def _app(self, req: Req) -> int | None:
        if req.params["app"] != str(self.emu.application_id):
            raise ApiError(
                403, 50001, "Missing Access", violation=f"wrong application id {req.params['app']}"
            )
        gid = req.params.get("guild_id")
        if gid is not None and int(gid) not in self.emu.guilds:
            raise ApiError(
                403, 50001, "Missing Access", violation=f"commands for unknown guild {gid}"
            )
        return int(gid) if gid is not None else None

    async def get_commands(self, req: Req) -> Any:
        return self.emu.commands(self._app(req))

    async def put_commands(self, req: Req) -> Any:
        guild_id = self._app(req)
        self.emu.activities.check_commands(req.body or [], guild_id, bulk=True)
        stored = store_commands(self.emu, req.body or [], guild_id)
        self.emu.sync_count += 1
        self.emu.commands_event.set()
        return stored

    async def post_command(self, req: Req) -> Any:
        guild_id = self._app(req)
        self.emu.activities.check_commands([req.body], guild_id, bulk=False)
        cmds = self.emu._commands.setdefault(guild_id, [])
        # names are unique per command type: a create with one of another type adds
        kind = req.body.get("type") or 1
        old = next((c for c in cmds if (c["name"], c["type"]) == (req.body["name"], kind)), None)
        obj = command_object(self.emu, req.body, guild_id, old["id"] if old else None)
        cmds[:] = [c for c in cmds if c is not old] + [obj]
        return obj

    # -- activities / OAuth2 -------------------------------------------------
    async def get_activity_instance(self, req: Req) -> Any:
        self._app(req)
        return self.emu.activities.payload(req.params["instance_id"])

    async def oauth_token(self, req: Req) -> Any:
        return self.emu.oauth.token(req.body, req.request.headers.get("Authorization"))

    # -- interactions / webhooks ------------------------------------------
    async def callback(self, req: Req) -> Any:
        with_response = req.request.query.get("with_response", "").lower() in ("1", "true")
        body = req.body if isinstance(req.body, dict) else {}
        return await ix.handle_callback(
            self.emu,
            req.params["iid"],
            req.params["token"],
            body,
            with_response,
            received_at=req.request[RECEIVED_AT],
        )

    async def followup(self, req: Req) -> Any:
        rec = ix.webhook_record(self.emu, req.params["app"], req.params["token"])
        msg = ix.webhook_followup(self.emu, rec, req.body or {})
        return msg if req.request.query.get("wait", "").lower() in ("1", "true") else None

    async def wh_get(self, req: Req) -> Any:
        rec = ix.webhook_record(self.emu, req.params["app"], req.params["token"])
        return ix.webhook_get(self.emu, rec, req.params["mid"])

    async def wh_edit(self, req: Req) -> Any:
        rec = ix.webhook_record(self.emu, req.params["app"], req.params["token"])
        return ix.webhook_edit(self.emu, rec, req.params["mid"], req.body or {})

    async def wh_delete(self, req: Req) -> Any:
        rec = ix.webhook_record(self.emu, req.params["app"], req.params["token"])
        ix.webhook_delete(self.emu, rec, req.params["mid"])
        return None

    # -- channels / messages -----------------------------------------------
    def _channel_id(self, req: Req) -> int:
        cid = int(req.params["cid"])
        if cid not in self.emu.channels:
            raise unknown_channel()
        if not self.emu.channels[cid].bot_present:
            raise missing_access()  # a DM between users, or a server without the bot
        return cid

    def _message_id(self, req: Req) -> int:
        cid, mid = self._channel_id(req), int(req.params["mid"])
        emu = self.emu
        if (
            not emu.has_message(mid)
            or emu.is_ephemeral(mid)
            or emu.message(mid)["channel_id"] != str(cid)
        ):
            raise unknown_message()
        return mid

    async def get_channel(self, req: Req) -> Any:
        return self.emu.channels[self._channel_id(req)].to_dict()

    async def list_messages(self, req: Req) -> Any:
        msgs = self.emu.channel_messages(self._channel_id(req))
        limit = int(req.request.query.get("limit", "50"))
        return list(reversed(msgs))[:limit]

    async def post_message(self, req: Req) -> Any:
        cid = self._channel_id(req)
        channel = self.emu.channels[cid]
        if channel.is_thread and not channel.app_permissions & PERM_SEND_MESSAGES_IN_THREADS:
            raise missing_permissions()
        if channel.recipient is not None and not self.emu.dm_reachable(channel.recipient):
            raise cannot_message_user()
        _check_files(channel, req.body)
        body = req.body or {}
        sent = self.emu.sent_with_nonce(cid, body)
        if sent is not None:  # the same message sent again (a retry): Discord answers the first
            return sent
        return self.emu.store_message(cid, body)

    # -- threads ------------------------------------------------------------
    def _thread_parent(self, req: Req, private: bool) -> EmuChannel:
        channel = self.emu.channels[self._channel_id(req)]
        if channel.guild_id is None or channel.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        needed = PERM_CREATE_PRIVATE_THREADS if private else PERM_CREATE_PUBLIC_THREADS
        if not channel.app_permissions & needed:
            raise missing_permissions()
        return channel

    async def thread_from_message(self, req: Req) -> Any:
        mid = self._message_id(req)
        parent = self._thread_parent(req, private=False)
        if "thread" in self.emu.message(mid):
            raise ApiError(400, 160004, "A thread has already been created for this message")
        body = req.body or {}
        thread = self.emu.create_thread(
            parent, body["name"], message_id=mid,
            auto_archive_duration=body.get("auto_archive_duration") or 1440,
        )  # fmt: skip
        return thread.to_dict()

    async def thread_alone(self, req: Req) -> Any:
        body = req.body or {}
        kind = body.get("type") or 12  # Discord's default: a private thread
        if kind not in (11, 12):
            raise ApiError(400, 50035, "Invalid Form Body",
                           violation=f"thread type {kind} without a message")  # fmt: skip
        parent = self._thread_parent(req, private=kind == 12)
        thread = self.emu.create_thread(
            parent, body["name"], type=kind,
            auto_archive_duration=body.get("auto_archive_duration") or 1440,
        )  # fmt: skip
        return thread.to_dict()

    async def get_message(self, req: Req) -> Any:
        return self.emu.message(self._message_id(req))

    async def edit_message(self, req: Req) -> Any:
        mid = self._message_id(req)
        if self.emu.message(mid)["author"]["id"] != str(self.emu.application_id):
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        _check_files(self.emu.channels[self._channel_id(req)], req.body)
        return self.emu.edit_message(mid, req.body or {})

    async def delete_message(self, req: Req) -> Any:
        self.emu.delete_message(self._message_id(req))
        return None

    # -- guilds -----------------------------------------------------------
    def _guild(self, req: Req) -> EmuGuild:
        guild = self.emu.guilds.get(int(req.params["guild_id"]))
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        if not guild.has_bot:
            raise missing_access()
        return guild

    async def get_guild(self, req: Req) -> Any:
        guild = self._guild(req)
        return guild.base_dict()

    async def get_guild_channels(self, req: Req) -> Any:
        guild = self._guild(req)
        return [c.to_dict() for c in guild.channels]

    async def get_emoji(self, req: Req) -> Any:
        guild = self._guild(req)
        emoji = guild.emojis.get(int(req.params["emoji_id"]))
        if emoji is None:
            raise ApiError(404, 10014, "Unknown Emoji")
        return emoji

    async def get_member(self, req: Req) -> Any:
        guild = self._guild(req)
        uid = int(req.params["user_id"])
        if guild is None or uid not in guild.member_ids:
            raise ApiError(404, 10007, "Unknown Member")
        # The spec's GuildMemberResponse: no ``permissions`` (only an interaction's member
        # carries the member's permissions in its channel).
        return member_dict(self.emu.users[uid], guild)


def _check_files(channel: EmuChannel, body: Any) -> None:
    """Uploading a file on the bot's own account in a server takes Attach Files (an
    interaction's answer does not: Discord grants that to every app's responses)."""
    uploads = body.get(UPLOADS) if isinstance(body, dict) else None
    if uploads and channel.guild_id is not None and not channel.app_permissions & PERM_ATTACH_FILES:
        raise missing_permissions()
