"""The rules a server plays by: timeouts, defaults, where and how often games may start,
the look of its messages. The environment gives the defaults; each server's admins may
override them with /ttt config (see :class:`bot.core.policies.PolicyBook`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

from bot.core.emoji_names import as_emoji

DIFFICULTIES = ("easy", "medium", "hard", "unbeatable")
SIZES = (3, 4, 5)
EMOJI_SETS = {"classic": ("❌", "⭕"), "hearts": ("❤️", "💙"), "animals": ("🐱", "🐶"),
              "fruit": ("🍎", "🍐")}  # fmt: skip
EMPTY_MARK = "⬜"
LANGUAGES = ("en", "de", "es", "fr", "pt-BR")
"""The languages a server may choose for its public messages (the catalogs')."""
MARK_SETTINGS = ("mark_x", "mark_o", "mark_empty")
CORRESPONDENCE_GAMES_PER_MEMBER = 20
"""The default of ``TTT_CORRESPONDENCE_GAMES_PER_MEMBER``: games that wait days for a
move pile up unseen, and each holds a deadline the timekeeper keeps."""


@dataclass(frozen=True, slots=True)
class Marks:
    """What a board shows for X, O and an empty square: Unicode emoji, or a server's
    custom emoji written as Discord writes them (``<:name:id>``)."""

    x: str = EMOJI_SETS["classic"][0]
    o: str = EMOJI_SETS["classic"][1]
    empty: str = EMPTY_MARK

    def of(self, mark: str | None) -> str:
        return self.x if mark == "X" else self.o if mark == "O" else self.empty


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
    turn_ping: bool = False
    """Mention the member to move in a short message when the turn passes to them."""
    mark_x: str = ""
    mark_o: str = ""
    mark_empty: str = ""
    """A server's own marks; empty: the emoji set's (and ⬜ for an empty square)."""
    language: str = ""
    """The language of public messages (boards, challenges, the leaderboard); empty: the
    server's own locale as Discord reports it."""
    hints: bool = True
    """Members may ask for a hint in a game against the bot."""
    puzzles: bool = True
    """Members may start puzzles through the server and share a result there."""
    correspondence_games: int | None = None
    """Running correspondence games a member may play in this server at once; None:
    only the process's limit (``TTT_CORRESPONDENCE_GAMES_PER_MEMBER``, everywhere
    together), which also holds when this one is larger."""

    @property
    def marks(self) -> Marks:
        x, o = EMOJI_SETS.get(self.emoji_set, EMOJI_SETS["classic"])
        return Marks(self.mark_x or x, self.mark_o or o, self.mark_empty or EMPTY_MARK)

    def public_locale(self, guild_locale: str | None) -> str | None:
        """The language everyone in the server reads the bot's public messages in."""
        return self.language or guild_locale

    def in_direct_messages(self) -> ServerPolicy:
        """This policy in a DM with the bot: no server's admins chose it, and the rules
        about where in a server and for whom (a channel list, a role) cannot hold there;
        nor does a language for everyone (only the member reads the board: in their own
        language). Timeouts, defaults, limits and marks still do."""
        return replace(self, allowed_channels=(), start_role=None, language="")

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
    "correspondence_games": (1, 1000),
}
"""Inclusive limits of the numeric server settings (the /ttt config options declare the
same, but a client with an older command schema can send anything)."""
CHOICES: dict[str, tuple[object, ...]] = {
    "default_difficulty": DIFFICULTIES,
    "default_size": SIZES,
    "emoji_set": tuple(EMOJI_SETS),
    "language": LANGUAGES,
}
LABELS = {"challenge_timeout": "config.challenge_timeout", "turn_timeout": "config.turn_timeout",
          "games_per_channel": "config.games_per_channel", "start_cooldown": "config.cooldown",
          "default_difficulty": "config.difficulty", "default_size": "config.size",
          "emoji_set": "config.emoji", "language": "config.language",
          "correspondence_games": "config.correspondence_games"}  # fmt: skip
"""The catalog key naming each checked setting, for the refusal."""


def parse_colour(raw: str) -> int | None:
    """``#5865F2`` (or without the #) as an int; None if it is not a colour."""
    digits = raw.strip().removeprefix("#")
    if len(digits) != 6 or any(c not in "0123456789abcdefABCDEF" for c in digits):
        return None
    return int(digits, 16)


CUSTOM_EMOJI = re.compile(r"<(a?):(\w{2,32}):([0-9]{15,21})>")


def parse_mark(raw: str) -> str | None:
    """A board mark as stored: a custom emoji (``<:name:id>``, ``<a:name:id>``) or one
    of Unicode's emoji (keycaps like 1️⃣, flags, skin tones and joined sequences
    included; ❤ taken as ❤️); None if it is neither (words, spaces, two emoji, or a
    symbol that is no emoji, such as ★, which Discord would refuse on a button)."""
    mark = raw.strip()
    if CUSTOM_EMOJI.fullmatch(mark):
        return mark
    return as_emoji(mark)


def custom_emoji_id(mark: str) -> int | None:
    """The id of a custom emoji mark; None for a Unicode one."""
    match = CUSTOM_EMOJI.fullmatch(mark)
    return int(match[3]) if match else None
