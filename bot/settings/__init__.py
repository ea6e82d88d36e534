"""Settings from the environment (and a ``.env`` file, loaded by ``bot.__main__``).

Two kinds: the process's own (token, database, where Discord is, think time, logging),
and the defaults of the per-server :class:`~bot.core.policy.ServerPolicy`, which each
server's admins may override with /ttt config. Which variable fills which field, and
how it is read, is the table in :mod:`bot.settings.table`; a default is written once,
on its field here (or on ServerPolicy's).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.core.engine_gate import HINT_BOUND, REVIEW_BOUND
from bot.core.policy import CORRESPONDENCE_GAMES_PER_MEMBER, ServerPolicy
from bot.settings.read import SettingsError
from bot.settings.table import SETTINGS, Setting

__all__ = ["DEFAULTS", "WEB_LIMITS", "WEB_SECONDS", "Settings", "SettingsError", "WebLimits",
           "default_of"]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Settings:
    token: str = field(repr=False)  # a secret (the table's): kept out of any repr
    database: str = "ttt.sqlite3"
    api_base: str | None = None
    gateway_url: str | None = None
    dev_guild_id: int | None = None
    think_time: float = 2.0
    """Seconds hard and unbeatable may think on boards too large to solve (5×5)."""
    defer_after: float = 1.0
    """Seconds the bot's reply may take before the member's move is shown on its own
    (Discord wants an answer within 3)."""
    log_level: str = "INFO"
    log_format: str = "text"
    """``text`` (colours only on a terminal) or ``json`` (one object a line)."""
    database_url: str | None = field(default=None, repr=False)
    """A ``postgresql://`` DSN: PostgreSQL instead of the SQLite file (several processes)."""
    db_pool_size: int = 10
    engine_workers: int | None = None
    """Processes searching 4×4 and 5×5 moves; None: one fewer than the CPUs (at least 1),
    so the event loop keeps a core."""
    warm_workers: bool = True
    """Start the hint and review workers (and read the 5×5 tables into them) at start-up,
    so the first hint or review answers within a second; False: on first use."""
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    """The gateway shards this process runs (with ``shard_count``); None: all of them."""
    health_port: int | None = None
    """Serve /healthz, /readyz and /metrics on this port; None: off."""
    health_host: str = "127.0.0.1"
    web_port: int | None = None
    """Serve the Activity (its page, API and live updates) on this port; None: off."""
    web_host: str = "127.0.0.1"
    web_only: bool = False
    """No gateway connection: serve the Activity (a process of its own beside the bot's,
    on the same PostgreSQL: pages and shards scale apart), and with a public key the
    interactions Discord POSTs (TTT_GATEWAY=off: every process of this one kind)."""
    client_secret: str | None = field(default=None, repr=False)
    """The application's OAuth2 client secret: the Activity signs members in with it."""
    public_key: str | None = None
    """The application's public key (64 hex digits): when set, the web service answers
    interactions Discord POSTs to ``/interactions`` (its Interactions Endpoint URL)."""
    policy: ServerPolicy = field(default_factory=ServerPolicy)
    """The game rules of every server that chose nothing else."""
    web_limits: WebLimits = field(default_factory=lambda: WebLimits())
    """What one member's page, and all of them together, may ask of this process."""
    review_queue: int = REVIEW_BOUND
    """Reviews past 3×3 worked out at once, the one running and those queued for the
    reviews' worker; past it, another is refused at once ("busy, try again")."""
    hint_queue: int = HINT_BOUND
    """Hints past 3×3 worked out at once, likewise, in the hints' worker."""
    correspondence_games_per_member: int = CORRESPONDENCE_GAMES_PER_MEMBER
    """Running correspondence games (days a move) a member may play at once, everywhere
    together; past it a new one is refused privately."""
    dm_per_minute: int = 120
    """"Your move" reminder DMs this process sends a minute at most, spread evenly (one
    every 60/N seconds): below Discord's limits on DMs, never a burst."""
    sign_ins_overall: int = 120
    """Activity sign-ins a process begins a minute, all members together (up to that many
    at once, then one every 60/N seconds); past it a sign-in is refused at once (429)."""
    sign_ins_per_member: int = 10
    """Activity sign-ins one member completes in ten minutes (up to that many at once,
    then one every 600/N seconds); past it a sign-in is refused at once (429)."""
    sign_ins_per_instance: int = 30
    """Of ``sign_ins_overall``, those one Activity instance begins a minute: a flood of
    junk naming one running instance leaves the others' members theirs."""
    instance_lookups: int = 60
    """Reads a minute of Activity instances the process does not keep yet (an id a
    sign-in names for the first time), for places seen before and as many for new ones:
    each is a call with the bot's token, which a flood of junk ids must not spend."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Read every setting of the table, in its order, then check the ones that go
        together. An empty value is the default.

        Raises:
            SettingsError: a required setting is missing or a value is malformed (the
            first one in the table's order), or settings that go together do not.
        """
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for setting in SETTINGS.values():
            raw = env.get(setting.name, "").strip()
            if not raw and setting.required is not None:
                raise SettingsError(setting.required)
            values[setting.name] = (
                setting.read(raw, setting.name, *(values[n] for n in setting.needs))
                if raw
                else default_of(setting)
            )
        _check_together(values)
        # without the gateway, a process is of the web-only kind
        values["TTT_WEB_ONLY"] = values["TTT_WEB_ONLY"] or not values["TTT_GATEWAY"]
        top: dict[str, Any] = {}
        nested: dict[str, dict[str, Any]] = {"policy": {}, "web_limits": {}}
        for setting in SETTINGS.values():
            value = values[setting.name]
            parts = value if len(setting.paths) > 1 else (value,)
            for path, part in zip(setting.paths, parts, strict=False):  # TTT_GATEWAY: none
                group, _, name = path.partition(".")
                if name:
                    nested[group][name] = part
                else:
                    top[group] = part
        return cls(**top, policy=ServerPolicy(**nested["policy"]),
                   web_limits=WebLimits(**nested["web_limits"]))  # fmt: skip


def _check_together(values: Mapping[str, Any]) -> None:
    """Settings that need others.

    Raises:
        SettingsError: the first that misses what it needs.
    """
    database_url, web_port = values["TTT_DATABASE_URL"], values["TTT_WEB_PORT"]
    public_key, gateway = values["DISCORD_PUBLIC_KEY"], values["TTT_GATEWAY"]
    if values["TTT_SHARD_COUNT"] is not None and database_url is None:
        raise SettingsError(
            "TTT_SHARD_COUNT needs TTT_DATABASE_URL: processes that share the shards must "
            "share a PostgreSQL database; a SQLite file serves one process"
        )
    if web_port is not None and not values["DISCORD_CLIENT_SECRET"] and public_key is None:
        raise SettingsError(
            "TTT_WEB_PORT needs DISCORD_CLIENT_SECRET (the Activity signs members in with "
            "the application's OAuth2 client secret, Developer Portal, OAuth2 page) or "
            "DISCORD_PUBLIC_KEY (interactions over HTTP), or both"
        )
    if public_key is not None and web_port is None:
        raise SettingsError(
            "DISCORD_PUBLIC_KEY needs TTT_WEB_PORT: interactions over HTTP are answered "
            "by the web service, at /interactions"
        )
    if not gateway and public_key is None:
        raise SettingsError(
            "TTT_GATEWAY=off needs DISCORD_PUBLIC_KEY and TTT_WEB_PORT: without the "
            "gateway, interactions reach the bot over HTTP, signed with that key"
        )
    if values["TTT_WEB_ONLY"] and gateway and (web_port is None or database_url is None):
        raise SettingsError(
            "TTT_WEB_ONLY needs TTT_WEB_PORT and TTT_DATABASE_URL: a web-only process "
            "serves pages beside the bot's processes, sharing their PostgreSQL database"
        )


@dataclass(frozen=True, slots=True)
class WebLimits:
    """The Activity's limits in one process (issue 47; docs/run/under-abuse.md). The
    budgets are requests a minute, for each member (the session's user: Discord's proxy
    hides their addresses) and for everyone together, refused at once when spent."""

    hints_per_member: int = 10
    hints_overall: int = 300
    reviews_per_member: int = 6
    reviews_overall: int = 120
    starts_per_member: int = 6
    """New games and rematches from the page (each posts a board in the chat)."""
    starts_overall: int = 300
    puzzles_per_member: int = 40
    """Puzzle starts, moves and retries from the page (a move past 3×3 may ask the engine)."""
    puzzles_overall: int = 1200
    connects_per_member: int = 20
    """Live sockets opened (a page reconnects after each loss)."""
    connects_overall: int = 1200
    server_share: int = 25
    """The percent of each overall budget one server (a DM: its channel) may spend."""
    pages_per_member: int = 3
    """Live sockets a member holds open at once."""
    pages_overall: int = 2000
    """Live sockets open in one process, all members together."""
    presence_every: float = 180.0
    """Seconds between the checks that each page's member is still in its Activity."""
    page_queue: int = 16
    """Updates waiting for one page; past that the page is dropped (it reconnects)."""
    send_timeout: float = 10.0
    """Seconds one update may take to reach a page before the page is dropped."""


DEFAULTS = Settings(token="")
"""Every default, read off the dataclasses' fields."""


def default_of(setting: Setting) -> Any:
    """The value a setting has when unset (a tuple for one that fills several fields)."""
    paths = setting.paths
    if not paths:
        return setting.unset
    found = []
    for path in paths:
        value: Any = DEFAULTS
        for part in path.split("."):
            value = getattr(value, part)
        found.append(value)
    return tuple(found) if len(found) > 1 else found[0]


def _web_limits(durations: bool) -> dict[str, str]:
    return {
        path.partition(".")[2]: setting.name
        for setting in SETTINGS.values()
        for path in setting.paths
        if path.startswith("web_limits.") and isinstance(default_of(setting), float) == durations
    }


WEB_LIMITS = _web_limits(durations=False)
"""The WebLimits fields that are counts, each with its setting."""
WEB_SECONDS = _web_limits(durations=True)
"""The WebLimits fields that are durations, each with its setting."""
