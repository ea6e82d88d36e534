"""A tournament as it stands, read in one go: what the interface renders and what the
service decides from. Pure: built from stored rows, no I/O."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from bot.core.models import Game
from bot.core.tournaments.models import Entrant, Match, Tournament
from bot.core.tournaments.pairing import Player
from bot.core.tournaments.standings import (
    Result,
    Standing,
    round_robin_standings,
    swiss_standings,
)

GameOutcome = Literal["first", "second", "draw"]


def outcome_of(game: Game, match: Match) -> GameOutcome | None:
    """Who won a finished game of ``match``, by the match's sides; None while it runs or
    when it ended without a result (stopped by a moderator, its message deleted)."""
    score = game.score_of(match.first)
    if score is None:
        return None
    return "first" if score == 1.0 else "second" if score == 0.0 else "draw"


def result_of(match: Match) -> Result | None:
    """A decided match as the standings count it."""
    if match.status != "done" or match.result is None:
        return None
    if match.second is None:
        return Result(match.first, None, 1.0)
    points = {"first": 1.0, "second": 0.0, "draw": 0.5, "none": 0.0}[match.result]
    return Result(match.first, match.second, points, both_lost=match.result == "none")


@dataclass(frozen=True, slots=True)
class TournamentView:
    tournament: Tournament
    entrants: tuple[Entrant, ...]
    matches: tuple[Match, ...] = ()
    games: tuple[Game, ...] = ()
    """Every game of its matches, oldest first."""
    new_games: tuple[Game, ...] = field(default=(), compare=False)
    """Games the last step started, or that have no message yet: to post."""
    ended_games: tuple[Game, ...] = field(default=(), compare=False)
    """Running games the last step ended (a removal, a correction): to show."""
    opened: tuple[Match, ...] = field(default=(), compare=False)
    """Matches to give a thread and a message (new, or never shown)."""
    changed: tuple[Match, ...] = field(default=(), compare=False)
    """Matches already shown whose message should say something new."""

    @property
    def seeds(self) -> list[Player]:
        """The players best first (the seeding at the start; the sign-up order before)."""
        ranked = sorted(self.entrants, key=lambda e: (e.seed or 10**9, e.joined_at, e.user_id))
        return [e.user_id for e in ranked]

    @property
    def removed(self) -> set[Player]:
        return {e.user_id for e in self.entrants if e.removed}

    def games_of(self, match: Match) -> list[Game]:
        return [g for g in self.games if g.tournament_match_id == match.id]

    def outcomes(self, match: Match) -> list[GameOutcome]:
        found = (outcome_of(g, match) for g in self.games_of(match))
        return [o for o in found if o is not None]

    def round_matches(self, number: int) -> list[Match]:
        return sorted((m for m in self.matches if m.round == number), key=lambda m: m.number)

    def match_numbered(self, number: int) -> Match | None:
        return next((m for m in self.matches if m.number == number), None)

    def results(self) -> list[Result]:
        found = (result_of(m) for m in sorted(self.matches, key=lambda m: m.number))
        return [r for r in found if r is not None]

    def standings(self) -> list[Standing]:
        """Round robin and Swiss: the table with its tie-breaks, best first."""
        if self.tournament.format == "round_robin":
            return round_robin_standings(self.seeds, self.results())
        return swiss_standings(self.seeds, self.results())
