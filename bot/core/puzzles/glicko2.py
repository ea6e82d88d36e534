"""Glicko-2 (Glickman, "Example of the Glicko-2 system", 2013): pure arithmetic, one
rating period per puzzle attempt, as lichess rates its puzzles. A member and a puzzle
play one game: the member scores 1 when they solve it, 0 when they fail; both move.
Before a rated attempt the member's deviation grows for the time since their last one
(:func:`away`: Glicko-2's empty-period step, over the rating periods of that time).

Storage keeps what :func:`duel` returns; nothing here reads a clock or a database.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from bot.core.puzzles.models import PuzzleRating

SCALE = 173.7178
"""Glicko-2's scale factor between the Glicko scale (1500 centred) and its own."""
TAU = 0.5
"""The system constant: how much the volatility may change per period (Glickman
suggests 0.3 to 1.2; 0.5 is his example's)."""
EPSILON = 0.000001
"""The convergence tolerance of the volatility iteration (Glickman's)."""
MAX_DEVIATION = 350.0
"""A deviation never grows past an unrated player's."""
PERIODS_PER_DAY = 0.21436
"""Rating periods in a day of time away: lichess's figure (lila's ``Glicko``), chosen so
a typical deviation of 60 (volatility 0.06) grows to 110 in a year."""
DAY = 24 * 3600.0
PROVISIONAL = 110.0
"""A deviation above this is provisional, after the time-away step (lichess's
threshold): the rating is not ranked on a leaderboard yet."""
MEMBER_START = PuzzleRating(1500.0, 350.0, 0.06)
"""A member's puzzle rating before their first rated attempt (Glickman's defaults)."""
PUZZLE_DEVIATION = 200.0
"""A puzzle's deviation before any member tried it: its seed rating
(:func:`engine.puzzles.records.seed_rating`) is a guess from the ladder's agents, more
than nothing (350) and less than a measurement, so the first members' results move it
fast without throwing it about."""


def puzzle_start(seed: float) -> PuzzleRating:
    """A puzzle's rating before any member tried it: its set record's seed rating."""
    return PuzzleRating(float(seed), PUZZLE_DEVIATION, 0.06)


def away(rating: PuzzleRating, seconds: float) -> PuzzleRating:
    """``rating`` after ``seconds`` without a rated game: Glicko-2's step 6 for each
    empty rating period (:data:`PERIODS_PER_DAY`), phi' = sqrt(phi² + t·sigma²), the
    deviation capped at :data:`MAX_DEVIATION`; rating and volatility stay."""
    periods = max(0.0, seconds) / DAY * PERIODS_PER_DAY
    phi = rating.deviation / SCALE
    grown = math.sqrt(phi * phi + periods * rating.volatility**2) * SCALE
    return PuzzleRating(rating.rating, min(grown, MAX_DEVIATION), rating.volatility)


GROWTH = SCALE * SCALE * PERIODS_PER_DAY / DAY
""":func:`away` squared, per second: deviation'² = deviation² + GROWTH·volatility²·seconds
(below the cap), the form a query can filter by (the leaderboard's provisional rule)."""


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Step 5 of the paper: the new volatility by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def update(
    player: PuzzleRating, games: Sequence[tuple[PuzzleRating, float]], tau: float = TAU
) -> PuzzleRating:
    """``player``'s rating after one rating period of ``games`` (each: the opponent's
    rating before the period, and the player's score 0..1). No games: only the deviation
    grows (step 6), up to :data:`MAX_DEVIATION`.

    Raises:
        ValueError: a score outside 0..1.
    """
    mu = (player.rating - 1500.0) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not games:
        grown = math.sqrt(phi * phi + sigma * sigma) * SCALE
        return PuzzleRating(player.rating, min(grown, MAX_DEVIATION), sigma)
    v_inverse = 0.0
    gained = 0.0
    for opponent, score in games:
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"a score is between 0 and 1, got {score}")
        mu_j = (opponent.rating - 1500.0) / SCALE
        phi_j = opponent.deviation / SCALE
        e = _expected(mu, mu_j, phi_j)
        g = _g(phi_j)
        v_inverse += g * g * e * (1.0 - e)
        gained += g * (score - e)
    v = 1.0 / v_inverse
    delta = v * gained
    sigma_new = _volatility(phi, sigma, delta, v, tau)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * gained
    deviation = min(phi_new * SCALE, MAX_DEVIATION)
    return PuzzleRating(mu_new * SCALE + 1500.0, deviation, sigma_new)


def duel(
    member: PuzzleRating, puzzle: PuzzleRating, solved: bool
) -> tuple[PuzzleRating, PuzzleRating]:
    """The member's and the puzzle's ratings after one attempt (one rating period each,
    both from the ratings before it): the member scores 1 when solved, the puzzle the
    rest."""
    score = 1.0 if solved else 0.0
    return update(member, [(puzzle, score)]), update(puzzle, [(member, 1.0 - score)])
