"""When a match is decided, and the standings with their tie-breaks.

A match is best of 1 or 3 games. It is over once one side cannot be caught, or all its
games are played; in round robin and Swiss a level match is a draw (half a point each).
A single-elimination match needs a winner: a level match goes on with deciding games
(sides still alternating) until one is won, at most :data:`DECIDERS`; if they are all
drawn, the better seed goes through (perfect tic-tac-toe is a draw, so this ends).

Standings rank by points (a match won 1, drawn 1/2, a bye 1), then:
- round robin: head-to-head (the points the tied players scored against each other),
  then Sonneborn-Berger (the points of every opponent beaten, plus half those of every
  opponent drawn with), then the seed;
- Swiss: Buchholz (the sum of the opponents' points; a bye adds none), then the seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bot.core.tournaments.pairing import Player

Game = Literal["first", "second", "draw"]
"""A game of a match, by who won it (``first`` is the pair's first player)."""
DECIDERS = 3
"""Deciding games a level single-elimination match may add before the better seed goes
through."""


@dataclass(frozen=True, slots=True)
class MatchState:
    over: bool
    winner: Player | None
    """The match's winner once it is over; None for a drawn match (round robin, Swiss)."""


def match_state(
    first: Player, second: Player, games: Sequence[Game], best_of: int,
    elimination: bool, better_seed: Player,
) -> MatchState:  # fmt: skip
    """Where a match between ``first`` and ``second`` stands after ``games``."""
    if best_of not in (1, 3):
        raise ValueError(f"a match is best of 1 or 3, not {best_of}")
    won_first, won_second = games.count("first"), games.count("second")
    need = best_of // 2 + 1
    if won_first >= need or won_second >= need:
        return MatchState(True, first if won_first > won_second else second)
    if len(games) < best_of:
        return MatchState(False, None)
    if won_first != won_second:
        return MatchState(True, first if won_first > won_second else second)
    if not elimination:
        return MatchState(True, None)
    if len(games) < best_of + DECIDERS:
        extra = games[best_of:]
        decided = next((g for g in extra if g != "draw"), None)
        if decided is None:
            return MatchState(False, None)
        return MatchState(True, first if decided == "first" else second)
    return MatchState(True, better_seed)


@dataclass(frozen=True, slots=True)
class Result:
    """A finished match: ``points_first`` is 1 (first won), 0.5 (drawn) or 0; a bye has
    ``second`` None and 1 point. ``second`` scores what ``first`` did not, unless
    ``both_lost`` (neither showed up: nobody scores)."""

    first: Player
    second: Player | None
    points_first: float
    both_lost: bool = False

    @property
    def points_second(self) -> float:
        return 0.0 if self.both_lost else 1.0 - self.points_first


@dataclass(frozen=True, slots=True)
class Standing:
    player: Player
    points: float
    tiebreaks: tuple[float, ...]
    """Round robin: (head-to-head, Sonneborn-Berger); Swiss: (Buchholz,)."""


def points(players: Sequence[Player], results: Sequence[Result]) -> dict[Player, float]:
    found = dict.fromkeys(players, 0.0)
    for r in results:
        found[r.first] = found.get(r.first, 0.0) + r.points_first
        if r.second is not None:
            found[r.second] = found.get(r.second, 0.0) + r.points_second
    return found


def _scored(results: Sequence[Result]) -> list[tuple[Player, Player, float]]:
    """Every (player, opponent, points the player scored) of the matches played."""
    found = []
    for r in results:
        if r.second is not None:
            found.append((r.first, r.second, r.points_first))
            found.append((r.second, r.first, r.points_second))
    return found


def round_robin_standings(seeds: Sequence[Player], results: Sequence[Result]) -> list[Standing]:
    """The round robin's table, best first (``seeds`` best first: the last tie-break)."""
    total = points(seeds, results)
    scored = _scored(results)
    sonneborn = dict.fromkeys(seeds, 0.0)
    for player, opponent, got in scored:
        sonneborn[player] += got * total[opponent]
    tied: dict[float, list[Player]] = {}
    for player in seeds:
        tied.setdefault(total[player], []).append(player)
    head_to_head = dict.fromkeys(seeds, 0.0)
    for group in tied.values():
        members = set(group)
        for player, opponent, got in scored:
            if player in members and opponent in members and len(members) > 1:
                head_to_head[player] += got
    rank = {p: i for i, p in enumerate(seeds)}
    rows = [Standing(p, total[p], (head_to_head[p], sonneborn[p])) for p in seeds]
    return sorted(rows, key=lambda s: (-s.points, -s.tiebreaks[0], -s.tiebreaks[1], rank[s.player]))


def swiss_standings(seeds: Sequence[Player], results: Sequence[Result]) -> list[Standing]:
    """The Swiss table, best first."""
    total = points(seeds, results)
    buchholz = dict.fromkeys(seeds, 0.0)
    for player, opponent, _ in _scored(results):
        buchholz[player] += total[opponent]
    rank = {p: i for i, p in enumerate(seeds)}
    rows = [Standing(p, total[p], (buchholz[p],)) for p in seeds]
    return sorted(rows, key=lambda s: (-s.points, -s.tiebreaks[0], rank[s.player]))


def played_pairs(results: Sequence[Result]) -> set[frozenset[Player]]:
    return {frozenset((r.first, r.second)) for r in results if r.second is not None}


def had_bye(results: Sequence[Result]) -> set[Player]:
    return {r.first for r in results if r.second is None}
