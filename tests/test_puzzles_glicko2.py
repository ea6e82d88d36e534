"""Glicko-2 against the worked example of Glickman's paper ("Example of the Glicko-2
system", 2013), and the catalog text of every refusal the puzzle service raises."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.core.puzzles.glicko2 import DAY, GROWTH, away, duel, update
from bot.core.puzzles.models import PuzzleRating

ROOT = Path(__file__).resolve().parents[1]


def test_glickmans_worked_example() -> None:
    player = PuzzleRating(1500.0, 200.0, 0.06)
    games = [
        (PuzzleRating(1400.0, 30.0, 0.06), 1.0),
        (PuzzleRating(1550.0, 100.0, 0.06), 0.0),
        (PuzzleRating(1700.0, 300.0, 0.06), 0.0),
    ]
    after = update(player, games, tau=0.5)
    # the paper's figures: r' = 1464.06, RD' = 151.52, sigma' = 0.05999
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_games_only_widens_the_deviation() -> None:
    after = update(PuzzleRating(1500.0, 200.0, 0.06), [])
    # step 6 alone: sqrt(200^2 + (0.06 * 173.7178)^2) = 200.2714
    assert after.rating == 1500.0 and after.deviation == pytest.approx(200.2714, abs=0.001)


def test_time_away_grows_the_deviation_as_lichess_does() -> None:
    typical = PuzzleRating(1712.0, 60.0, 0.06)
    # lichess's 0.21436 rating periods a day: 60 grows to 110 in a year (78.24 periods,
    # sqrt((60/173.7178)^2 + 78.24 * 0.06^2) * 173.7178 = 110.0008)
    year = away(typical, 365 * DAY)
    assert year.deviation == pytest.approx(110.0008, abs=0.0001)
    assert (year.rating, year.volatility) == (1712.0, 0.06)
    assert away(typical, DAY).deviation == pytest.approx(60.1938, abs=0.0001)
    assert away(typical, 0).deviation == pytest.approx(60.0)
    assert away(typical, -DAY).deviation == pytest.approx(60.0)  # a clock set back
    assert away(typical, 30 * 365 * DAY).deviation == 350.0  # capped at a newcomer's
    # the squared form the leaderboard's query filters by agrees below the cap
    assert year.deviation**2 == pytest.approx(60.0**2 + GROWTH * 0.06**2 * 365 * DAY)


def test_a_duel_moves_member_and_puzzle_opposite_ways() -> None:
    member, puzzle = PuzzleRating(1500.0, 350.0, 0.06), PuzzleRating(1800.0, 200.0, 0.06)
    won, lost = duel(member, puzzle, solved=True)
    assert won.rating > 1500 and lost.rating < 1800 and won.deviation < 350
    failed, held = duel(member, puzzle, solved=False)
    # expected to fail a harder puzzle: a failure costs less than a solve gains
    assert 1500 - failed.rating < won.rating - 1500 and held.rating > 1800


def test_every_puzzle_refusal_has_a_text_in_every_language() -> None:
    raised: set[str] = set()
    for path in (ROOT / "bot" / "core" / "puzzles").glob("*.py"):
        raised |= set(re.findall(r'Refusal\("(puzzle\.[a-z_.]+)"', path.read_text()))
    assert {"puzzle.off", "puzzle.busy", "puzzle.not_yours"} <= raised
    for catalog in (ROOT / "bot" / "i18n" / "locales").glob("*.json"):
        texts = json.loads(catalog.read_text(encoding="utf-8"))
        assert raised <= set(texts), (catalog.name, raised - set(texts))
