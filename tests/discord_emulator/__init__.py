"""A local Discord emulator (REST v10 + gateway) for end-to-end tests of discord.py bots.

Point an unmodified discord.py client at it before starting the bot::

    discord.http.Route.BASE = emu.api_base                     # http://127.0.0.1:PORT/api/v10
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(emu.gateway_url)  # ws://.../
    await client.start(emu.token)

Then drive it like a Discord user::

    alice, bob = emu.create_user("alice"), emu.create_user("bob")
    await emu.wait_until_ready(); await emu.wait_for_commands()
    res = await emu.invoke(alice, "ttt start", {"opponent": bob})
    res = await emu.click(bob, res.message, find_button(res.message, label="1")["custom_id"])
    dm = emu.open_dm(alice)                  # her DM with the bot: no guild, context 1
    res = await emu.invoke(alice, "ttt start", channel=dm)  # only if its contexts allow DMs

The Activity (an embedded app), as its web service meets Discord::

    code = emu.authorize(alice)                 # the SDK's commands.authorize()
    # POST {api_base}/oauth2/token, form: client_id=emu.client_id,
    #   client_secret=emu.client_secret, grant_type=authorization_code, code=code
    instance_id = emu.launch_activity(alice, channel)   # she opens it (or joins)
    # GET {api_base}/applications/{emu.application_id}/activity-instances/{instance_id}
    res = await emu.invoke_entry_point(alice)  # App Launcher: the bot answers, or Discord
    res.activity_instance_id                    # after the bot's LAUNCH_ACTIVITY answer

Every REST body is validated against Discord's OpenAPI spec (../shared/discord-api-spec or
$TTT_DISCORD_OPENAPI) plus rules the spec lacks; problems land in ``emu.violations`` and the
``emulator`` fixture fails the test at teardown unless they were cleared.
"""

from __future__ import annotations

from .commands import CommandError
from .components import IS_COMPONENTS_V2, text_of
from .interactions import InteractionResult
from .server import DiscordEmulator
from .state import EmuChannel, EmuGuild, EmuUser, buttons, find_button
from .validation import BodyError, default_spec_path

__all__ = [
    "IS_COMPONENTS_V2",
    "BodyError",
    "CommandError",
    "DiscordEmulator",
    "EmuChannel",
    "EmuGuild",
    "EmuUser",
    "InteractionResult",
    "buttons",
    "default_spec_path",
    "find_button",
    "text_of",
]
