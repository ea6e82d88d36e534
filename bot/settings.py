"""Settings from the environment (and a ``.env`` file, loaded by ``bot.__main__``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

DIFFICULTIES = ("easy", "medium", "hard", "unbeatable")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class SettingsError(ValueError):
    """A setting is missing or malformed; the message says which and what to do."""


@dataclass(frozen=True, slots=True)
class Settings:
    token: str
    database: str = "ttt.sqlite3"
    api_base: str | None = None
    gateway_url: str | None = None
    dev_guild_id: int | None = None
    challenge_timeout: float = 60.0
    turn_timeout: float = 300.0
    default_difficulty: str = "medium"
    think_time: float = 2.0
    """Seconds hard and unbeatable may think on boards too large to solve (5×5)."""
    defer_after: float = 1.0
    """Seconds the bot's reply may take before the member's move is shown on its own
    (Discord wants an answer within 3)."""
    log_level: str = "INFO"

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
        # A slots dataclass keeps its defaults on instances only: cls.turn_timeout is a
        # member descriptor, not 300.0.
        defaults = cls(token=token)
        difficulty = (get("TTT_DEFAULT_DIFFICULTY") or defaults.default_difficulty).lower()
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
        return cls(
            token=token,
            database=get("TTT_DATABASE") or defaults.database,
            api_base=(get("DISCORD_API_BASE") or "").rstrip("/") or None,
            gateway_url=get("DISCORD_GATEWAY_URL"),
            dev_guild_id=_integer(get("TTT_DEV_GUILD_ID"), "TTT_DEV_GUILD_ID"),
            challenge_timeout=_seconds(
                get("TTT_CHALLENGE_TIMEOUT"), "TTT_CHALLENGE_TIMEOUT", defaults.challenge_timeout
            ),
            turn_timeout=_seconds(
                get("TTT_TURN_TIMEOUT"), "TTT_TURN_TIMEOUT", defaults.turn_timeout
            ),
            think_time=_seconds(get("TTT_THINK_TIME"), "TTT_THINK_TIME", defaults.think_time),
            default_difficulty=difficulty,
            log_level=log_level,
        )


def _integer(raw: str | None, name: str) -> int | None:
    if raw is None:
        return None
    if not (raw.isascii() and raw.isdigit()):  # '²'.isdigit() is True, int('²') fails
        raise SettingsError(f"{name} must be a numeric Discord id, got {raw!r}")
    return int(raw)


def _seconds(raw: str | None, name: str, default: float) -> float:
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SettingsError(f"{name} must be a number of seconds, got {raw!r}") from None
    if not 0 < value <= 7 * 24 * 3600:
        raise SettingsError(f"{name} must be between 0 and 604800 seconds, got {raw!r}")
    return value
