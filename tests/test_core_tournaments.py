"""Tournament rules without Discord: seeding, pairings and standings, checked against
tables worked out by hand."""

from __future__ import annotations

import itertools
import random

import pytest

from bot.core.tournaments.pairing import (
    Pair,
    bracket_size,
    first_round,
    next_round,
    round_robin,
    seed,
    seed_positions,
    swiss_round,
)
from bot.core.tournaments.standings import (
    Result,
    match_state,
    played_pairs,
    points,
    round_robin_standings,
    swiss_standings,
)


def test_seeding_is_by_rating_and_ties_are_drawn_from_the_seed() -> None:
    ratings = {11: 1000.0, 12: 1100.0, 13: 1000.0, 14: 900.0}
    orders = {tuple(seed(ratings, random.Random(n))) for n in range(20)}
    assert orders == {(12, 11, 13, 14), (12, 13, 11, 14)}  # only the tie moves
    assert seed(ratings, random.Random(5)) == seed(ratings, random.Random(5))


def test_bracket_order_keeps_the_best_seeds_apart_until_the_end() -> None:
    assert [bracket_size(n) for n in (2, 3, 5, 8, 9, 32)] == [2, 4, 8, 8, 16, 32]
    assert seed_positions(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert seed_positions(16) == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]


def test_six_players_give_the_two_best_seeds_a_bye() -> None:
    players = [101, 102, 103, 104, 105, 106]  # seeds 1..6
    assert first_round(players) == [
        Pair(101, None), Pair(104, 105), Pair(102, None), Pair(103, 106),
    ]  # fmt: skip
    assert next_round([101, 105, 102, 103]) == [Pair(101, 105), Pair(102, 103)]
    with pytest.raises(ValueError):
        first_round([101])


def test_round_robin_of_four_by_the_circle_method() -> None:
    rounds = round_robin([1, 2, 3, 4])
    assert rounds == [
        [Pair(1, 4), Pair(2, 3)],
        [Pair(3, 1), Pair(4, 2)],  # the fixed player takes the other side
        [Pair(1, 2), Pair(3, 4)],
    ]


@pytest.mark.parametrize("count", [3, 5, 6, 7, 8])
def test_in_a_round_robin_everyone_meets_everyone_once(count: int) -> None:
    players = list(range(1, count + 1))
    rounds = round_robin(players)
    met = [frozenset((p.first, p.second)) for r in rounds for p in r if p.second is not None]
    assert sorted(map(sorted, met)) == sorted(map(sorted, itertools.combinations(players, 2)))
    for r in rounds:  # nobody twice in a round
        seen = [p.first for p in r] + [p.second for p in r if p.second is not None]
        assert len(seen) == len(set(seen))
    byes = [p.first for r in rounds for p in r if p.second is None]
    assert sorted(byes) == (players if count % 2 else [])


def test_a_swiss_of_six_worked_by_hand() -> None:
    seeds = [1, 2, 3, 4, 5, 6]
    assert swiss_round(seeds, {}, set(), set()) == [Pair(1, 4), Pair(2, 5), Pair(3, 6)]
    results = [Result(1, 4, 1.0), Result(2, 5, 0.5), Result(3, 6, 0.0)]
    # by score, then seed: 1 and 6 (1 point), 2 and 5 (1/2), 3 and 4 (0); 2 and 5 have
    # met, so 2 takes the next below (3) and 5 meets 4
    second = swiss_round(seeds, points(seeds, results), played_pairs(results), set())
    assert second == [Pair(1, 6), Pair(2, 3), Pair(5, 4)]
    results += [Result(1, 6, 1.0), Result(2, 3, 1.0), Result(5, 4, 0.5)]
    table = swiss_standings(seeds, results)
    # points 1: 2, 2: 1.5, 5: 1, 6: 1, 4: 0.5, 3: 0; Buchholz of 5 and 6 both 2: seed
    assert [(s.player, s.points, s.tiebreaks) for s in table] == [
        (1, 2.0, (1.5,)), (2, 1.5, (1.0,)), (5, 1.0, (2.0,)), (6, 1.0, (2.0,)),
        (4, 0.5, (3.0,)), (3, 0.0, (2.5,)),
    ]  # fmt: skip


def test_a_swiss_bye_goes_to_the_lowest_without_one_and_repeats_only_when_forced() -> None:
    seeds = [1, 2, 3]
    results = [Result(3, None, 1.0), Result(1, 2, 1.0)]
    pairs = swiss_round(seeds, points(seeds, results), played_pairs(results), {3})
    assert Pair(2, None) in pairs  # 3 had the bye; 2 is now the lowest
    assert pairs == [Pair(1, 3), Pair(2, None)]
    # two players who have met must meet again
    assert swiss_round([1, 2], {1: 1.0}, {frozenset((1, 2))}, set()) == [Pair(1, 2)]


def test_a_bye_scores_a_win_and_counts_nothing_for_buchholz() -> None:
    results = [Result(1, None, 1.0), Result(2, 3, 1.0)]
    assert points([1, 2, 3], results) == {1: 1.0, 2: 1.0, 3: 0.0}
    table = swiss_standings([1, 2, 3], results)
    assert [(s.player, s.tiebreaks) for s in table] == [(1, (0.0,)), (2, (0.0,)), (3, (1.0,))]


def test_round_robin_tie_breaks_worked_by_hand() -> None:
    a, b, c, d = 1, 2, 3, 4
    results = [
        Result(a, b, 1.0), Result(a, c, 0.5), Result(d, a, 1.0),
        Result(b, c, 1.0), Result(b, d, 1.0), Result(c, d, 1.0),
    ]  # fmt: skip
    table = round_robin_standings([a, b, c, d], results)
    # B 2; A and C 1.5 with a drawn head-to-head, so Sonneborn-Berger: A beat B (2) and
    # drew C (1.5 / 2) = 2.75, C drew A (0.75) and beat D (1) = 1.75; D 1
    assert [(s.player, s.points, s.tiebreaks) for s in table] == [
        (b, 2.0, (0.0, 2.5)), (a, 1.5, (0.5, 2.75)), (c, 1.5, (0.5, 1.75)), (d, 1.0, (0.0, 1.5)),
    ]  # fmt: skip


def test_head_to_head_comes_before_sonneborn_berger() -> None:
    x, y, p, q, r = 1, 2, 3, 4, 5
    results = [
        Result(y, x, 1.0), Result(x, p, 1.0), Result(x, q, 1.0), Result(r, x, 1.0),
        Result(y, p, 0.0), Result(y, q, 0.0), Result(y, r, 1.0),
        Result(p, q, 0.5), Result(p, r, 1.0), Result(q, r, 1.0),
    ]  # fmt: skip
    table = round_robin_standings([x, y, p, q, r], results)
    # P and Q 2.5 (drawn with each other, Sonneborn-Berger 2 + 1.25 + 1 each: the seed);
    # X and Y 2: X beat the strong P and Q (Sonneborn-Berger 5), Y beat X and R (3), but
    # Y beat X, and head-to-head comes first; R 1
    assert [(s.player, s.points, s.tiebreaks) for s in table] == [
        (p, 2.5, (0.5, 4.25)), (q, 2.5, (0.5, 4.25)), (y, 2.0, (1.0, 3.0)),
        (x, 2.0, (0.0, 5.0)), (r, 1.0, (0.0, 2.0)),
    ]  # fmt: skip


def test_when_a_match_is_over() -> None:
    state = lambda games, best_of, elim: match_state(7, 8, games, best_of, elim, 7)  # noqa: E731
    assert state(["first"], 1, False).over and state(["first"], 1, False).winner == 7
    assert not state(["first"], 3, False).over
    assert state(["second", "second"], 3, False).winner == 8
    assert state(["first", "second", "draw"], 3, False) == state(["draw"], 1, False)
    assert state(["draw"], 1, False).over and state(["draw"], 1, False).winner is None
    # elimination needs a winner: deciding games, then the better seed
    assert not state(["first", "second", "draw"], 3, True).over
    assert state(["first", "second", "draw", "draw", "second"], 3, True).winner == 8
    assert not state(["draw", "draw", "draw"], 1, True).over
    assert state(["draw"] * 4, 1, True).winner == 7  # the better seed
    with pytest.raises(ValueError):
        state([], 2, False)
