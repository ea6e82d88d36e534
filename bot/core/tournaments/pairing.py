"""Who plays whom: seeding by rating, a single-elimination bracket with byes, the circle
method for round robin, and Swiss pairings by score without repeats where possible.

Players are ids (Discord user ids); a pair's ``second`` of None is a bye. In every pair
``first`` takes X in the match's first game (sides then alternate).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

Player = int


@dataclass(frozen=True, slots=True)
class Pair:
    first: Player
    second: Player | None
    """None: a bye (``first`` scores the match without playing)."""


def seed(ratings: Mapping[Player, float], rng: random.Random) -> list[Player]:
    """The players best first by rating; equal ratings in an order drawn from ``rng``
    (seed it in tests)."""
    draw = {player: rng.random() for player in sorted(ratings)}
    return sorted(ratings, key=lambda p: (-ratings[p], draw[p]))


# --- single elimination ------------------------------------------------------------------


def bracket_size(players: int) -> int:
    """The smallest power of two holding ``players`` (at least 2)."""
    size = 2
    while size < players:
        size *= 2
    return size


def seed_positions(size: int) -> list[int]:
    """Seed numbers (1-based) in bracket order for a bracket of ``size``: 1 and 2 can
    meet only in the final, 1-4 only in the semi-finals, and so on (8: 1 8 4 5 2 7 3 6)."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for seed_ in order for s in (seed_, total - seed_)]
    return order


def first_round(seeds: Sequence[Player]) -> list[Pair]:
    """The first round of a single-elimination bracket for ``seeds`` (best first): the
    missing seeds of the power of two are byes, so the best seeds get them."""
    if len(seeds) < 2:
        raise ValueError("a bracket needs at least two players")
    slots = [
        seeds[s - 1] if s <= len(seeds) else None for s in seed_positions(bracket_size(len(seeds)))
    ]
    pairs = []
    for top, bottom in zip(slots[::2], slots[1::2], strict=True):
        assert top is not None  # seed s meets size + 1 - s: never two byes
        pairs.append(Pair(top, bottom))
    return pairs


def next_round(winners: Sequence[Player]) -> list[Pair]:
    """The next round from the previous round's winners, in bracket order."""
    if len(winners) % 2:
        raise ValueError("a bracket round has an even number of winners")
    return [Pair(a, b) for a, b in zip(winners[::2], winners[1::2], strict=True)]


# --- round robin -------------------------------------------------------------------------


def round_robin(players: Sequence[Player]) -> list[list[Pair]]:
    """Every round of a round robin by the circle method: the first player stays, the
    others turn one place a round; with an odd number, one player a round has a bye.
    The fixed player alternates sides, so nobody has X first far more often."""
    if len(players) < 2:
        raise ValueError("a round robin needs at least two players")
    circle: list[Player | None] = list(players)
    if len(circle) % 2:
        circle.append(None)
    n = len(circle)
    rounds = []
    for number in range(n - 1):
        pairs = []
        for i in range(n // 2):
            a, b = circle[i], circle[n - 1 - i]
            if i == 0 and number % 2:
                a, b = b, a
            if a is None:
                a, b = b, None
            assert a is not None
            pairs.append(Pair(a, b))
        rounds.append(pairs)
        circle = [circle[0], circle[-1], *circle[1:-1]]
    return rounds


# --- Swiss -------------------------------------------------------------------------------


def swiss_round(
    seeds: Sequence[Player],
    scores: Mapping[Player, float],
    played: Collection[frozenset[Player]],
    byes: Collection[Player],
) -> list[Pair]:
    """The next Swiss round. ``seeds``: the players best first (those still playing);
    ``scores``: their points so far; ``played``: the pairs that have met; ``byes``:
    who had one.

    With an odd number, the lowest-ranked player without a bye gets it. The others are
    ranked by score, then seed, and paired from the top, each with the nearest player
    below it they have not met (backtracking when that leaves someone unpaired); only if
    no pairing avoids every repeat are repeats allowed. The first round pairs the top
    half with the bottom half (1 with n/2 + 1, ...), as Swiss events do.
    """
    rank = {player: i for i, player in enumerate(seeds)}
    order = sorted(seeds, key=lambda p: (-scores.get(p, 0.0), rank[p]))
    pairs: list[Pair] = []
    if len(order) % 2:
        bye = next((p for p in reversed(order) if p not in byes), order[-1])
        order.remove(bye)
        pairs_bye = [Pair(bye, None)]
    else:
        pairs_bye = []
    if not played and not any(scores.get(p, 0.0) for p in order):
        half = len(order) // 2
        pairs = [Pair(order[i], order[half + i]) for i in range(half)]
        return pairs + pairs_bye
    found = _pair_without_repeats(order, played)
    if found is None:  # everyone has met everyone near them: repeats, nearest first
        found = [Pair(a, b) for a, b in zip(order[::2], order[1::2], strict=True)]
    return found + pairs_bye


SEARCH_LIMIT = 100_000
"""Pairing attempts before giving up on avoiding every repeat (a large late round where
no such pairing exists would otherwise take exponential time)."""


def _pair_without_repeats(
    order: list[Player], played: Collection[frozenset[Player]], budget: list[int] | None = None
) -> list[Pair] | None:
    budget = [SEARCH_LIMIT] if budget is None else budget
    if not order:
        return []
    top, rest = order[0], order[1:]
    for i, other in enumerate(rest):
        if frozenset((top, other)) in played:
            continue
        budget[0] -= 1
        if budget[0] < 0:
            return None
        found = _pair_without_repeats(rest[:i] + rest[i + 1 :], played, budget)
        if found is not None:
            return [Pair(top, other), *found]
    return None
