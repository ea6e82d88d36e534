"""In-memory Discord world: snowflakes, users, guilds, channels and payload builders."""

from __future__ import annotations

import datetime as _dt
import mimetypes
import struct
import time
from dataclasses import dataclass, field
from typing import Any

from .components import IS_COMPONENTS_V2, number, walk
from .errors import ApiError

DISCORD_EPOCH_MS = 1420070400000

# Permission bits used for @everyone and app_permissions.
PERM_MANAGE_GUILD = 1 << 5
PERM_ADD_REACTIONS = 1 << 6
PERM_VIEW_CHANNEL = 1 << 10
PERM_SEND_MESSAGES = 1 << 11
PERM_MANAGE_MESSAGES = 1 << 13
"""Not in DEFAULT_PERMISSIONS: a moderator's (give it through ``user.permissions``)."""
PERM_EMBED_LINKS = 1 << 14
PERM_ATTACH_FILES = 1 << 15
PERM_READ_MESSAGE_HISTORY = 1 << 16
PERM_MENTION_EVERYONE = 1 << 17
PERM_USE_EXTERNAL_EMOJIS = 1 << 18
PERM_USE_APPLICATION_COMMANDS = 1 << 31
PERM_CREATE_PUBLIC_THREADS = 1 << 35
PERM_CREATE_PRIVATE_THREADS = 1 << 36
PERM_SEND_MESSAGES_IN_THREADS = 1 << 38
PERM_USE_EXTERNAL_APPS = 1 << 50
"""Lets a member's own apps answer publicly in a server that did not install them
(enabled by default; without it Discord makes such an app's responses ephemeral)."""
DEFAULT_PERMISSIONS = (
    PERM_ADD_REACTIONS
    | PERM_VIEW_CHANNEL
    | PERM_SEND_MESSAGES
    | PERM_EMBED_LINKS
    | PERM_ATTACH_FILES
    | PERM_READ_MESSAGE_HISTORY
    | PERM_USE_EXTERNAL_EMOJIS
    | PERM_USE_APPLICATION_COMMANDS
    | PERM_USE_EXTERNAL_APPS
    | PERM_CREATE_PUBLIC_THREADS
    | PERM_CREATE_PRIVATE_THREADS
    | PERM_SEND_MESSAGES_IN_THREADS
)
THREAD_TYPES = (10, 11, 12)
"""Announcement, public and private threads."""
DM_APP_PERMISSIONS = (
    PERM_ATTACH_FILES | PERM_EMBED_LINKS | PERM_MENTION_EVERYONE | PERM_USE_EXTERNAL_EMOJIS
)
"""What Discord sends as ``app_permissions`` in a DM with the bot: no View Channel or Send
Messages bit, though the bot can post there ("ATTACH_FILES | EMBED_LINKS |
MENTION_EVERYONE ... and additionally USE_EXTERNAL_EMOJIS for DMs with the app's bot user")."""
USER_APP_PERMISSIONS = PERM_ATTACH_FILES | PERM_EMBED_LINKS | PERM_MENTION_EVERYONE
"""``app_permissions`` where only a member's own install reaches: (group) DMs between
users, and (here) servers that did not add the bot."""


class SnowflakeGenerator:
    """Monotonic Discord-style snowflakes (timestamp << 22 | increment)."""

    def __init__(self) -> None:
        self._last = 0

    def next(self) -> int:
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        candidate = (ms << 22) | (1 << 17)
        if candidate <= self._last:
            candidate = self._last + 1
        self._last = candidate
        return candidate

    def str(self) -> str:
        return str(self.next())


def iso_now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat()


@dataclass
class EmuUser:
    id: int
    name: str
    bot: bool = False
    locale: str = "en-US"
    global_name: str | None = None
    role_ids: list[int] = field(default_factory=list)
    permissions: int | None = None
    """The member's permissions in interactions (default: an ordinary member's)."""
    installed: bool = False
    """The user installed the app to their account (User Install): its commands then
    work in DMs between users, group DMs and servers that never added the bot."""
    dms_closed: bool = False
    """The user does not take DMs from the bot (DMs from server members turned off, or
    the bot blocked): the bot's messages in its DM with them are refused with 50007."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name,
            "discriminator": "0",
            "global_name": self.global_name if self.global_name is not None else self.name,
            "avatar": None,
            "bot": self.bot,
            "system": False,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
        }

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"


@dataclass
class EmuChannel:
    id: int
    guild_id: int | None
    """None for a DM channel (type 1) between ``recipient`` and the bot."""
    name: str
    type: int = 0
    position: int = 0
    app_permissions: int = field(default_factory=lambda: DEFAULT_PERMISSIONS)
    """What the bot may do here, sent as every interaction's app_permissions (a test may
    take bits away to play a channel where the bot lacks a permission)."""
    recipient: EmuUser | None = None
    """The user a DM channel is with (the bot being the other end)."""
    recipients: list[EmuUser] = field(default_factory=list)
    """The users of a DM (type 1) or group DM (type 3) between users: the bot is not in
    it, and only a member's own install of the app reaches it."""
    bot_present: bool = True
    """False in a private channel between users and in a server without the bot: every
    channel route answers 403 Missing Access, and no gateway event is sent for it."""
    parent_id: int | None = None
    """A thread's channel (types 11 and 12)."""
    owner_id: int | None = None
    """Who started a thread."""
    auto_archive_duration: int = 1440
    created: str = field(default_factory=iso_now)

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    @property
    def is_dm(self) -> bool:
        return self.guild_id is None

    def to_dict(self) -> dict[str, Any]:
        if self.recipients:  # a DM or group DM between users, as an interaction carries it
            data: dict[str, Any] = {
                "id": str(self.id), "type": self.type, "last_message_id": None, "flags": 0,
                "recipients": [u.to_dict() for u in self.recipients],
            }  # fmt: skip
            if self.type == 3:
                data["name"] = self.name or None
            return data
        if self.recipient is not None:  # Discord's DM channel object
            return {
                "id": str(self.id),
                "type": self.type,
                "last_message_id": None,
                "flags": 0,
                "recipients": [self.recipient.to_dict()],
            }
        if self.is_thread:  # Discord's thread channel object
            return {
                "id": str(self.id), "type": self.type, "guild_id": str(self.guild_id),
                "parent_id": str(self.parent_id), "owner_id": str(self.owner_id),
                "name": self.name, "last_message_id": None, "rate_limit_per_user": 0,
                "message_count": 0, "member_count": 1, "total_message_sent": 0, "flags": 0,
                "thread_metadata": {
                    "archived": False, "auto_archive_duration": self.auto_archive_duration,
                    "archive_timestamp": self.created, "locked": False,
                    "create_timestamp": self.created,
                },
            }  # fmt: skip
        return {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild_id),
            "name": self.name,
            "position": self.position,
            "permission_overwrites": [],
            "nsfw": False,
            "topic": None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "parent_id": None,
            "flags": 0,
        }


@dataclass
class EmuGuild:
    id: int
    name: str
    owner_id: int
    locale: str = "en-US"
    channels: list[EmuChannel] = field(default_factory=list)
    member_ids: list[int] = field(default_factory=list)
    joined_at: str = field(default_factory=iso_now)
    extra_roles: dict[int, str] = field(default_factory=dict)
    """Roles besides @everyone, by id (see DiscordEmulator.create_role)."""
    emojis: dict[int, dict[str, Any]] = field(default_factory=dict)
    """The server's custom emoji objects, by id (see DiscordEmulator.create_emoji)."""
    threads: list[EmuChannel] = field(default_factory=list)
    """Its active threads (sent in GUILD_CREATE beside the channels)."""
    has_bot: bool = True
    """False for a server that never added the bot: members reach the app there only
    through their own installs."""

    def role_dict(self, role_id: int, name: str) -> dict[str, Any]:
        return self.everyone_role() | {"id": str(role_id), "name": name, "position": 1,
                                       "permissions": "0"}  # fmt: skip

    def everyone_role(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": "@everyone",
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": 0,
            "permissions": str(DEFAULT_PERMISSIONS),
            "managed": False,
            "mentionable": False,
            "flags": 0,
        }

    def base_dict(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [self.everyone_role()]
            + [self.role_dict(rid, name) for rid, name in self.extra_roles.items()],
            "emojis": list(self.emojis.values()),
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": str(self.channels[0].id) if self.channels else None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "max_members": 500000,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": self.locale,
            "public_updates_channel_id": None,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "safety_alerts_channel_id": None,
        }


def member_dict(user: EmuUser, guild: EmuGuild, *, with_user: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = {
        "roles": [str(r) for r in user.role_ids if r in guild.extra_roles],
        "nick": None,
        "avatar": None,
        "banner": None,
        "joined_at": guild.joined_at,
        "premium_since": None,
        "deaf": False,
        "mute": False,
        "flags": 0,
        "pending": False,
        "communication_disabled_until": None,
    }
    if with_user:
        data["user"] = user.to_dict()
    return data


def guild_create_payload(guild: EmuGuild, users: dict[int, EmuUser]) -> dict[str, Any]:
    data = guild.base_dict()
    members = [member_dict(users[uid], guild) for uid in guild.member_ids if uid in users]
    data.update(
        {
            "joined_at": guild.joined_at,
            "large": False,
            "unavailable": False,
            "member_count": len(members),
            "voice_states": [],
            "members": members,
            "channels": [c.to_dict() for c in guild.channels],
            "threads": [t.to_dict() for t in guild.threads],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }
    )
    return data


def build_message(
    *,
    message_id: int,
    channel_id: int,
    author: dict[str, Any],
    body: dict[str, Any],
    application_id: int | None = None,
    message_type: int = 0,
    interaction_metadata: dict[str, Any] | None = None,
    files: dict[str, bytes] | None = None,
) -> dict[str, Any]:
    """A full Discord message object from a create-style request body (its file parts,
    if any, under :data:`UPLOADS`; their bytes go to ``files``)."""
    uploads = body.pop(UPLOADS, None)
    msg: dict[str, Any] = {
        "id": str(message_id),
        "type": message_type,
        "channel_id": str(channel_id),
        "author": author,
        "content": body.get("content") or "",
        "timestamp": iso_now(),
        "edited_timestamp": None,
        "tts": bool(body.get("tts") or False),
        "mention_everyone": False,
        "mentions": [],
        "mention_roles": [],
        "attachments": attachments(body.get("attachments"), channel_id, None, uploads, files),
        "embeds": list(body.get("embeds") or []),
        "components": _numbered(body.get("components")),
        "pinned": False,
        "flags": int(body.get("flags") or 0),
    }
    if application_id is not None:
        msg["application_id"] = str(application_id)
        msg["webhook_id"] = str(application_id)
    if interaction_metadata is not None:
        msg["interaction_metadata"] = interaction_metadata
    return msg


EDITABLE_FIELDS = ("content", "embeds", "components", "attachments", "allowed_mentions", "flags")


def apply_edit(
    msg: dict[str, Any], body: dict[str, Any], files: dict[str, bytes] | None = None
) -> dict[str, Any]:
    """Discord PATCH semantics: only provided fields are replaced (new files are added
    to the attachments kept)."""
    uploads = body.pop(UPLOADS, None)
    if "content" in body:
        msg["content"] = body["content"] or ""
    if "embeds" in body:
        msg["embeds"] = list(body["embeds"] or [])
    if "components" in body:
        msg["components"] = _numbered(body["components"])
    if "attachments" in body or uploads:
        items = body["attachments"] if "attachments" in body else msg["attachments"]
        msg["attachments"] = attachments(
            items, int(msg["channel_id"]), msg["attachments"], uploads, files
        )
    if "flags" in body and body["flags"] is not None:
        # only SUPPRESS_EMBEDS (4) can be toggled and IS_COMPONENTS_V2 set (never removed,
        # see components.check_edit); ephemeral/loading bits are kept.
        keep = msg.get("flags", 0) & ~4
        msg["flags"] = keep | (int(body["flags"]) & (4 | IS_COMPONENTS_V2))
    msg["edited_timestamp"] = iso_now()
    return msg


@dataclass(frozen=True)
class Upload:
    """A file part of a multipart request (``files[n]``), as Discord receives it."""

    field: str
    filename: str
    data: bytes
    content_type: str | None


UPLOADS = "_uploads"
"""The key under which the REST layer hands a message body its request's file parts."""


def attachments(
    items: Any, channel_id: int, existing: list[dict[str, Any]] | None = None,
    uploads: dict[str, Upload] | None = None, files: dict[str, bytes] | None = None,
) -> list[dict[str, Any]]:  # fmt: skip
    """Attachment objects for the `attachments` list of a body, as Discord's Uploading
    Files describes it: an entry with an existing attachment's id keeps that one; an entry
    with id ``n`` is the request's ``files[n]`` part (none: 400); parts no entry names are
    attached too. The bytes of each new one go to ``files`` under its id."""
    kept = {a["id"]: a for a in existing or []}
    parts = dict(uploads or {})
    out: list[dict[str, Any]] = []

    def attach(name: str, upload: Upload | None, description: Any) -> None:
        aid = str(SnowflakeGenerator().next() + len(out))
        url = f"https://cdn.discordapp.com/attachments/{channel_id}/{aid}/{name}"
        data = upload.data if upload is not None else b""
        found: dict[str, Any] = {
            "id": aid, "filename": name, "size": len(data), "url": url, "proxy_url": url,
            "content_type": _content_type(name, upload),
            "description": description,
        }  # fmt: skip
        found.update(_image_size(data))
        out.append(found)
        if files is not None and upload is not None:
            files[aid] = data

    for index, item in enumerate(items or []):
        if str(item.get("id")) in kept:
            out.append(kept[str(item["id"])])
            continue
        upload = parts.pop(f"files[{item.get('id')}]", None)
        if upload is None and uploads is not None:
            raise ApiError(
                400, 50035, "Invalid Form Body",
                violation=f"attachments[{index}] names files[{item.get('id')}], which was not sent",
            )  # fmt: skip
        attach(item.get("filename") or (upload.filename if upload else "file"), upload,
               item.get("description"))  # fmt: skip
    for upload in parts.values():
        attach(upload.filename, upload, None)
    return out


def _content_type(name: str, upload: Upload | None) -> str:
    """What Discord reports: the type it detects (a PNG is image/png whatever the part
    said; discord.py says application/octet-stream for every file), else the part's
    own, else the one the file name suggests."""
    if upload is not None and upload.data[:8] == b"\x89PNG\r\n\x1a\n":
        return "image/png"
    given = upload.content_type if upload is not None else None
    if given and given != "application/octet-stream":
        return given
    return mimetypes.guess_type(name)[0] or "application/octet-stream"


def _image_size(data: bytes) -> dict[str, int]:
    """A PNG's width and height, as Discord reports them for an image attachment."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return {"width": width, "height": height}
    return {}


def _numbered(components: Any) -> list[dict[str, Any]]:
    """The components as Discord stores them: no nulls, and every one with an id."""
    stored: list[dict[str, Any]] = strip_nulls(list(components or []))
    number(stored)
    return stored


def snapshot(value: Any) -> Any:
    """A deep copy of JSON-shaped data (dicts, lists and scalars, as messages are): what
    ``copy.deepcopy`` makes, without its memo, several times faster on a message."""
    if type(value) is dict:
        return {k: snapshot(v) for k, v in value.items()}
    if type(value) is list:
        return [snapshot(v) for v in value]
    return value


def strip_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: strip_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [strip_nulls(v) for v in value]
    return value


def buttons(message: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Rows of button dicts of a message: its action rows, top-level or in containers."""
    return [
        [c for c in row.get("components", []) if c.get("type") == 2]
        for row in iter_components(message.get("components") or [])
        if row.get("type") == 1
    ]


def iter_components(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every component of the tree, depth first (accessories after their section's text)."""
    return [comp for _, comp in walk(components)]


def find_button(
    message: dict[str, Any],
    label: str | None = None,
    custom_id: str | None = None,
    emoji: str | None = None,
) -> dict[str, Any] | None:
    """First button matching all given criteria (emoji matches by name or id)."""
    for comp in iter_components(message.get("components") or []):
        if comp.get("type") != 2:
            continue
        if label is not None and comp.get("label") != label:
            continue
        if custom_id is not None and comp.get("custom_id") != custom_id:
            continue
        if emoji is not None:
            e = comp.get("emoji") or {}
            if emoji not in (e.get("name"), e.get("id")):
                continue
        return comp
    return None
