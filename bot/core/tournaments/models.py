"""A tournament, its entrants and its matches as stored. Immutable; change with
``with_changes``."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from bot.core.models import Variant

Format = Literal["single", "round_robin", "swiss"]
TournamentStatus = Literal["signup", "running", "finished", "cancelled"]
MatchStatus = Literal["waiting", "playing", "done"]
MatchResult = Literal["first", "second", "draw", "none"]
"""Who took the match: ``none`` when neither showed up (in round robin and Swiss both
score nothing)."""
FORMATS: tuple[Format, ...] = ("single", "round_robin", "swiss")


@dataclass(frozen=True, slots=True)
class Tournament:
    id: int
    guild_id: int
    channel_id: int
    """Where its message is and its match threads hang from."""
    message_id: int | None
    organiser_id: int
    name: str
    format: Format
    rounds: int
    """Swiss: the rounds to play; otherwise 0 (the format says how many)."""
    size: int
    best_of: int
    max_players: int
    signup_closes_at: float | None
    """When sign-up ends and play starts by itself; None: the organiser starts it."""
    show_up: float
    """Seconds both players of a match have to press Ready before it is forfeited."""
    status: TournamentStatus
    round: int
    """The round being played (0 during sign-up)."""
    created_at: float
    locale: str | None = None
    champion: int | None = None
    variant: Variant = "classic"
    """The game its matches play (ultimate: ``size`` is 9)."""

    @property
    def active(self) -> bool:
        return self.status in ("signup", "running")

    def with_changes(self, **changes: object) -> Tournament:
        return replace(self, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Entrant:
    user_id: int
    name: str
    """Their display name when they joined: for the pictures, which cannot mention."""
    joined_at: float
    seed: int | None = None
    """1 is the best; set when the tournament starts."""
    removed: bool = False
    """Taken out by the organiser: their remaining matches are forfeited."""


@dataclass(frozen=True, slots=True)
class Match:
    id: int
    tournament_id: int
    round: int
    number: int
    """1, 2, … across the whole tournament: how the organiser names it."""
    first: int
    """X in the match's first game (sides then alternate)."""
    second: int | None
    """None: a bye."""
    status: MatchStatus
    start_by: float | None = None
    """While waiting: when whoever has not pressed Ready forfeits."""
    first_ready: bool = False
    second_ready: bool = False
    result: MatchResult | None = None
    forfeit: bool = False
    """Decided without its games: a no-show, a removed player, a correction."""
    thread_id: int | None = None
    """The channel its games are played in: its own thread, or the tournament's channel."""
    message_id: int | None = None
    """Its message there, with the Ready button."""

    @property
    def players(self) -> tuple[int, ...]:
        return (self.first,) if self.second is None else (self.first, self.second)

    @property
    def winner(self) -> int | None:
        if self.result == "first":
            return self.first
        if self.result == "second":
            return self.second
        return None

    def with_changes(self, **changes: object) -> Match:
        return replace(self, **changes)  # type: ignore[arg-type]
