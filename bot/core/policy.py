"""The rules a server plays by: timeouts, defaults, where and how often games may start,
the look of its messages. The environment gives the defaults; each server's admins may
override them with /ttt config (see :class:`bot.core.policies.PolicyBook`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

DIFFICULTIES = ("easy", "medium", "hard", "unbeatable")
SIZES = (3, 4, 5)
EMOJI_SETS = {"classic": ("❌", "⭕"), "hearts": ("❤️", "💙"), "animals": ("🐱", "🐶"),
              "fruit": ("🍎", "🍐")}  # fmt: skip


@dataclass(frozen=True, slots=True)
class ServerPolicy:
    challenge_timeout: float = 60.0
    turn_timeout: float = 300.0
    default_difficulty: str = "medium"
    default_size: int = 3
    allowed_channels: tuple[int, ...] = ()
    """Channels where games may start; empty means every channel."""
    games_per_channel: int = 1
    one_game_per_member: bool = False
    start_cooldown: float = 0.0
    """Seconds a member waits between starting two games."""
    start_role: int | None = None
    """A role members need to start games; None lets everyone."""
    embed_colour: int = 0x5865F2
    emoji_set: str = "classic"

    def in_direct_messages(self) -> ServerPolicy:
        """This policy in a DM with the bot: no server's admins chose it, and the rules
        about where in a server and for whom (a channel list, a role) cannot hold there;
        timeouts, defaults, limits and looks still do."""
        return replace(self, allowed_channels=(), start_role=None)

    def with_overrides(self, overrides: Mapping[str, object]) -> ServerPolicy:
        """This policy with a server's own choices on top; unknown keys (from a newer or
        older bot) are ignored."""
        known: dict[str, object] = {k: v for k, v in overrides.items() if k in SERVER_SETTINGS}
        channels = known.get("allowed_channels")
        if isinstance(channels, list | tuple):
            known["allowed_channels"] = tuple(channels)  # JSON has lists
        return replace(self, **known)  # type: ignore[arg-type]


SERVER_SETTINGS = tuple(f.name for f in fields(ServerPolicy))
"""What a server's admins may choose for their server with /ttt config."""

BOUNDS: dict[str, tuple[int, int]] = {
    "challenge_timeout": (10, 3600),
    "turn_timeout": (30, 86400),
    "games_per_channel": (1, 10),
    "start_cooldown": (0, 3600),
}
"""Inclusive limits of the numeric server settings (the /ttt config options declare the
same, but a client with an older command schema can send anything)."""
CHOICES: dict[str, tuple[object, ...]] = {
    "default_difficulty": DIFFICULTIES,
    "default_size": SIZES,
    "emoji_set": tuple(EMOJI_SETS),
}
LABELS = {"challenge_timeout": "config.challenge_timeout", "turn_timeout": "config.turn_timeout",
          "games_per_channel": "config.games_per_channel", "start_cooldown": "config.cooldown",
          "default_difficulty": "config.difficulty", "default_size": "config.size",
          "emoji_set": "config.emoji"}  # fmt: skip
"""The catalog key naming each checked setting, for the refusal."""


def parse_colour(raw: str) -> int | None:
    """``#5865F2`` (or without the #) as an int; None if it is not a colour."""
    digits = raw.strip().removeprefix("#")
    if len(digits) != 6 or any(c not in "0123456789abcdefABCDEF" for c in digits):
        return None
    return int(digits, 16)
