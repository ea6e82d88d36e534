"""Fair shares (issue 53): no member and no server takes more than its share of an
overall budget (bot/core/budgets.py) or of an engine pool (bot/core/engine_gate.py),
and a member asking a hint before each of their own moves is never refused
(bot/core/kept_hints.py). Clocks are injected and never moved where the issue's member
plays fast; computations are held by the test and counted, never timed."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from test_core_engine_gate import wait_for
from test_core_reviews_kept import FOUR_BY_FOUR, HeldRunner, within

from bot.core.budgets import Budget, Spent, place_of
from bot.core.engine_advice import EngineHint
from bot.core.engine_gate import BUSY, EngineGate
from bot.core.models import Game, GameBoard
from bot.core.records import RecordsService
from bot.core.refusals import Refusal

from core_harness import BOT, CHANNEL, GUILD, Core, FakeClock, play, refusal_key

OTHER_GUILD = 2
ALICE, BOB = 101, 102


def reviews(clock: FakeClock) -> Budget:
    """The reviews' budget with its default figures: 6 a member, 120 overall, a minute;
    a server's share a quarter of it (30)."""
    return Budget("reviews", per_key=6, overall=120, window=60.0, clock=clock)


def test_twenty_members_of_one_server_spend_its_share_and_another_servers_member_is_served():
    budget = reviews(FakeClock())
    here = place_of(GUILD, CHANNEL)
    answers = [budget.spend(member, here) for member in range(1000, 1020) for _ in range(6)]
    assert answers.count(None) == 30  # the server's share, not the 120 of everyone
    assert {spent.whose for spent in answers if spent is not None} == {"place"}
    assert budget.spend(2000, place_of(OTHER_GUILD, CHANNEL + 1)) is None
    assert budget.spend(2001, place_of(None, 77)) is None  # a DM counts as its channel


def test_once_busy_servers_spend_down_to_the_reserve_only_quiet_ones_are_served():
    clock = FakeClock()
    budget = reviews(clock)
    for server in (1, 2, 3):  # three servers of accounts, each spending its whole share
        for member in range(5):
            for _ in range(6):
                assert budget.spend((server, member), ("server", server)) is None
    # 30 of 120 left, the reserve: a fourth server is served while it is quiet (it has
    # spent no more than one member's worth), then refused
    fourth = ("server", 4)
    assert [budget.spend((4, m), fourth) for m in (0, 0, 0, 0, 0, 0, 1)] == [None] * 7
    refused = budget.spend((4, 1), fourth)
    # the wait: until the server is quiet again (a credit of its 30 a minute: 2 s),
    # sooner than until the overall is past its reserve (8 of 120 a minute: 4 s)
    assert refused == Spent("overall", pytest.approx(2.0))
    for server in (1, 2, 3):  # the busy ones stay refused, at the overall
        assert budget.spend((server, 9), ("server", server)) is not None
    assert budget.spend(5000, ("server", 5)) is None  # a quiet server's member: served
    clock.advance(2.0)
    assert budget.spend((4, 1), fourth) is None


async def test_a_server_holding_the_pool_gives_way_to_another_servers_request() -> None:
    gate = EngineGate({"review": 4, "hint": 1})
    mine, theirs, third = ("server", 1), ("server", 2), ("server", 3)
    held = [gate.enter("review", mine) for _ in range(4)]
    assert [turn.state for turn in held] == ["admitted"] * 4
    later = [gate.enter("review", mine) for _ in range(3)]  # the line: 3 of 4
    other = gate.enter("review", theirs)
    waits = [asyncio.ensure_future(turn.wait()) for turn in (*later, other)]
    # the line is full: the next of the busiest server takes the place of its own newest
    # no more (refused at once), while a third server's takes it (that newest is refused)
    with pytest.raises(Refusal) as info:
        gate.enter("review", mine)
    assert info.value.key == BUSY
    newcomer = gate.enter("review", third)
    assert later[2].state == "refused" and newcomer.state == "waiting"
    assert await refusal_key(within(waits[2])) == BUSY
    # a place comes free: the server holding the fewest gets it, before the older waiters
    held[0].close()
    assert other.state == "admitted" and later[0].state == "waiting"
    held[1].close()
    assert newcomer.state == "admitted" and later[0].state == "waiting"
    held[2].close()
    assert later[0].state == "admitted"
    await within(asyncio.gather(waits[0], waits[3]))
    assert gate.refused[BUSY] == 2 and gate.waiting("review") == 1


async def test_a_patient_hint_waits_past_a_full_line_and_is_never_displaced() -> None:
    gate = EngineGate({"review": 1, "hint": 1})
    running = gate.enter("hint", ("server", 1))
    patient = [gate.enter("hint", ("server", 1), patient=True) for _ in range(3)]
    assert gate.waiting("hint") == 3  # past the line's bound of 1
    with pytest.raises(Refusal) as info:  # an impatient one is refused: none to displace
        gate.enter("hint", ("server", 2))
    assert info.value.key == BUSY
    running.close()
    assert patient[0].state == "admitted"
    assert [turn.state for turn in patient[1:]] == ["waiting", "waiting"]


def four_by_four_in(guild: int, channel: int) -> Callable[[Core, int, int], Any]:
    async def make(core: Core, x: int, o: int) -> int:
        challenge = await core.lobby.challenge(guild_id=guild, channel_id=channel, user_id=x,
                                               opponent_id=o, first="me", size=4)  # fmt: skip
        game_id = (await core.lobby.accept(challenge.id, o, message_id=None)).game.id
        await play(core, game_id, *(((x, c) if u == ALICE else (o, c)) for u, c in FOUR_BY_FOUR))
        return game_id

    return make


async def test_four_reviews_of_one_server_in_flight_and_another_servers_member_is_answered(
    make_core: Callable[..., Any],
) -> None:
    """The reviews' pool (TTT_REVIEW_QUEUE=4) held by four accounts of one server, two
    more of them waiting: a member of another server is not refused, and is answered
    next."""
    core: Core = await make_core()
    gate = EngineGate({"review": 4, "hint": 1})
    runner = HeldRunner(held=4)
    records = RecordsService(core.repo, BOT, runner, gate)
    ours = [await four_by_four_in(GUILD, CHANNEL + i)(core, ALICE, BOB) for i in range(6)]
    theirs = await four_by_four_in(OTHER_GUILD, CHANNEL + 99)(core, ALICE, BOB)
    asks = [asyncio.ensure_future(records.review(GUILD, 300 + i, game))
            for i, game in enumerate(ours)]  # fmt: skip
    await runner.called(4)
    await within(wait_for(lambda: gate.waiting("review") == 2))
    other = asyncio.ensure_future(records.review(OTHER_GUILD, 400, theirs))
    await within(wait_for(lambda: gate.waiting("review") == 3))
    assert gate.refused[BUSY] == 0 and runner.calls == 4
    runner.held = 0  # those admitted from now on are worked out at once
    runner.release.set()
    review = await within(other)
    assert review.game.id == theirs
    done = await within(asyncio.gather(*asks))
    assert [r.game.id for r in done] == ours and gate.refused[BUSY] == 0
    assert gate.admitted["review"] == 0 and runner.calls == 7


async def quick_engine_hint(board: GameBoard) -> EngineHint:
    """The hints' worker as the test's: a legal square at once (the rule under test is
    who is charged, not what the engine finds)."""
    return EngineHint(board.to_move, board.legal_moves()[0], 0.5)


class Charged(Exception):
    pass


async def test_a_hint_before_each_own_move_of_a_fast_ultimate_game_is_never_refused(
    make_core: Callable[..., Any],
) -> None:
    """The issue's member: a hint before each of their moves of an ultimate game against
    easy, the clock never moving. A budget of two a member and three overall is never
    touched by them; asking beyond (the same ply again, a ply past, another's game) is
    charged, and refused once spent."""
    core: Core = await make_core(advise=quick_engine_hint)
    budget = Budget("hints", per_key=2, overall=3, per_place=3, window=60.0, clock=FakeClock())
    here = place_of(GUILD, CHANNEL)
    charged: list[int] = []

    def charge(member: int) -> Callable[[], None]:
        def spend() -> None:
            charged.append(member)
            if budget.spend(member, here) is not None:
                raise Charged

        return spend

    async def ultimate(channel: int) -> Game:
        started = await core.lobby.start_bot_game(
            guild_id=GUILD, channel_id=channel, user_id=ALICE, difficulty="easy", first="me",
            variant="ultimate",
        )  # fmt: skip
        return started.game

    game = await ultimate(CHANNEL)
    hints = 0
    while game.running:
        _, hint = await core.games.hint(game.id, game.ply, ALICE, charge=charge(ALICE))
        hints += 1
        assert isinstance(hint, EngineHint)
        await core.games.play_turn(game.id, game.ply, hint.cell, ALICE)
        found = await core.repo.get_game(game.id)
        assert found is not None
        game = found
    assert hints >= 10 and hints == (game.ply + 1) // 2  # one before each of her moves
    assert charged == [] and budget.refused == 0

    # beyond: the same ply again (the kept hint: no engine work, but a credit)
    gid = (await ultimate(CHANNEL + 1)).id
    first = await core.games.hint(gid, 0, ALICE, charge=charge(ALICE))
    assert await core.games.hint(gid, 0, ALICE, charge=charge(ALICE)) == first
    assert charged == [ALICE]
    # a ply not in front of her: a credit, then the refusal that says why
    assert await refusal_key(core.games.hint(gid, 5, ALICE, charge=charge(ALICE))) == "move.stale"
    # another member's ask of her game: his credit (everyone's last), then "not yours"
    key = await refusal_key(core.games.hint(gid, 0, BOB, charge=charge(BOB)))
    assert key == "hint.not_player" and charged == [ALICE, ALICE, BOB]
    with pytest.raises(Charged):  # hers are spent: refused before anything else
        await core.games.hint(gid, 0, ALICE, charge=charge(ALICE))
    # and the position in front of her in a new game is still free
    other = await ultimate(CHANNEL + 2)
    await core.games.hint(other.id, 0, ALICE, charge=charge(ALICE))
    assert charged == [ALICE, ALICE, BOB, ALICE] and budget.refused == 1
