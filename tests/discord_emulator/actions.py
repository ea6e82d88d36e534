"""User-side actions: slash-command invocations and button clicks (INTERACTION_CREATE)."""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import TYPE_CHECKING, Any

from .commands import (
    CONTEXT_BOT_DM,
    CONTEXT_GUILD,
    CONTEXT_PRIVATE_CHANNEL,
    build_command_data,
    install_owners,
)
from .interactions import InteractionRecord, InteractionResult
from .state import (
    DEFAULT_PERMISSIONS,
    PERM_USE_EXTERNAL_APPS,
    EmuChannel,
    EmuGuild,
    EmuUser,
    iter_components,
    member_dict,
)

if TYPE_CHECKING:
    from .server import DiscordEmulator


class InteractionActions:
    """Mixin of DiscordEmulator: what a Discord user does to trigger interactions."""

    def _base_interaction(
        self: DiscordEmulator, rec: InteractionRecord, channel: EmuChannel, locale: str
    ) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "id": str(rec.id),
            "application_id": str(self.application_id),
            "type": rec.type,
            "channel_id": str(channel.id),
            "channel": channel.to_dict(),
            "token": rec.token,
            "version": 1,
            "app_permissions": str(channel.app_permissions),
            "locale": locale,
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        owners = rec.owners
        if channel.recipients:  # a (group) DM between users: no member, no guild
            return payload | {"user": rec.user.to_dict(), "context": CONTEXT_PRIVATE_CHANNEL,
                              "authorizing_integration_owners": owners}  # fmt: skip
        if channel.guild_id is None:
            # a DM with the bot: the user, no member, no guild; the guild-install owner is "0"
            return payload | {
                "user": rec.user.to_dict(),
                "authorizing_integration_owners": owners,
                "context": CONTEXT_BOT_DM,
            }
        guild = self.guilds[channel.guild_id]
        permissions = (
            rec.user.permissions if rec.user.permissions is not None else DEFAULT_PERMISSIONS
        )
        # Without Use External Apps, a member's own install may only answer them privately.
        rec.forced_ephemeral = "0" not in owners and not permissions & PERM_USE_EXTERNAL_APPS
        member = member_dict(rec.user, guild) | {"permissions": str(permissions)}
        return payload | {
            "guild_id": str(guild.id),
            "guild": {"id": str(guild.id), "locale": guild.locale, "features": []},
            "member": member,
            "guild_locale": guild.locale,
            "authorizing_integration_owners": owners,
            "context": CONTEXT_GUILD,
        }

    def _channel(self: DiscordEmulator, channel: Any) -> EmuChannel:
        if channel is None:
            return self.channel
        return self.channels[channel.id if isinstance(channel, EmuChannel) else int(channel)]

    def _guild_of(self: DiscordEmulator, channel: EmuChannel) -> EmuGuild | None:
        return None if channel.guild_id is None else self.guilds[channel.guild_id]

    def _new_record(
        self: DiscordEmulator, user: EmuUser, itype: int, channel: EmuChannel, name: str
    ) -> InteractionRecord:
        if channel.recipients:
            if user not in channel.recipients:
                raise ValueError(f"{user.name} is not in this DM")
        elif channel.guild_id is None:
            if channel.recipient is None or user.id != channel.recipient.id:
                raise ValueError(f"{user.name} is not in this DM with the bot")
        elif user.id not in self.guilds[channel.guild_id].member_ids:
            raise ValueError(f"{user.name} is not a member of guild {channel.guild_id}")
        rec = InteractionRecord(
            id=self.snowflakes.next(),
            token=f"aW50ZXJhY3Rpb246{secrets.token_urlsafe(48)}",
            type=itype,
            user=user,
            guild_id=channel.guild_id,
            channel_id=channel.id,
            name=name,
            issued=self.now(),
        )
        return rec

    async def invoke(
        self: DiscordEmulator,
        user: EmuUser,
        command: str,
        options: dict[str, Any] | None = None,
        channel: Any = None,
        locale: str | None = None,
        *,
        wait_final: bool = False,
    ) -> InteractionResult:
        ch = self._channel(channel)
        data = build_command_data(self, self._guild_of(ch), ch, command, options or {})
        rec = self._new_record(user, 2, ch, command)
        rec.owners = install_owners(self, ch, user)
        rec.payload = self._base_interaction(rec, ch, locale or user.locale) | {"data": data}
        return await self._run(rec, wait_final)

    async def invoke_raw(
        self: DiscordEmulator,
        user: EmuUser,
        data: dict[str, Any],
        channel: Any = None,
        locale: str | None = None,
    ) -> InteractionResult:
        """An APPLICATION_COMMAND whose ``data`` is sent as given, unchecked against the
        synced commands: what a client with an out-of-date copy of them sends (Discord
        clients cache command definitions). Build ``data`` with :meth:`command_data`."""
        ch = self._channel(channel)
        rec = self._new_record(user, 2, ch, str(data.get("name", "?")))
        rec.owners = install_owners(self, ch, user)
        rec.payload = self._base_interaction(rec, ch, locale or user.locale) | {"data": data}
        return await self._run(rec, False)

    def command_payload(
        self: DiscordEmulator, user: EmuUser, command: str, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """A whole APPLICATION_COMMAND interaction, as :meth:`invoke` would send it, for a
        test to send itself (forged, replayed) instead: it is not registered, so an
        answer to it is not applied."""
        ch = self._channel(None)
        rec = self._new_record(user, 2, ch, command)
        rec.owners = install_owners(self, ch, user)
        data = build_command_data(self, self._guild_of(ch), ch, command, options or {})
        return self._base_interaction(rec, ch, user.locale) | {"data": data}

    def command_data(
        self: DiscordEmulator,
        command: str,
        options: dict[str, Any] | None = None,
        channel: Any = None,
    ) -> dict[str, Any]:
        """The ``data`` of a valid invocation, to alter for :meth:`invoke_raw`."""
        ch = self._channel(channel)
        return build_command_data(self, self._guild_of(ch), ch, command, options or {})

    async def click(
        self: DiscordEmulator,
        user: EmuUser,
        message: int | str | dict[str, Any],
        custom_id: str,
        locale: str | None = None,
        *,
        force: bool = False,
        wait_final: bool = False,
    ) -> InteractionResult:
        mid = int(message["id"]) if isinstance(message, dict) else int(message)
        if mid not in self._messages:
            raise LookupError(f"message {mid} does not exist (deleted?)")
        current = self.message(mid)
        ch = self.channels[int(current["channel_id"])]
        button = next(
            (
                c
                for c in iter_components(current["components"])
                if c.get("type") == 2 and c.get("custom_id") == custom_id
            ),
            None,
        )
        if not force:
            if not self.visible_to(mid, user):
                raise PermissionError(f"{user.name} cannot see ephemeral message {mid}")
            if button is None:
                ids = [
                    c.get("custom_id")
                    for c in iter_components(current["components"])
                    if c.get("type") == 2
                ]
                raise LookupError(f"no button {custom_id!r} on message {mid} (buttons: {ids})")
            if button.get("disabled"):
                raise PermissionError(f"button {custom_id!r} on message {mid} is disabled")
        rec = self._new_record(user, 3, ch, custom_id)
        rec.source_message_id = mid
        # A click is authorised by the installs that made the message: anyone in the
        # channel may click a member's user-installed app's message.
        meta = current.get("interaction_metadata") or {}
        rec.owners = dict(meta.get("authorizing_integration_owners") or {}) or install_owners(
            self, ch, user, command=False
        )
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": 2}
        if button is not None and "id" in button:
            data["id"] = button["id"]  # the clicked component's id, as Discord sends it
        rec.payload = self._base_interaction(rec, ch, locale or user.locale) | {
            "data": data,
            "message": current,
        }
        return await self._run(rec, wait_final)

    async def _run(
        self: DiscordEmulator, rec: InteractionRecord, wait_final: bool
    ) -> InteractionResult:
        over_http = self.http_mode.url is not None
        if over_http:
            await self.http_mode.portal_check()
            rec.created = time.monotonic()  # its 3 s start now, as its deadline's timer
        if not over_http and self.gateway.session_for(rec.guild_id) is None:
            raise RuntimeError(
                f"no bot session for guild {rec.guild_id}'s shard: the bot has not identified "
                "that shard with the emulator gateway"
            )
        self.interactions[rec.id] = rec
        self.interactions_by_token[rec.token] = rec
        loop = asyncio.get_running_loop()
        self._deadline_handles.append(
            loop.call_later(self.interaction_deadline, self._check_deadline, rec)
        )

        def send() -> None:
            if over_http:
                self.http_mode.send(rec)
            else:
                self.gateway.dispatch("INTERACTION_CREATE", rec.payload)

        if self.lag > 0:  # it reaches the bot late; its deadline runs from now all the same
            self._deadline_handles.append(loop.call_later(self.lag, send))
        else:
            send()
        result = InteractionResult(self, rec)
        try:
            await asyncio.wait_for(rec.responded.wait(), self.interaction_deadline + 0.25)
        except TimeoutError:
            return result
        if wait_final and rec.response_type in (5, 6):
            await result.wait_for_edit()
        return result

    def _check_deadline(self: DiscordEmulator, rec: InteractionRecord) -> None:
        if rec.response_type is None:
            self.violation(
                f"{rec.describe()}: no initial response within {self.interaction_deadline}s "
                "- the user saw 'This interaction failed'"
            )
