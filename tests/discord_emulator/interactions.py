"""Interaction lifecycle: records, initial callbacks, webhook (@original / follow-up) messages."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .components import text_of
from .errors import ApiError, unknown_message
from .state import EmuUser

if TYPE_CHECKING:
    from .rest import RequestRecord
    from .server import DiscordEmulator

EPHEMERAL, LOADING, SUPPRESS_EMBEDS, SUPPRESS_NOTIFICATIONS, COMPONENTS_V2 = (
    64,
    128,
    4,
    4096,
    1 << 15,
)
LAUNCH_ACTIVITY = 12
USER_INSTALL_FOLLOWUPS = 5
"""Follow-ups Discord allows an interaction authorised only by a user install."""
CREATE_FLAGS = EPHEMERAL | SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS | COMPONENTS_V2
WAIT_CEILING = 60.0
"""Seconds a wait for something the bot does (an edit, a message, READY) gives up after
by default. Only a safety net: a busy machine answers late, so a test waits for the state
it checks, never for a time; Discord's own deadlines (3 s for an initial response) are
enforced separately, as violations."""


@dataclass
class InteractionRecord:
    id: int
    token: str
    type: int
    user: EmuUser
    guild_id: int | None
    channel_id: int
    name: str
    source_message_id: int | None = None
    created: float = field(default_factory=time.monotonic)
    issued: float = 0.0
    """When its token was issued, on the emulator's token clock (``emu.now()``)."""
    response_type: int | None = None
    response_at: float | None = None
    original_message_id: int | None = None
    ephemeral: bool = False
    followup_ids: list[int] = field(default_factory=list)
    updates: int = 0
    responded: asyncio.Event = field(default_factory=asyncio.Event)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    payload: dict[str, Any] = field(default_factory=dict)
    owners: dict[str, str] = field(default_factory=dict)
    """``authorizing_integration_owners``: "0" for the server's (or bot DM's) install,
    "1" for a user's own."""
    command_type: int = 1
    """The command's type: 1 for a slash command, 4 for the entry point."""
    activity_instance_id: str | None = None
    """The Activity instance a LAUNCH_ACTIVITY answer launched or joined."""
    forced_ephemeral: bool = False
    """Only a member's own install reaches a server where they lack Use External Apps:
    Discord makes every response and follow-up ephemeral."""

    @property
    def user_only(self) -> bool:
        """Authorised by a user install alone: at most 5 follow-ups."""
        return "0" not in self.owners

    def describe(self) -> str:
        kind = {2: "command", 3: "component", 5: "modal submit"}.get(self.type, str(self.type))
        return f"interaction {self.id} ({kind} {self.name!r} by {self.user.name})"

    def bump(self) -> None:
        self.updates += 1
        self.changed.set()


class InteractionResult:
    """What the test sees after invoke()/click(): the initial response and its messages."""

    def __init__(self, emu: DiscordEmulator, record: InteractionRecord) -> None:
        self._emu = emu
        self.record = record

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def token(self) -> str:
        return self.record.token

    @property
    def type(self) -> int | None:
        return self.record.response_type

    @property
    def ephemeral(self) -> bool:
        return self.record.ephemeral

    @property
    def activity_instance_id(self) -> str | None:
        """The Activity instance the answer (LAUNCH_ACTIVITY) launched or joined."""
        return self.record.activity_instance_id

    @property
    def message(self) -> dict[str, Any] | None:
        mid = self.record.original_message_id
        return self._emu.message(mid) if mid is not None and self._emu.has_message(mid) else None

    @property
    def content(self) -> str | None:
        return None if self.message is None else self.message["content"]

    @property
    def text(self) -> str | None:
        """What a member reads: the content, or a v2 message's text displays."""
        return None if self.message is None else text_of(self.message)

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return [] if self.message is None else self.message["embeds"]

    @property
    def components(self) -> list[dict[str, Any]]:
        return [] if self.message is None else self.message["components"]

    @property
    def followups(self) -> list[dict[str, Any]]:
        return [self._emu.message(m) for m in self.record.followup_ids if self._emu.has_message(m)]

    @property
    def answers(self) -> list[RequestRecord]:
        """Every request that tried to answer this interaction, refused ones included:
        its initial responses, and the calls through its token's webhook."""
        callback = f"/interactions/{self.record.id}/"
        webhook = f"/webhooks/{self._emu.application_id}/{self.record.token}"
        return [
            r for r in self._emu.requests
            if r.path.startswith(callback) or r.path == webhook
            or r.path.startswith(webhook + "/")
        ]  # fmt: skip

    @property
    def latency(self) -> float | None:
        r = self.record
        return None if r.response_at is None else r.response_at - r.created

    async def wait_for_edit(
        self, timeout: float = WAIT_CEILING, count: int = 1
    ) -> dict[str, Any] | None:
        """Wait until @original was edited / follow-ups were sent `count` times in total."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while self.record.updates < count:
            self.record.changed.clear()
            remaining = end - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"{self.record.describe()}: no edit/follow-up within {timeout}s")
            try:
                await asyncio.wait_for(self.record.changed.wait(), remaining)
            except TimeoutError:
                continue
        return self.message

    def __repr__(self) -> str:
        return (
            f"<InteractionResult type={self.type} ephemeral={self.ephemeral} "
            f"content={self.content!r}>"
        )


def _metadata(rec: InteractionRecord) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "id": str(rec.id),
        "type": rec.type,
        "user": rec.user.to_dict(),
        "authorizing_integration_owners": dict(rec.owners),
    }
    if rec.type == 2:
        meta["name"] = rec.name
        meta["command_type"] = rec.command_type
    if rec.source_message_id is not None:
        meta["interacted_message_id"] = str(rec.source_message_id)
    return meta


def _create(emu: DiscordEmulator, rec: InteractionRecord, data: dict[str, Any], flags: int) -> int:
    body = dict(data)
    if rec.forced_ephemeral:
        flags |= EPHEMERAL
    body["flags"] = flags
    msg_type = 20 if rec.type == 2 else 0
    ephemeral = bool(flags & EPHEMERAL)
    msg = emu.store_message(
        rec.channel_id,
        body,
        message_type=msg_type,
        interaction_metadata=_metadata(rec),
        ephemeral_for=rec.user.id if ephemeral else None,
        interaction_id=rec.id,
    )
    return int(msg["id"])


async def handle_callback(
    emu: DiscordEmulator,
    interaction_id: str,
    token: str,
    body: Any,
    with_response: bool,
    received_at: float | None = None,
) -> Any:
    """Apply an initial response; ``received_at`` is when the request reached us."""
    arrived = time.monotonic() if received_at is None else received_at
    rec = emu.interactions.get(int(interaction_id)) if interaction_id.isdigit() else None
    if rec is None or rec.token != token:
        raise ApiError(
            404,
            10062,
            "Unknown interaction",
            violation=f"callback for unknown interaction {interaction_id}",
        )
    elapsed = arrived - rec.created
    if rec.response_type is not None:
        raise ApiError(
            400,
            40060,
            "Interaction has already been acknowledged.",
            violation=f"{rec.describe()}: second initial response (type {body.get('type')})",
        )
    if elapsed > emu.interaction_deadline:
        raise ApiError(
            404,
            10062,
            "Unknown interaction",
            violation=f"{rec.describe()}: initial response after {elapsed:.2f}s "
            f"(deadline {emu.interaction_deadline}s) - the user saw 'This interaction failed'",
        )
    rtype = body.get("type")
    data = body.get("data") or {}
    if rtype in (6, 7) and rec.type not in (3, 5):
        raise ApiError(
            400,
            50035,
            "Invalid Form Body",
            errors={
                "type": {
                    "_errors": [
                        {"code": "INTERACTION_RESPONSE_TYPE_INVALID", "message": "Invalid type"}
                    ]
                }
            },
            violation=f"{rec.describe()}: response type {rtype} is only for component interactions",
        )
    if rtype == LAUNCH_ACTIVITY:
        rec.activity_instance_id = emu.activities.launch_for(rec)
    elif rtype not in (4, 5, 6, 7, 9):
        raise ApiError(
            400,
            50035,
            "Invalid Form Body",
            violation=f"{rec.describe()}: unsupported response type {rtype}",
        )
    if rtype == 4:
        flags = int(data.get("flags") or 0) & CREATE_FLAGS
        rec.original_message_id = _create(emu, rec, data, flags)
        rec.ephemeral = bool(flags & EPHEMERAL)
    elif rtype == 5:
        flags = (int(data.get("flags") or 0) & EPHEMERAL) | LOADING
        rec.original_message_id = _create(emu, rec, {"content": ""}, flags)
        rec.ephemeral = bool(flags & EPHEMERAL)
    elif rtype in (6, 7):
        if rtype == 7 and rec.source_message_id and not emu.has_message(rec.source_message_id):
            raise unknown_message()  # deleted since the click: the interaction stays open
        rec.original_message_id = rec.source_message_id
        rec.ephemeral = emu.is_ephemeral(rec.source_message_id) if rec.source_message_id else False
        if rtype == 7 and rec.source_message_id is not None:
            emu.edit_message(rec.source_message_id, data, prefix=["data"])
    rec.response_type = rtype
    rec.response_at = arrived
    rec.responded.set()
    if not with_response:
        return None
    interaction: dict[str, Any] = {"id": str(rec.id), "type": rec.type}
    if rec.original_message_id is not None and rtype in (4, 5, 7):
        interaction["response_message_id"] = str(rec.original_message_id)
        interaction["response_message_loading"] = rtype == 5
        interaction["response_message_ephemeral"] = rec.ephemeral
    out: dict[str, Any] = {"interaction": interaction}
    if rtype == LAUNCH_ACTIVITY and rec.activity_instance_id is not None:
        interaction["activity_instance_id"] = rec.activity_instance_id
        out["resource"] = {"type": rtype, "activity_instance": {"id": rec.activity_instance_id}}
    if rtype in (4, 7) and rec.original_message_id is not None:
        out["resource"] = {"type": rtype, "message": emu.message(rec.original_message_id)}
    return out


def webhook_record(emu: DiscordEmulator, application_id: str, token: str) -> InteractionRecord:
    rec = emu.interactions_by_token.get(token)
    if rec is None or application_id != str(emu.application_id):
        raise ApiError(
            404,
            10015,
            "Unknown Webhook",
            violation=f"webhook call with unknown token {token[:12]}...",
        )
    if emu.now() - rec.issued > emu.token_lifetime:
        raise ApiError(
            401,
            50027,
            "Invalid Webhook Token",
            violation=f"{rec.describe()}: token used after expiry",
        )
    return rec


def _owned(rec: InteractionRecord, message_id: str) -> int:
    if message_id == "@original":
        if rec.original_message_id is None or rec.response_type == 9:
            raise unknown_message()
        return rec.original_message_id
    mid = int(message_id) if message_id.isdigit() else -1
    if mid != rec.original_message_id and mid not in rec.followup_ids:
        raise unknown_message()
    return mid


def webhook_get(emu: DiscordEmulator, rec: InteractionRecord, message_id: str) -> dict[str, Any]:
    mid = _owned(rec, message_id)
    if not emu.has_message(mid):
        raise unknown_message()
    return emu.message(mid)


def webhook_edit(
    emu: DiscordEmulator, rec: InteractionRecord, message_id: str, body: dict[str, Any]
) -> dict[str, Any]:
    mid = _owned(rec, message_id)
    if not emu.has_message(mid):
        raise unknown_message()
    msg = emu.edit_message(mid, body, clear_loading=True)
    rec.bump()
    return msg


def webhook_delete(emu: DiscordEmulator, rec: InteractionRecord, message_id: str) -> None:
    mid = _owned(rec, message_id)
    if not emu.has_message(mid):
        raise unknown_message()
    emu.delete_message(mid)


def webhook_followup(
    emu: DiscordEmulator, rec: InteractionRecord, body: dict[str, Any]
) -> dict[str, Any]:
    if rec.response_type is None:
        raise ApiError(
            404,
            10015,
            "Unknown Webhook",
            violation=f"{rec.describe()}: follow-up sent before the initial response",
        )
    original = rec.original_message_id
    if (
        rec.response_type == 5
        and original is not None
        and emu.has_message(original)
        and emu.message(original)["flags"] & LOADING
    ):
        # The first follow-up after a deferral replaces the "thinking..." message
        # (and keeps the deferral's ephemeral setting).
        msg = emu.edit_message(original, body, clear_loading=True)
        rec.bump()
        return msg
    if rec.user_only and len(rec.followup_ids) >= USER_INSTALL_FOLLOWUPS:
        # Discord documents the limit, not the error's code
        raise ApiError(
            400, 30000, f"Maximum number of follow-up messages reached ({USER_INSTALL_FOLLOWUPS})",
            violation=f"{rec.describe()}: follow-up number {len(rec.followup_ids) + 1} of an "
            "interaction authorised by a user install alone",
        )  # fmt: skip
    flags = int(body.get("flags") or 0) & CREATE_FLAGS
    mid = _create(emu, rec, body, flags)
    rec.followup_ids.append(mid)
    rec.bump()
    return emu.message(mid)
