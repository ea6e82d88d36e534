"""What a reminder is: a member's choice (:class:`ReminderSetting`), a row of the outbox
(:class:`Reminder`), and which reminders a game's position makes due
(:func:`due_for`), the rule storage writes with the move that makes them due.

Deadline warnings go 12 hours and 1 hour before a turn's deadline: 12 hours leaves a
member on a 1-day pace half their time (a night's sleep) to answer, 1 hour is the last
call; both are dropped once the move is made (the sender checks the game still waits).

A correspondence challenge naming a member is a reminder too (kind ``challenge``): an
every-move member gets it as a DM at once, with Accept and Decline; a digest member
finds it listed in their next digest instead (one message a day, as they chose). It is
dropped unsent once the challenge is answered, withdrawn or lapsed, or the member
blocked the challenger (:func:`challenge_waits_for`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.core.models import Challenge, Game

Mode = Literal["off", "every", "digest"]
MODES: tuple[Mode, ...] = ("off", "every", "digest")
Kind = Literal["move", "warn12", "warn1", "digest", "challenge"]
HOUR = 3600.0
DAY = 24 * HOUR
WARNINGS: tuple[tuple[Kind, float], ...] = (("warn12", 12 * HOUR), ("warn1", 1 * HOUR))
"""Deadline warnings: each kind and how long before the deadline it goes."""


@dataclass(frozen=True, slots=True)
class ReminderSetting:
    member_id: int
    mode: Mode = "off"
    digest_minute: int | None = None
    """The minute of the UTC day the digest goes (their hour less their UTC offset)."""
    utc_offset: int = 0
    """Minutes east of UTC, as the member gave them (to show their hour back)."""
    warnings: bool = False
    unreachable: bool = False
    """Discord answered 50007 to a DM: nothing is tried until they choose again."""
    told: bool = False
    offered: bool = False
    next_digest_at: float | None = None
    locale: str | None = None
    """The language of the interaction where they last chose (Discord's locale code):
    their DMs' language (None: their game's server's, as a DM has no locale of its own)."""

    @property
    def digest_hour(self) -> int | None:
        """Their hour of the digest, on their clock."""
        if self.digest_minute is None:
            return None
        return (self.digest_minute + self.utc_offset) // 60 % 24


@dataclass(frozen=True, slots=True)
class Reminder:
    """A row of the outbox, as claimed for sending."""

    id: int
    member_id: int
    game_id: int
    """0 for a digest; the challenge's id for a ``challenge``."""
    ply: int
    """The ply the game stood at when it became due (a digest: its day; a challenge: 0)."""
    kind: Kind
    due_at: float
    attempts: int = 0


@dataclass(frozen=True, slots=True)
class DueReminders:
    """What a stored position makes due, if the member to move chose it (storage writes
    it in the move's transaction, conditioned on their setting)."""

    member_id: int
    game_id: int
    ply: int
    move_at: float
    """When an every-move reminder goes (at once)."""
    warnings: tuple[tuple[Kind, float], ...]
    """Each warning still to come, and when it goes."""


def due_for(game: Game) -> DueReminders | None:
    """The reminders ``game``'s position makes due: a correspondence game still running
    with a member to move and a deadline; None otherwise (a live game: never)."""
    if game.days_per_move is None or not game.running or game.turn_deadline is None:
        return None
    if game.bot_side == game.board.to_move:
        return None
    deadline, now = game.turn_deadline, game.updated_at
    warnings = tuple((kind, deadline - before) for kind, before in WARNINGS
                     if deadline - before > now)  # fmt: skip
    return DueReminders(game.player(game.board.to_move), game.id, game.ply, now, warnings)


def waits_for(game: Game | None, member_id: int, ply: int) -> bool:
    """Whether ``game`` still waits for ``member_id``'s move at ``ply`` (else a reminder
    made due then is dropped: the game was moved in, or it ended)."""
    return (
        game is not None
        and game.running
        and game.ply == ply
        and game.bot_side != game.board.to_move
        and game.player(game.board.to_move) == member_id
    )


def challenge_waits_for(challenge: Challenge | None, member_id: int, now: float) -> bool:
    """Whether ``challenge`` still waits for ``member_id``'s answer at ``now`` (else its
    reminder is dropped: answered, withdrawn or lapsed)."""
    return (
        challenge is not None
        and challenge.pending
        and challenge.expires_at > now
        and challenge.opponent_id == member_id
        and challenge.days_per_move is not None
    )


def waiting_for(game: Game, member_id: int) -> bool:
    """Whether ``game`` waits for ``member_id``'s move now."""
    return waits_for(game, member_id, game.ply)


def next_digest(after: float, digest_minute: int) -> float:
    """The first time after ``after`` that the UTC day reaches ``digest_minute``."""
    start = after - after % DAY + digest_minute * 60.0
    return start if start > after else start + DAY
