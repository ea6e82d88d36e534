"""The app's Activity as Discord runs it: instances per channel, who is in them.

Discord's docs: resources/application (Get Application Activity Instance) and
activities/development-guides/multiplayer-experience (instance ids and their lifecycle).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import ApiError
from .state import EmuChannel, EmuUser

if TYPE_CHECKING:
    from .server import DiscordEmulator

EMBEDDED = 1 << 17
"""The application flag of an app with an Activity."""


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

    def _activity_channel(self, channel: Any) -> EmuChannel:
        if channel is None:
            return self.channel
        return self.channels[channel.id if isinstance(channel, EmuChannel) else int(channel)]
