"""The Activity's entry point: the application command of type 4 (PRIMARY_ENTRY_POINT)
that opens it from Discord's App Launcher, in every place /ttt works.

discord.py's command tree knows no such command, and Discord refuses a bulk overwrite of
the global commands that leaves out an existing one (error 50240). So a global sync sends
the tree's commands with the entry point: ours when the Activity is served, else the one
Discord made when Activities were enabled, kept as it is. Discord itself launches the
Activity for it (handler 2, DISCORD_LAUNCH_ACTIVITY): no interaction reaches the bot.
"""

from __future__ import annotations

from typing import Any

PRIMARY_ENTRY_POINT = 4
DISCORD_LAUNCH_ACTIVITY = 2
ENTRY_POINT: dict[str, Any] = {
    "name": "launch",
    "description": "Open the live tic-tac-toe board",
    "type": PRIMARY_ENTRY_POINT,
    "handler": DISCORD_LAUNCH_ACTIVITY,
    "integration_types": [0, 1],  # a server's install and a member's own
    "contexts": [0, 1, 2],  # servers, DMs with the bot, DMs and group DMs between members
}


def entry_point(existing: list[dict[str, Any]], served: bool) -> dict[str, Any] | None:
    """The entry point command to sync beside the tree's: ours when the Activity is
    served (``served``), else the existing one kept (without its read-only fields), else
    none."""
    if served:
        return dict(ENTRY_POINT)
    for command in existing:
        if command.get("type") == PRIMARY_ENTRY_POINT:
            kept = ("name", "description", "type", "handler", "integration_types", "contexts",
                    "name_localizations", "description_localizations")  # fmt: skip
            return {key: command[key] for key in kept if command.get(key) is not None}
    return None
