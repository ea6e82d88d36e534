"""How each kind of setting is read: ``reader(raw, name) -> value``, given the value as
written (stripped, never empty) and the setting's name, which every error starts with.

Each raises :class:`SettingsError` saying what the value must look like; a value that
may be a secret (a token, a URL with a password, a key) is never echoed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urlsplit

from bot.core.policy import LANGUAGES, parse_colour, parse_mark

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOG_FORMATS = ("text", "json")
MAX_SECONDS = 7 * 24 * 3600

Reader = Callable[[str, str], Any]


class SettingsError(ValueError):
    """A setting is missing or malformed; the message says which and what to do."""


def text(raw: str, name: str) -> str:
    return raw


def discord_url(secure: str, plain: str, *, base: bool = False) -> Callable[[str, str, bool], str]:
    """Where Discord (or a proxy of it) is: a ``secure://`` URL, since the bot's token goes
    with every request; ``plain://`` only for the tests' emulator, when
    ``TTT_DISCORD_EMULATOR`` (the value read third) says so. A ``base`` loses its
    trailing slashes (the client appends ``/path``)."""

    def read(raw: str, name: str, emulator: bool) -> str:
        parts = urlsplit(raw)
        allowed = (secure, plain) if emulator else (secure,)
        if parts.scheme.lower() not in allowed or not parts.netloc:
            also = "" if emulator else (f"; {plain}:// only for the tests' Discord emulator, "
                                        "with TTT_DISCORD_EMULATOR=true")  # fmt: skip
            raise SettingsError(f"{name} must start with {secure}:// (the bot token goes with "
                                f"every request){also}, got {raw!r}")  # fmt: skip
        return raw.rstrip("/") if base else raw

    return read


def _digits(raw: str) -> bool:
    return raw.isascii() and raw.isdigit()  # '²'.isdigit() is True, int('²') fails


def discord_id(raw: str, name: str) -> int:
    if not _digits(raw):
        raise SettingsError(f"{name} must be a numeric Discord id, got {raw!r}")
    return int(raw)


def discord_ids(raw: str, name: str) -> tuple[int, ...]:
    """Comma-separated ids; empty parts are skipped."""
    return tuple(discord_id(part.strip(), name) for part in raw.split(",") if part.strip())


def bounded(low: int, high: int) -> Reader:
    """A whole number from ``low`` to ``high``."""

    def read(raw: str, name: str) -> int:
        if not _digits(raw) or not low <= int(raw) <= high:
            raise SettingsError(f"{name} must be a whole number from {low} to {high}, got {raw!r}")
        return int(raw)

    return read


def choice(allowed: tuple[int, ...]) -> Reader:
    """One of a few whole numbers."""

    def read(raw: str, name: str) -> int:
        if not _digits(raw) or int(raw) not in allowed:
            raise SettingsError(
                f"{name} must be one of {', '.join(map(str, allowed))}, got {raw!r}"
            )
        return int(raw)

    return read


def one_of(allowed: Iterable[str], case: Callable[[str], str] = str.lower) -> Reader:
    """One of a few words, in any case (stored in ``case``)."""
    words = tuple(allowed)

    def read(raw: str, name: str) -> str:
        if case(raw) not in words:
            raise SettingsError(f"{name} must be one of {', '.join(words)}, got {raw!r}")
        return case(raw)

    return read


def flag(raw: str, name: str) -> bool:
    value = raw.lower()
    if value not in ("true", "false", "yes", "no", "1", "0", "on", "off"):
        raise SettingsError(f"{name} must be true or false, got {raw!r}")
    return value in ("true", "yes", "1", "on")


def seconds(allow_zero: bool = False) -> Reader:
    """A number of seconds, more than 0 (or from 0) and at most a week."""

    def read(raw: str, name: str) -> float:
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

    return read


def colour(raw: str, name: str) -> int:
    value = parse_colour(raw)
    if value is None:
        raise SettingsError(f"{name} must look like #5865F2, got {raw!r}")
    return value


def language(raw: str, name: str) -> str:
    """One of the catalogs' languages, in any case, as the catalog spells it."""
    for known in LANGUAGES:
        if raw.lower() == known.lower():
            return known
    raise SettingsError(f"{name} must be one of {', '.join(LANGUAGES)}, got {raw!r}")


def marks(raw: str, name: str) -> tuple[str, str, str]:
    """The emoji for X, O and an empty square, separated by spaces."""
    found = [mark for part in raw.split() if (mark := parse_mark(part)) is not None]
    if len(found) != 3 or len(raw.split()) != 3 or len(set(found)) != 3:
        raise SettingsError(
            f"{name} must be three different emoji for X, O and an empty square, separated "
            f"by spaces (like ❌ ⭕ ⬜), got {raw!r}"
        )
    return found[0], found[1], found[2]


def token_problem(token: str) -> str | None:
    """What is wrong with a bot token's shape, or None. A bot token is three parts joined
    by dots (the bot's id in base64, a timestamp, an HMAC); anything else is a paste
    error that Discord would reject anyway, so it is caught before anything is created."""
    parts = token.split(".")
    if len(parts) != 3 or not all(parts) or any(c.isspace() for c in token):
        return "it is not three parts separated by dots"
    return None


def token(raw: str, name: str) -> str:
    problem = token_problem(raw)
    if problem is not None:
        raise SettingsError(
            f"{name} does not look like a bot token ({problem}): copy it again from the "
            "Developer Portal (Bot → Reset Token) into .env"
        )
    return raw


def postgres_url(raw: str, name: str) -> str:
    if not raw.startswith(("postgresql://", "postgres://")):
        raise SettingsError(
            f"{name} must be a PostgreSQL URL (postgresql://user:password@host:5432/database)"
        )  # never echoed: it may hold a password
    return raw


def public_key(raw: str, name: str) -> str:
    """The application's public key as given, once it reads as Ed25519's: 32 bytes."""
    try:
        size = len(bytes.fromhex(raw))
    except ValueError:
        size = -1
    if size != 32:
        raise SettingsError(
            f"{name} is not the application's public key: copy its 64 hex digits from the "
            "Developer Portal's General Information page"
        )
    return raw


def shard_ids(raw: str, name: str, shard_count: int | None) -> tuple[int, ...]:
    """``0,2`` or ``0-3`` (or both: ``0-1,4``), each below TTT_SHARD_COUNT."""
    if shard_count is None:
        raise SettingsError(f"{name} needs TTT_SHARD_COUNT (the total over all processes)")
    ids: list[int] = []
    for part in raw.split(","):
        low, dash, high = part.strip().partition("-")
        if not (_digits(low) and (not dash or _digits(high))):
            raise SettingsError(f"{name} must look like 0,2 or 0-3, got {raw!r}")
        ids.extend(range(int(low), int(high if dash else low) + 1))
    if not ids or len(set(ids)) != len(ids) or max(ids) >= shard_count:
        raise SettingsError(
            f"{name} must list distinct shards below TTT_SHARD_COUNT ({shard_count}), got {raw!r}"
        )
    return tuple(sorted(ids))
