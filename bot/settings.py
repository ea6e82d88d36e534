"""Settings from the environment (and a ``.env`` file, loaded by ``bot.__main__``).

Two kinds: the process's own (token, database, where Discord is, think time, logging),
and the defaults of the per-server :class:`~bot.core.policy.ServerPolicy`, which each
server's admins may override with /ttt config.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.core.engine_gate import HINT_BOUND, REVIEW_BOUND
from bot.core.policy import (
    DIFFICULTIES,
    EMOJI_SETS,
    LANGUAGES,
    SIZES,
    ServerPolicy,
    parse_colour,
    parse_mark,
)

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOG_FORMATS = ("text", "json")


class SettingsError(ValueError):
    """A setting is missing or malformed; the message says which and what to do."""


@dataclass(frozen=True, slots=True)
class Settings:
    token: str
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
    database_url: str | None = None
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
    client_secret: str | None = None
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
    sign_ins_overall: int = 120
    """Activity sign-ins a process begins a minute, all members together (up to that many
    at once, then one every 60/N seconds); past it a sign-in is refused at once (429)."""
    sign_ins_per_member: int = 10
    """Activity sign-ins one member completes in ten minutes (up to that many at once,
    then one every 600/N seconds); past it a sign-in is refused at once (429)."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Read every setting; ``.env.example`` documents them.

        Raises:
            SettingsError: a required setting is missing or a value is malformed.
        """
        env = os.environ if env is None else env

        def get(name: str) -> str | None:
            value = env.get(name, "").strip()
            return value or None

        token = get("DISCORD_TOKEN")
        if token is None:
            raise SettingsError(
                "DISCORD_TOKEN is not set: put your bot token in .env (see .env.example) "
                "or in the environment"
            )
        problem = token_problem(token)
        if problem is not None:
            raise SettingsError(
                f"DISCORD_TOKEN does not look like a bot token ({problem}): copy it again "
                "from the Developer Portal (Bot → Reset Token) into .env"
            )
        # A slots dataclass keeps its defaults on instances only: cls.turn_timeout is a
        # member descriptor, not 300.0.
        defaults = cls(token=token)
        rules = defaults.policy
        difficulty = (get("TTT_DEFAULT_DIFFICULTY") or rules.default_difficulty).lower()
        if difficulty not in DIFFICULTIES:
            raise SettingsError(
                f"TTT_DEFAULT_DIFFICULTY must be one of {', '.join(DIFFICULTIES)}, "
                f"got {difficulty!r}"
            )
        raw_level = get("TTT_LOG_LEVEL")
        log_level = (raw_level or defaults.log_level).upper()
        if log_level not in LOG_LEVELS:
            raise SettingsError(
                f"TTT_LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, got {raw_level!r}"
            )
        log_format = (get("TTT_LOG_FORMAT") or defaults.log_format).lower()
        if log_format not in LOG_FORMATS:
            raise SettingsError(
                f"TTT_LOG_FORMAT must be one of {', '.join(LOG_FORMATS)}, got {log_format!r}"
            )
        policy = ServerPolicy(
            challenge_timeout=_seconds(
                get("TTT_CHALLENGE_TIMEOUT"), "TTT_CHALLENGE_TIMEOUT", rules.challenge_timeout
            ),
            turn_timeout=_seconds(get("TTT_TURN_TIMEOUT"), "TTT_TURN_TIMEOUT", rules.turn_timeout),
            default_difficulty=difficulty,
            default_size=_choice(get("TTT_DEFAULT_SIZE"), "TTT_DEFAULT_SIZE", SIZES,
                                 rules.default_size),
            allowed_channels=tuple(
                _integer(part.strip(), "TTT_ALLOWED_CHANNELS") or 0
                for part in (get("TTT_ALLOWED_CHANNELS") or "").split(",")
                if part.strip()
            ),
            games_per_channel=_choice(get("TTT_GAMES_PER_CHANNEL"), "TTT_GAMES_PER_CHANNEL",
                                      tuple(range(1, 11)), rules.games_per_channel),
            one_game_per_member=_flag(get("TTT_ONE_GAME_PER_MEMBER"), "TTT_ONE_GAME_PER_MEMBER",
                                      rules.one_game_per_member),
            start_cooldown=_seconds(get("TTT_START_COOLDOWN"), "TTT_START_COOLDOWN",
                                    rules.start_cooldown, allow_zero=True),
            start_role=_integer(get("TTT_START_ROLE"), "TTT_START_ROLE"),
            embed_colour=_colour(get("TTT_EMBED_COLOUR"), rules.embed_colour),
            emoji_set=_member(get("TTT_EMOJI_SET"), "TTT_EMOJI_SET", tuple(EMOJI_SETS),
                              rules.emoji_set),
            hints=_flag(get("TTT_HINTS"), "TTT_HINTS", rules.hints),
            turn_ping=_flag(get("TTT_TURN_PING"), "TTT_TURN_PING", rules.turn_ping),
            language=_language(get("TTT_LANGUAGE")),
            **_marks(get("TTT_MARKS")),
        )  # fmt: skip
        database_url = get("TTT_DATABASE_URL")
        if database_url is not None and not database_url.startswith(
            ("postgresql://", "postgres://")
        ):
            raise SettingsError(
                "TTT_DATABASE_URL must be a PostgreSQL URL "
                "(postgresql://user:password@host:5432/database)"
            )  # never echoed: it may hold a password
        shard_count = _bounded(get("TTT_SHARD_COUNT"), "TTT_SHARD_COUNT", 1, 10_000)
        shard_ids = _shard_ids(get("TTT_SHARD_IDS"), shard_count)
        if shard_count is not None and database_url is None:
            raise SettingsError(
                "TTT_SHARD_COUNT needs TTT_DATABASE_URL: processes that share the shards must "
                "share a PostgreSQL database; a SQLite file serves one process"
            )
        web_port = _bounded(get("TTT_WEB_PORT"), "TTT_WEB_PORT", 1, 65535)
        client_secret = get("DISCORD_CLIENT_SECRET")
        public_key = _public_key(get("DISCORD_PUBLIC_KEY"))
        if web_port is not None and not client_secret and public_key is None:
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
        gateway = _flag(get("TTT_GATEWAY"), "TTT_GATEWAY", True)
        if not gateway and public_key is None:
            raise SettingsError(
                "TTT_GATEWAY=off needs DISCORD_PUBLIC_KEY and TTT_WEB_PORT: without the "
                "gateway, interactions reach the bot over HTTP, signed with that key"
            )
        web_only = _flag(get("TTT_WEB_ONLY"), "TTT_WEB_ONLY", False) or not gateway
        if web_only and gateway and (web_port is None or database_url is None):
            raise SettingsError(
                "TTT_WEB_ONLY needs TTT_WEB_PORT and TTT_DATABASE_URL: a web-only process "
                "serves pages beside the bot's processes, sharing their PostgreSQL database"
            )
        return cls(
            token=token,
            database=get("TTT_DATABASE") or defaults.database,
            database_url=database_url,
            db_pool_size=_bounded(get("TTT_DB_POOL_SIZE"), "TTT_DB_POOL_SIZE", 1, 100)
            or defaults.db_pool_size,
            engine_workers=_bounded(get("TTT_ENGINE_WORKERS"), "TTT_ENGINE_WORKERS", 1, 256),
            warm_workers=_flag(get("TTT_WARM_WORKERS"), "TTT_WARM_WORKERS", True),
            shard_count=shard_count,
            shard_ids=shard_ids,
            health_port=_bounded(get("TTT_HEALTH_PORT"), "TTT_HEALTH_PORT", 1, 65535),
            health_host=get("TTT_HEALTH_HOST") or defaults.health_host,
            web_port=web_port,
            web_only=web_only,
            web_host=get("TTT_WEB_HOST") or defaults.web_host,
            client_secret=client_secret,
            public_key=public_key,
            api_base=(get("DISCORD_API_BASE") or "").rstrip("/") or None,
            gateway_url=get("DISCORD_GATEWAY_URL"),
            dev_guild_id=_integer(get("TTT_DEV_GUILD_ID"), "TTT_DEV_GUILD_ID"),
            think_time=_seconds(get("TTT_THINK_TIME"), "TTT_THINK_TIME", defaults.think_time),
            log_level=log_level,
            log_format=log_format,
            policy=policy,
            web_limits=_web_limits(get),
            review_queue=_bounded(get("TTT_REVIEW_QUEUE"), "TTT_REVIEW_QUEUE", 1, 1000)
            or defaults.review_queue,
            hint_queue=_bounded(get("TTT_HINT_QUEUE"), "TTT_HINT_QUEUE", 1, 1000)
            or defaults.hint_queue,
            sign_ins_overall=_bounded(
                get("TTT_SIGN_INS_OVERALL"), "TTT_SIGN_INS_OVERALL", 1, 100_000
            )
            or defaults.sign_ins_overall,
            sign_ins_per_member=_bounded(
                get("TTT_SIGN_INS_PER_MEMBER"), "TTT_SIGN_INS_PER_MEMBER", 1, 1_000
            )
            or defaults.sign_ins_per_member,
        )


def _integer(raw: str | None, name: str) -> int | None:
    if raw is None:
        return None
    if not (raw.isascii() and raw.isdigit()):  # '²'.isdigit() is True, int('²') fails
        raise SettingsError(f"{name} must be a numeric Discord id, got {raw!r}")
    return int(raw)


def _bounded(raw: str | None, name: str, low: int, high: int) -> int | None:
    if raw is None:
        return None
    if not (raw.isascii() and raw.isdigit()) or not low <= int(raw) <= high:
        raise SettingsError(f"{name} must be a whole number from {low} to {high}, got {raw!r}")
    return int(raw)


def _shard_ids(raw: str | None, shard_count: int | None) -> tuple[int, ...] | None:
    """``0,2`` or ``0-3`` (or both: ``0-1,4``), each below TTT_SHARD_COUNT."""
    if raw is None:
        return None
    if shard_count is None:
        raise SettingsError("TTT_SHARD_IDS needs TTT_SHARD_COUNT (the total over all processes)")
    ids: list[int] = []
    for part in raw.split(","):
        low, dash, high = part.strip().partition("-")
        if not (
            low.isascii() and low.isdigit() and (not dash or (high.isascii() and high.isdigit()))
        ):
            raise SettingsError(f"TTT_SHARD_IDS must look like 0,2 or 0-3, got {raw!r}")
        ids.extend(range(int(low), int(high if dash else low) + 1))
    if not ids or len(set(ids)) != len(ids) or max(ids) >= shard_count:
        raise SettingsError(
            f"TTT_SHARD_IDS must list distinct shards below TTT_SHARD_COUNT ({shard_count}), "
            f"got {raw!r}"
        )
    return tuple(sorted(ids))


def _choice(raw: str | None, name: str, allowed: tuple[int, ...], default: int) -> int:
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdigit()) or int(raw) not in allowed:
        raise SettingsError(f"{name} must be one of {', '.join(map(str, allowed))}, got {raw!r}")
    return int(raw)


def _colour(raw: str | None, default: int) -> int:
    if raw is None:
        return default
    value = parse_colour(raw)
    if value is None:
        raise SettingsError(f"TTT_EMBED_COLOUR must look like #5865F2, got {raw!r}")
    return value


def _member(raw: str | None, name: str, allowed: tuple[str, ...], default: str) -> str:
    if raw is None:
        return default
    if raw.lower() not in allowed:
        raise SettingsError(f"{name} must be one of {', '.join(allowed)}, got {raw!r}")
    return raw.lower()


def _language(raw: str | None) -> str:
    """TTT_LANGUAGE: one of the catalogs' languages, any case; empty: each server's own."""
    if not raw:
        return ""
    for language in LANGUAGES:
        if raw.lower() == language.lower():
            return language
    raise SettingsError(f"TTT_LANGUAGE must be one of {', '.join(LANGUAGES)}, got {raw!r}")


def _marks(raw: str | None) -> dict[str, str]:
    """TTT_MARKS: the emoji for X, O and an empty square, separated by spaces."""
    if not raw:
        return {}
    marks = [mark for part in raw.split() if (mark := parse_mark(part)) is not None]
    if len(marks) != 3 or len(raw.split()) != 3 or len(set(marks)) != 3:
        raise SettingsError(
            f"TTT_MARKS must be three different emoji for X, O and an empty square, separated "
            f"by spaces (like ❌ ⭕ ⬜), got {raw!r}"
        )
    return dict(zip(("mark_x", "mark_o", "mark_empty"), marks, strict=True))


def _flag(raw: str | None, name: str, default: bool) -> bool:
    if raw is None:
        return default
    value = raw.lower()
    if value not in ("true", "false", "yes", "no", "1", "0", "on", "off"):
        raise SettingsError(f"{name} must be true or false, got {raw!r}")
    return value in ("true", "yes", "1", "on")


MAX_SECONDS = 7 * 24 * 3600


def _seconds(raw: str | None, name: str, default: float, allow_zero: bool = False) -> float:
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SettingsError(f"{name} must be a number of seconds, got {raw!r}") from None
    if not math.isfinite(value):
        raise SettingsError(f"{name} must be a finite number of seconds, got {raw!r}")
    low_ok = value >= 0 if allow_zero else value > 0
    if not (low_ok and value <= MAX_SECONDS):
        bounds = "from 0" if allow_zero else "more than 0"
        raise SettingsError(
            f"{name} must be {bounds} and at most {MAX_SECONDS} seconds, got {raw!r}"
        )
    return value


def token_problem(token: str) -> str | None:
    """What is wrong with a bot token's shape, or None. A bot token is three parts joined
    by dots (the bot's id in base64, a timestamp, an HMAC); anything else is a paste
    error that Discord would reject anyway, so it is caught before anything is created."""
    parts = token.split(".")
    if len(parts) != 3 or not all(parts) or any(c.isspace() for c in token):
        return "it is not three parts separated by dots"
    return None


def _public_key(value: str | None) -> str | None:
    """DISCORD_PUBLIC_KEY as given, once it reads as an Ed25519 public key: 32 bytes."""
    if not value:
        return None
    try:
        size = len(bytes.fromhex(value.strip()))
    except ValueError:
        size = -1
    if size != 32:
        raise SettingsError(
            "DISCORD_PUBLIC_KEY is not the application's public key: copy its 64 hex digits "
            "from the Developer Portal's General Information page"
        )
    return value.strip()


@dataclass(frozen=True, slots=True)
class WebLimits:
    """The Activity's limits in one process (issue 47; the README's "Under abuse"). The
    budgets are requests a minute, for each member (the session's user: Discord's proxy
    hides their addresses) and for everyone together, refused at once when spent."""

    hints_per_member: int = 10
    hints_overall: int = 300
    reviews_per_member: int = 6
    reviews_overall: int = 120
    starts_per_member: int = 6
    """New games and rematches from the page (each posts a board in the chat)."""
    starts_overall: int = 300
    connects_per_member: int = 20
    """Live sockets opened (a page reconnects after each loss)."""
    connects_overall: int = 1200
    pages_per_member: int = 3
    """Live sockets a member holds open at once."""
    presence_every: float = 180.0
    """Seconds between the checks that each page's member is still in its Activity."""
    page_queue: int = 16
    """Updates waiting for one page; past that the page is dropped (it reconnects)."""
    send_timeout: float = 10.0
    """Seconds one update may take to reach a page before the page is dropped."""


WEB_LIMITS = {
    "hints_per_member": "TTT_WEB_HINTS_PER_MEMBER", "hints_overall": "TTT_WEB_HINTS_OVERALL",
    "reviews_per_member": "TTT_WEB_REVIEWS_PER_MEMBER",
    "reviews_overall": "TTT_WEB_REVIEWS_OVERALL",
    "starts_per_member": "TTT_WEB_STARTS_PER_MEMBER", "starts_overall": "TTT_WEB_STARTS_OVERALL",
    "connects_per_member": "TTT_WEB_CONNECTS_PER_MEMBER",
    "connects_overall": "TTT_WEB_CONNECTS_OVERALL",
    "pages_per_member": "TTT_WEB_PAGES_PER_MEMBER", "page_queue": "TTT_WEB_PAGE_QUEUE",
}  # fmt: skip
WEB_SECONDS = {"presence_every": "TTT_WEB_PRESENCE_EVERY", "send_timeout": "TTT_WEB_SEND_TIMEOUT"}


def _web_limits(get: Callable[[str], str | None]) -> WebLimits:
    defaults = WebLimits()
    values: dict[str, Any] = {
        field: _bounded(get(name), name, 1, 1_000_000) or getattr(defaults, field)
        for field, name in WEB_LIMITS.items()
    }
    values |= {field: _seconds(get(name), name, getattr(defaults, field))
               for field, name in WEB_SECONDS.items()}  # fmt: skip
    return dataclasses.replace(defaults, **values)
