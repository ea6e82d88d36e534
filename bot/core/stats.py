"""A member's record, computed from their finished games. Pure: no I/O."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.core.models import Game, Variant

MEMBERS = "members"


@dataclass(frozen=True, slots=True)
class Record:
    wins: int = 0
    losses: int = 0
    draws: int = 0

    def add(self, score: float) -> Record:
        return Record(
            self.wins + (score == 1.0), self.losses + (score == 0.0), self.draws + (score == 0.5)
        )

    def __str__(self) -> str:
        return f"{self.wins}-{self.losses}-{self.draws}"


@dataclass(frozen=True, slots=True)
class PlayerStats:
    by_opponent: dict[str, Record] = field(default_factory=dict)
    """``"members"`` and each bot difficulty the member has played."""
    current_streak: int = 0
    """Wins in a row up to the latest game."""
    best_streak: int = 0
    ratings: tuple[float, ...] = ()
    """The member's rating before and after each recorded rated game, oldest first (the
    chart in /ttt stats); empty without rated games."""
    variant: Variant = "classic"
    """The game these records are about (each game keeps its own)."""

    @property
    def total(self) -> Record:
        wins = sum(r.wins for r in self.by_opponent.values())
        losses = sum(r.losses for r in self.by_opponent.values())
        return Record(wins, losses, sum(r.draws for r in self.by_opponent.values()))


def player_stats(games_newest_first: list[Game], user_id: int) -> PlayerStats:
    by_opponent: dict[str, Record] = {}
    streak = best = 0
    current = None
    for game in reversed(games_newest_first):
        score = game.score_of(user_id)
        if score is None:
            continue
        kind = MEMBERS if game.bot_side is None else (game.difficulty or "?")
        by_opponent[kind] = by_opponent.get(kind, Record()).add(score)
        streak = streak + 1 if score == 1.0 else 0
        best = max(best, streak)
        current = streak
    return PlayerStats(by_opponent, current or 0, best)
