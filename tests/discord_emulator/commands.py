"""Application-command storage helpers and APPLICATION_COMMAND interaction data builders."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .state import DEFAULT_PERMISSIONS, EmuChannel, EmuGuild, EmuUser, member_dict

if TYPE_CHECKING:
    from .server import DiscordEmulator

SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = (
    3,
    4,
    5,
    6,
    7,
    8,
    9,
    10,
    11,
)


PRIMARY_ENTRY_POINT = 4
"""The command type that opens the app's Activity from the App Launcher."""
APP_HANDLER, DISCORD_LAUNCH_ACTIVITY = 1, 2
"""Who answers an entry point command: the app (an interaction reaches it), or Discord
(it launches the Activity itself)."""

CONTEXT_GUILD, CONTEXT_BOT_DM, CONTEXT_PRIVATE_CHANNEL = 0, 1, 2
"""Discord's interaction context types: where a command may be used, and was."""


class CommandError(ValueError):
    """The test asked for an invocation a real Discord client could not send."""


def store_commands(
    emu: DiscordEmulator, body: list[dict[str, Any]], guild_id: int | None
) -> list[dict[str, Any]]:
    """Bulk overwrite: keep ids of commands with the same (name, type), assign new ones."""
    previous = {(c["name"], c.get("type", 1)): c for c in emu._commands.get(guild_id, [])}
    stored: list[dict[str, Any]] = []
    for cmd in body or []:
        old = previous.get((cmd["name"], cmd.get("type", 1)))
        stored.append(command_object(emu, cmd, guild_id, old["id"] if old else None))
    emu._commands[guild_id] = stored
    return stored


def command_object(
    emu: DiscordEmulator, cmd: dict[str, Any], guild_id: int | None, cid: str | None = None
) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "id": cid or emu.snowflakes.str(),
        "application_id": str(emu.application_id),
        "version": emu.snowflakes.str(),
        "type": cmd.get("type", 1),
        "name": cmd["name"],
        "name_localizations": cmd.get("name_localizations"),
        "description": cmd.get("description", ""),
        "description_localizations": cmd.get("description_localizations"),
        "default_member_permissions": cmd.get("default_member_permissions"),
        "dm_permission": cmd.get("dm_permission", True),
        "contexts": cmd.get("contexts"),
        "integration_types": cmd.get("integration_types") or [0],
        "nsfw": bool(cmd.get("nsfw", False)),
    }
    if cmd.get("options"):
        obj["options"] = cmd["options"]
    if obj["type"] == PRIMARY_ENTRY_POINT:
        obj["handler"] = cmd.get("handler") or APP_HANDLER  # see activities.check_commands
    if guild_id is not None:
        obj["guild_id"] = str(guild_id)
    return obj


def check_command_definitions(body: Any) -> str | None:
    """Rules the spec does not express: required options before optional ones, unique names."""
    if not isinstance(body, list):
        return None
    names: set[tuple[str, int]] = set()
    for i, cmd in enumerate(body):
        key = (cmd.get("name"), cmd.get("type", 1))
        if key in names:
            return f"[{i}].name: duplicate command name {key[0]!r}"
        names.add(key)
        problem = _check_options(cmd.get("options") or [], f"[{i}]")
        if problem:
            return problem
    return None


def _check_options(options: list[dict[str, Any]], where: str) -> str | None:
    seen_optional = False
    names: set[str] = set()
    for j, opt in enumerate(options):
        if opt.get("name") in names:
            return f"{where}.options[{j}]: duplicate option name {opt.get('name')!r}"
        names.add(opt.get("name"))
        if opt.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP):
            problem = _check_options(opt.get("options") or [], f"{where}.options[{j}]")
            if problem:
                return problem
            continue
        if opt.get("required"):
            if seen_optional:
                return f"{where}.options[{j}]: required options must come before optional ones"
        else:
            seen_optional = True
    return None


def _find_command(commands: list[dict[str, Any]], name: str) -> dict[str, Any] | None:
    for cmd in commands:
        if cmd.get("type", 1) == 1 and cmd["name"] == name:
            return cmd
    return None


def usable_in(cmd: dict[str, Any], context: int) -> bool:
    """Whether Discord offers a synced command in an interaction context. Without
    ``contexts`` a command is usable everywhere, unless the legacy ``dm_permission`` is
    false (no DMs). Only the top-level command carries them: subcommands follow it."""
    contexts = cmd.get("contexts")
    if contexts is None:
        return context == CONTEXT_GUILD or cmd.get("dm_permission") is not False
    return context in contexts


def context_of(channel: EmuChannel) -> int:
    """The interaction context of ``channel``: a server, a DM with the bot, or a (group)
    DM between users."""
    if channel.recipients:
        return CONTEXT_PRIVATE_CHANNEL
    return CONTEXT_GUILD if channel.guild_id is not None else CONTEXT_BOT_DM


def check_offered(cmd: dict[str, Any], channel: EmuChannel) -> None:
    """Raise CommandError if Discord's client does not offer the synced ``cmd`` in
    ``channel``: its ``integration_types`` do not reach a place without the bot, or its
    contexts exclude the channel's."""
    installs = cmd.get("integration_types") or [0]
    if not channel.bot_present and 1 not in installs:
        raise CommandError(
            f"/{cmd['name']} is not offered where the bot is not: its integration_types are "
            f"{installs} (a user install needs 1)"
        )
    context = context_of(channel)
    if not usable_in(cmd, context):
        where = {CONTEXT_GUILD: "a server", CONTEXT_BOT_DM: "a DM with the bot"}.get(
            context, "a DM between users"
        )
        raise CommandError(
            f"/{cmd['name']} cannot be used in {where}: its contexts are {cmd.get('contexts')}"
            f" (dm_permission {cmd.get('dm_permission')}), so Discord's client does not offer it"
        )


def install_owners(
    emu: DiscordEmulator, channel: EmuChannel, user: EmuUser, *, command: bool = True
) -> dict[str, str]:
    """``authorizing_integration_owners`` of an interaction of ``user`` in ``channel``: the
    server's install where the bot is there ("0": its id, "0": "0" in a DM with the bot),
    and the user's own ("1": their id) where they installed the app. A command nobody's
    install reaches is one Discord's client does not offer (CommandError)."""
    owners: dict[str, str] = {}
    if channel.bot_present:
        owners["0"] = str(channel.guild_id or 0)
    if user.installed and command:
        owners["1"] = str(user.id)
    if not owners:
        raise CommandError(
            f"{user.name} has not installed the app and it is not in this "
            f"{'server' if channel.guild_id else 'DM'}: Discord offers no command of it here"
        )
    return owners


def build_command_data(
    emu: DiscordEmulator,
    guild: EmuGuild | None,
    channel: EmuChannel,
    invocation: str,
    options: dict[str, Any],
) -> dict[str, Any]:
    """APPLICATION_COMMAND interaction `data` from the synced definition of `invocation`
    (``guild`` None: in a DM with the bot, where only global commands exist)."""
    parts = invocation.split()
    if not parts:
        raise CommandError("empty command name")
    commands = emu._commands.get(None, [])
    if guild is not None:
        commands = emu._commands.get(guild.id, []) + commands
    cmd = _find_command(commands, parts[0])
    if cmd is None:
        synced = sorted(c["name"] for c in commands)
        raise CommandError(f"/{parts[0]} is not a synced command (synced: {synced})")
    check_offered(cmd, channel)
    data: dict[str, Any] = {"id": cmd["id"], "name": cmd["name"], "type": 1}
    if "guild_id" in cmd:
        data["guild_id"] = cmd["guild_id"]
    resolved: dict[str, dict[str, Any]] = {}
    container = data
    defs = cmd.get("options") or []
    for part in parts[1:]:
        sub = next((o for o in defs if o["name"] == part and o["type"] in (1, 2)), None)
        if sub is None:
            raise CommandError(
                f"/{invocation}: {part!r} is not a subcommand (group) of /{cmd['name']}"
            )
        node: dict[str, Any] = {"name": part, "type": sub["type"], "options": []}
        container.setdefault("options", []).append(node)
        container, defs = node, sub.get("options") or []
    if any(o["type"] in (1, 2) for o in defs):
        raise CommandError(f"/{invocation} needs a subcommand: {[o['name'] for o in defs]}")
    values = []
    known = {o["name"]: o for o in defs}
    for name, value in (options or {}).items():
        if name not in known:
            raise CommandError(f"/{invocation}: unknown option {name!r} (options: {sorted(known)})")
        values.append(_option_value(emu, guild, known[name], value, resolved, invocation))
    missing = [o["name"] for o in defs if o.get("required") and o["name"] not in (options or {})]
    if missing:
        raise CommandError(f"/{invocation}: missing required option(s) {missing}")
    container["options"] = values
    if resolved:
        data["resolved"] = resolved
    return data


def _option_value(
    emu: DiscordEmulator,
    guild: EmuGuild | None,
    opt: dict[str, Any],
    value: Any,
    resolved: dict[str, dict[str, Any]],
    invocation: str,
) -> dict[str, Any]:
    kind = opt["type"]
    where = f"/{invocation} {opt['name']}"
    if kind in (USER, MENTIONABLE):
        uid = value.id if isinstance(value, EmuUser) else int(value)
        user = emu.users.get(uid)
        if user is None:
            raise CommandError(f"{where}: unknown user {value!r}")
        resolved.setdefault("users", {})[str(uid)] = user.to_dict()
        if guild is not None and uid in guild.member_ids:
            member = member_dict(user, guild, with_user=False)
            member["permissions"] = str(DEFAULT_PERMISSIONS)
            resolved.setdefault("members", {})[str(uid)] = member
        out: Any = str(uid)
    elif kind == CHANNEL:
        cid = value.id if isinstance(value, EmuChannel) else int(value)
        ch = emu.channels.get(cid)
        if ch is None:
            raise CommandError(f"{where}: unknown channel {value!r}")
        entry = {
            "id": str(cid),
            "name": ch.name,
            "type": ch.type,
            "permissions": str(DEFAULT_PERMISSIONS),
        }
        resolved.setdefault("channels", {})[str(cid)] = entry
        out = str(cid)
    elif kind == STRING:
        if not isinstance(value, str):
            raise CommandError(f"{where}: expected a string, got {value!r}")
        lo, hi = opt.get("min_length", 0), opt.get("max_length", 6000)
        if not lo <= len(value) <= hi:
            raise CommandError(f"{where}: length must be in [{lo}, {hi}]")
        out = value
    elif kind in (INTEGER, NUMBER):
        ok = isinstance(value, int) if kind == INTEGER else isinstance(value, int | float)
        if isinstance(value, bool) or not ok:
            raise CommandError(
                f"{where}: expected a {'integer' if kind == INTEGER else 'number'}, got {value!r}"
            )
        if opt.get("min_value") is not None and value < opt["min_value"]:
            raise CommandError(f"{where}: below min_value {opt['min_value']}")
        if opt.get("max_value") is not None and value > opt["max_value"]:
            raise CommandError(f"{where}: above max_value {opt['max_value']}")
        out = value
    elif kind == BOOLEAN:
        if not isinstance(value, bool):
            raise CommandError(f"{where}: expected a bool, got {value!r}")
        out = value
    else:
        raise CommandError(f"{where}: option type {kind} not supported by the emulator")
    choices = opt.get("choices")
    if choices and out not in [c["value"] for c in choices]:
        raise CommandError(
            f"{where}: {value!r} is not one of the choices {[c['value'] for c in choices]}"
        )
    return {"name": opt["name"], "type": kind, "value": out}
