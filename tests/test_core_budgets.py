"""Keyed budgets (bot/core/budgets.py) on an injected clock: a member's credits, the
overall ones, refusals at once with the wait, and credits coming back at their pace."""

from __future__ import annotations

import pytest

from bot.core.budgets import Budget, Spent

from core_harness import FakeClock


def test_a_member_spends_their_credits_then_is_refused_with_the_wait() -> None:
    clock = FakeClock()
    budget = Budget("hint", per_key=3, overall=100, window=60.0, clock=clock)
    assert [budget.spend(1) for _ in range(3)] == [None, None, None]
    assert budget.spend(1) == Spent("member", pytest.approx(20.0))
    assert budget.spend(2) is None  # another member's purse is their own
    clock.advance(19.9)
    assert budget.spend(1) is not None
    clock.advance(0.1)  # a credit every 20 s
    assert budget.spend(1) is None
    assert budget.spend(1) is not None
    assert budget.refused == 3


def test_the_overall_budget_holds_however_many_members_ask() -> None:
    clock = FakeClock()
    budget = Budget("review", per_key=5, overall=4, window=10.0, clock=clock)
    assert [budget.spend(member) for member in range(4)] == [None] * 4
    refused = budget.spend(99)
    assert refused == Spent("overall", pytest.approx(2.5))
    clock.advance(2.5)
    assert budget.spend(99) is None


def test_a_refusal_spends_nothing() -> None:
    clock = FakeClock()
    budget = Budget("start", per_key=1, overall=2, window=10.0, clock=clock)
    assert budget.spend(1) is None
    for _ in range(50):  # a flood of one member's refused requests
        assert budget.spend(1) is not None
    assert budget.spend(2) is None  # the overall credit is still there for another


def test_credits_come_back_no_higher_than_the_purse() -> None:
    clock = FakeClock()
    budget = Budget("live", per_key=2, overall=10, window=10.0, clock=clock)
    clock.advance(3600)
    assert [budget.spend(1) is None for _ in range(3)] == [True, True, False]


@pytest.mark.parametrize("kwargs", [{"per_key": 0}, {"overall": 0}, {"window": 0.0},
                                    {"window": float("nan")}])  # fmt: skip
def test_a_budget_of_nothing_is_a_configuration_error(kwargs: dict[str, float]) -> None:
    given: dict[str, float] = {"per_key": 1, "overall": 1, "window": 1.0} | kwargs
    with pytest.raises(ValueError):
        Budget("x", **given)  # type: ignore[arg-type]
