"""Which puzzle training gives a member next (pure: the rng is handed in).

An untried puzzle of the board asked for (any board past 3×3 when none is: the 3×3
ones are a beginner's set, given when asked for), rated nearest the member: a puzzle's
rating is its Glicko-2 rating once members moved it, else its set record's seed. Among
the few nearest the choice is random, so two members of one rating do not walk the same
path, and a member's next puzzle cannot be looked up ahead.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping

from engine.puzzles import Puzzle

NEAREST = 5
"""How many of the nearest puzzles the choice is made among."""


def pick(
    puzzles: Iterable[Puzzle], kind: str | None, tried: set[str], rating: float,
    moved: Mapping[str, float], rng: random.Random,
) -> Puzzle | None:  # fmt: skip
    """The next training puzzle (None: the member tried every one of the board)."""
    untried = [
        p for p in puzzles
        if (p.kind == kind if kind is not None else p.kind != "3x3") and p.id not in tried
    ]  # fmt: skip
    if not untried:
        return None
    untried.sort(key=lambda p: (abs(moved.get(p.id, p.rating) - rating), p.id))
    return rng.choice(untried[:NEAREST])
