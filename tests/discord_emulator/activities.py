"""The app's Activity as Discord runs it: instances per channel, the entry point command
(``PRIMARY_ENTRY_POINT``) and the ``LAUNCH_ACTIVITY`` interaction callback.

Discord's docs: resources/application (Get Application Activity Instance),
interactions/application-commands (Entry Point Commands), activities/how-activities-work
and development-guides/multiplayer-experience (instance ids and their lifecycle).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .commands import (
    APP_HANDLER,
    DISCORD_LAUNCH_ACTIVITY,
    PRIMARY_ENTRY_POINT,
    CommandError,
    check_offered,
    command_object,
    install_owners,
)
from .errors import ApiError
from .interactions import InteractionRecord, InteractionResult
from .state import EmuChannel, EmuUser
from .validation import BodyError, discord_errors

if TYPE_CHECKING:
    from .server import DiscordEmulator

EMBEDDED = 1 << 17
"""The application flag of an app with an Activity."""
LAUNCHED_FROM = (2, 3, 5)
"""APPLICATION_COMMAND, MESSAGE_COMPONENT and MODAL_SUBMIT: the interactions Discord lets
an app answer with LAUNCH_ACTIVITY (change log, "Activities can now be launched...")."""
KEEP_ENTRY_POINT = (
    "You cannot remove this app's Primary Entry Point command in a bulk update operation. "
    "Please include the Primary Entry Point command in your update request or delete it "
    "separately."
)


@dataclass
class ActivityInstance:
    """One running Activity: where, since which launch, and who is connected."""

    launch_id: int
    channel: EmuChannel
    users: list[int] = field(default_factory=list)

    @property
    def location_id(self) -> str:
        ch = self.channel
        return f"gc-{ch.guild_id}-{ch.id}" if ch.guild_id is not None else f"pc-{ch.id}"

    @property
    def instance_id(self) -> str:
        """Shaped like Discord's: ``i-{launch_id}-gc-{guild_id}-{channel_id}``."""
        return f"i-{self.launch_id}-{self.location_id}"

    def to_dict(self, application_id: int) -> dict[str, Any]:
        """The spec's ``EmbeddedActivityInstance``."""
        ch = self.channel
        location: dict[str, Any] = {"id": self.location_id, "channel_id": str(ch.id)}
        if ch.guild_id is not None:
            location |= {"kind": "gc", "guild_id": str(ch.guild_id)}
        else:
            location["kind"] = "pc"
        return {
            "application_id": str(application_id),
            "instance_id": self.instance_id,
            "launch_id": str(self.launch_id),
            "location": location,
            "users": [str(u) for u in self.users],
        }


class Activities:
    """The running instances of the app's Activity, by instance id."""

    def __init__(self, emu: DiscordEmulator) -> None:
        self.emu = emu
        self.instances: dict[str, ActivityInstance] = {}

    def payload(self, instance_id: str) -> dict[str, Any]:
        """``GET .../activity-instances/{id}``. Raises ApiError: Discord's 404 for an
        instance that never was or has ended ({"message": "404: Not Found", "code": 0}
        in its docs' example, no error code of its own)."""
        instance = self.instances.get(instance_id)
        if instance is None:
            raise ApiError(404, 0, "404: Not Found")
        return instance.to_dict(self.emu.application_id)

    def in_channel(self, channel: EmuChannel) -> ActivityInstance | None:
        return next((i for i in self.instances.values() if i.channel is channel), None)

    def launch(self, user: EmuUser, channel: EmuChannel) -> ActivityInstance:
        """``user`` opens the Activity in ``channel``: they join the channel's instance, or
        start one (a new launch id). A member is in one Activity at a time, as in
        Discord's client: they leave the one they were in.

        Raises:
            ValueError: the app has no Activity (``emu.embedded`` off), ``user`` is a bot
                or cannot see ``channel``.
        """
        if not self.emu.embedded:
            raise ValueError("the app has no Activity: emu.embedded is off")
        _check_present(self.emu, user, channel)
        instance = self.in_channel(channel)
        if instance is not None and user.id in instance.users:
            return instance
        for other in list(self.instances.values()):
            if user.id in other.users:
                self.leave(user, other.instance_id)
        if instance is None:
            instance = ActivityInstance(self.emu.snowflakes.next(), channel)
            self.instances[instance.instance_id] = instance
        instance.users.append(user.id)
        return instance

    def leave(self, user: EmuUser, instance_id: str) -> None:
        """``user`` closes the Activity; the instance ends with its last user ("that
        instance has finished its lifecycle, and will not be used again").

        Raises:
            LookupError: no such instance, or ``user`` is not in it.
        """
        instance = self.instances.get(instance_id)
        if instance is None or user.id not in instance.users:
            raise LookupError(f"{user.name} is not in activity instance {instance_id}")
        instance.users.remove(user.id)
        if not instance.users:
            del self.instances[instance_id]

    def launch_for(self, rec: InteractionRecord) -> str:
        """The ``LAUNCH_ACTIVITY`` answer to ``rec``: its user joins the channel's instance.

        Raises:
            ApiError: 400 for an interaction type Discord does not launch from, or an app
                without an Activity.
        """
        if rec.type not in LAUNCHED_FROM or not self.emu.embedded:
            why = (
                f"interaction type {rec.type} cannot launch one"
                if self.emu.embedded
                else "the app has no Activity (emu.embedded is off)"
            )
            refusal = {"code": "INTERACTION_RESPONSE_TYPE_INVALID", "message": "Invalid type"}
            raise ApiError(
                400, 50035, "Invalid Form Body", errors={"type": {"_errors": [refusal]}},
                violation=f"{rec.describe()}: LAUNCH_ACTIVITY refused: {why}",
            )  # fmt: skip
        channel = self.emu.channels[rec.channel_id]
        return self.launch(rec.user, channel).instance_id

    # -- the entry point command -----------------------------------------
    def entry_point(self) -> dict[str, Any] | None:
        """The global PRIMARY_ENTRY_POINT command, if synced."""
        return next((c for c in self.emu._commands.get(None, [])
                     if c.get("type") == PRIMARY_ENTRY_POINT), None)  # fmt: skip

    def add_default_entry_point(self, handler: int = DISCORD_LAUNCH_ACTIVITY) -> dict[str, Any]:
        """What enabling Activities in the developer portal does: a global entry point
        command named "launch" (handler DISCORD_LAUNCH_ACTIVITY). From then on, a global
        bulk overwrite without an entry point is refused (50240)."""
        cmd = command_object(self.emu, {"name": "launch", "type": PRIMARY_ENTRY_POINT,
                                        "description": "Launch", "handler": handler,
                                        "integration_types": [0, 1],
                                        "contexts": [0, 1, 2]}, None)  # fmt: skip
        self.emu._commands.setdefault(None, []).append(cmd)
        return copy.deepcopy(cmd)

    def check_commands(
        self, body: Iterable[dict[str, Any]], guild_id: int | None, *, bulk: bool
    ) -> None:
        """Discord's rules on entry point commands, which the spec does not express.

        Raises:
            BodyError: an entry point for an app without an Activity, in a server's
                commands, with options, or a second one; ``handler`` on another type.
            ApiError: 50240, a global bulk overwrite that would delete the entry point.
        """
        body = list(body)
        existing = self.entry_point()
        entry_points = [i for i, c in enumerate(body) if c.get("type") == PRIMARY_ENTRY_POINT]
        for i, cmd in enumerate(body):
            problem = _entry_point_problem(cmd, guild_id, embedded=self.emu.embedded)
            if problem is None and i in entry_points[1:]:
                problem = "an app has at most one PRIMARY_ENTRY_POINT command"
            if (problem is None and not bulk and i in entry_points and existing is not None
                    and existing["name"] != cmd.get("name")):  # fmt: skip
                problem = f"the app already has an entry point, {existing['name']!r}"
            if problem is not None:
                where: list[str | int] = [i] if bulk else []
                raise BodyError(problem, discord_errors(where, "APPLICATION_COMMAND_INVALID",
                                                        problem))  # fmt: skip
            if i in entry_points and cmd.get("handler") is None:
                self.emu.violation(
                    f"entry point command {cmd.get('name')!r} without a handler: Discord "
                    "documents no default, so send 1 (APP_HANDLER) or 2 (DISCORD_LAUNCH_ACTIVITY)"
                )
        if bulk and guild_id is None and existing is not None and not entry_points:
            raise ApiError(
                400, 50240, KEEP_ENTRY_POINT,
                violation=f"a global bulk overwrite without the entry point {existing['name']!r}",
            )  # fmt: skip

    async def invoke_entry_point(
        self, user: EmuUser, channel: Any = None, locale: str | None = None
    ) -> InteractionResult | str:
        """``user`` picks the app in the App Launcher. With APP_HANDLER, the bot gets an
        APPLICATION_COMMAND interaction whose ``data.type`` is 4 (the result, as for
        :meth:`invoke`); with DISCORD_LAUNCH_ACTIVITY, Discord launches the Activity
        itself and the bot hears nothing: the instance id is returned.

        Raises:
            CommandError: no entry point is synced, the app has no Activity, or the
                command is not offered in ``channel``.
        """
        emu = self.emu
        cmd = self.entry_point()
        if cmd is None or not emu.embedded:
            raise CommandError(
                "the App Launcher shows no entry point: "
                + ("none is synced" if cmd is None else "emu.embedded is off")
            )
        ch = emu._channel(channel)
        check_offered(cmd, ch)
        owners = install_owners(emu, ch, user)
        if cmd.get("handler") == DISCORD_LAUNCH_ACTIVITY:
            return self.launch(user, ch).instance_id
        rec = emu._new_record(user, 2, ch, cmd["name"])
        rec.owners, rec.command_type = owners, PRIMARY_ENTRY_POINT
        data = {"id": cmd["id"], "name": cmd["name"], "type": PRIMARY_ENTRY_POINT}
        rec.payload = emu._base_interaction(rec, ch, locale or user.locale) | {"data": data}
        return await emu._run(rec, False)


def _entry_point_problem(
    cmd: dict[str, Any], guild_id: int | None, *, embedded: bool
) -> str | None:
    if cmd.get("type") != PRIMARY_ENTRY_POINT:
        if cmd.get("handler") is not None:
            return "handler is only for PRIMARY_ENTRY_POINT commands"
        return None
    if not embedded:
        return "only an app with Activities enabled (EMBEDDED) has an entry point command"
    if guild_id is not None:
        return "a PRIMARY_ENTRY_POINT command cannot be a server's command"
    if cmd.get("options"):
        return "a PRIMARY_ENTRY_POINT command has no options"
    if cmd.get("handler") not in (None, APP_HANDLER, DISCORD_LAUNCH_ACTIVITY):
        return f"handler {cmd.get('handler')!r} is not 1 or 2"
    return None


def _check_present(emu: DiscordEmulator, user: EmuUser, channel: EmuChannel) -> None:
    """Only a user who is in ``channel`` (its server, its DM) can open an Activity there."""
    if user.bot or emu.users.get(user.id) is not user:
        raise ValueError(f"{user.name} is not a user of this emulator who can open an Activity")
    if channel.recipients:
        present = user in channel.recipients
    elif channel.guild_id is None:
        present = channel.recipient is not None and channel.recipient.id == user.id
    else:
        present = user.id in emu.guilds[channel.guild_id].member_ids
    if not present:
        raise ValueError(f"{user.name} cannot see channel {channel.id}")


class ActivityActions:
    """Mixin of DiscordEmulator: what a member's Discord client does with the Activity
    (the emulator's ``activities`` does the work)."""

    activities: Activities
    channel: EmuChannel
    channels: dict[int, EmuChannel]

    def launch_activity(self, user: EmuUser, channel: Any = None) -> str:
        """``user`` opens the Activity in ``channel`` (default: the emulator's channel),
        joining its running instance or starting one. Returns the instance id."""
        return self.activities.launch(user, self._activity_channel(channel)).instance_id

    def leave_activity(self, user: EmuUser, instance_id: str) -> None:
        """``user`` closes the Activity; its last user leaving ends the instance."""
        self.activities.leave(user, instance_id)

    def activity_instance(self, instance_id: str) -> dict[str, Any] | None:
        """The instance as ``GET .../activity-instances/{id}`` returns it, or None."""
        instance = self.activities.instances.get(instance_id)
        return None if instance is None else self.activities.payload(instance_id)

    async def invoke_entry_point(
        self, user: EmuUser, channel: Any = None, locale: str | None = None
    ) -> InteractionResult | str:
        """See :meth:`Activities.invoke_entry_point`."""
        return await self.activities.invoke_entry_point(user, channel, locale)

    def add_default_entry_point(self, handler: int = DISCORD_LAUNCH_ACTIVITY) -> dict[str, Any]:
        """See :meth:`Activities.add_default_entry_point`."""
        return self.activities.add_default_entry_point(handler)

    def _activity_channel(self, channel: Any) -> EmuChannel:
        if channel is None:
            return self.channel
        return self.channels[channel.id if isinstance(channel, EmuChannel) else int(channel)]
