"""Elo ratings for member-against-member games. Pure arithmetic; storage applies it."""

from __future__ import annotations

INITIAL_RATING = 1000.0
K_FACTOR = 32.0
"""Points at stake per game: the usual value for players with few games."""


def expected_score(rating: float, other: float) -> float:
    """The chance-weighted score a player rated ``rating`` is expected to get."""
    return 1.0 / (1.0 + float(10.0 ** ((other - rating) / 400.0)))


def elo_update(rating_a: float, rating_b: float, score_a: float) -> tuple[float, float]:
    """New ratings after A scored ``score_a`` (1 win, 0.5 draw, 0 loss) against B.

    What one gains the other loses, so the sum of the two ratings is kept.

    Raises:
        ValueError: a score outside 0..1.
    """
    if not 0.0 <= score_a <= 1.0:
        raise ValueError(f"a game score is between 0 and 1, got {score_a}")
    delta = K_FACTOR * (score_a - expected_score(rating_a, rating_b))
    return rating_a + delta, rating_b - delta
