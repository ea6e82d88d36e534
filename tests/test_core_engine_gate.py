"""Engine work on request is bounded: a member has one hint or review in flight at a time
(a second is refused at once, ``engine.busy_member``, while another member's goes
through), and each worker takes at most its bound at once; past it a review waits its
turn in a line of the same bound (past both, ``engine.busy`` at once) and a hint always
waits its turn. Computations are held by the test (an event it sets) and counted, never
timed. The fairness between servers: tests/test_core_fair_shares.py."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from test_core_hints import bot_game
from test_core_reviews_kept import HeldRunner, four_by_four, within

from bot.core.engine_advice import EngineHint
from bot.core.engine_gate import BUSY, BUSY_MEMBER, EngineGate
from bot.core.hints import Hint
from bot.core.models import GameBoard
from bot.core.records import RecordsService
from bot.core.refusals import Refusal
from bot.core.variants import advise_here

from core_harness import BOT, CHANNEL, GUILD, Core, refusal_key

ALICE, BOB, CAROL, DAVE = 101, 102, 103, 104


class HeldAdvisor:
    """Hints worked out here, as the hints' worker would; the first ``held`` held until
    :attr:`release` is set. Counts its calls."""

    def __init__(self, held: int = 1) -> None:
        self.calls = 0
        self.held = held
        self.started = asyncio.Event()
        self.release = asyncio.Event()

    async def __call__(self, board: GameBoard) -> Hint | EngineHint:
        self.calls += 1
        self.started.set()
        if self.calls <= self.held:
            await self.release.wait()
        return await advise_here(board)


async def setup(
    make_core: Callable[..., Any], bounds: dict[str, int], held_reviews: int = 1,
    held_hints: int = 1,
) -> tuple[Core, RecordsService, HeldRunner, HeldAdvisor]:  # fmt: skip
    """A core whose hints and reviews share one gate with ``bounds``, as the bot's do."""
    gate = EngineGate(bounds)  # type: ignore[arg-type]
    advisor = HeldAdvisor(held_hints)
    core: Core = await make_core(advise=advisor)
    core.games.gate = gate
    runner = HeldRunner(held_reviews)
    return core, RecordsService(core.repo, BOT, runner, gate), runner, advisor


async def test_a_members_second_request_is_refused_at_once_while_anothers_goes_through(
    make_core: Callable[..., Any],
) -> None:
    core, records, runner, advisor = await setup(make_core, {"review": 4, "hint": 4},
                                                 held_hints=0)  # fmt: skip
    first = await four_by_four(core, ALICE, BOB, channel=CHANNEL)
    second = await four_by_four(core, ALICE, BOB, channel=CHANNEL + 1)
    hinted = await bot_game(core, ALICE, size=4, channel=CHANNEL + 2)
    held = asyncio.ensure_future(records.review(GUILD, ALICE, first))
    await within(runner.started.wait())
    # Alice's review is being worked out: her next review, and her hint, are refused at
    # once (nothing else reaches the engine; the first is still held)
    assert await refusal_key(records.review(GUILD, ALICE, second)) == BUSY_MEMBER
    assert await refusal_key(records.review(GUILD, ALICE, first)) == BUSY_MEMBER
    searching = []

    async def said() -> None:
        searching.append(True)

    with pytest.raises(Refusal) as info:
        await core.games.hint(hinted, 0, ALICE, searching=said)
    assert info.value.key == BUSY_MEMBER and searching == []  # refused before "thinking"
    assert (runner.calls, advisor.calls, held.done()) == (1, 0, False)
    assert not (await core.repo.get_game(hinted)).hinted  # type: ignore[union-attr]
    # Bob's go through meanwhile: the other game's review, and a hint of his own
    runner.held = 0
    review = await records.review(GUILD, BOB, second)
    assert review.game.id == second and runner.calls == 2
    bobs = await bot_game(core, BOB, size=4, channel=CHANNEL + 3)
    _, hint = await core.games.hint(bobs, 0, BOB)
    assert hint.mark == "X" and advisor.calls == 1
    assert records.reviews.gate.refused == {BUSY_MEMBER: 3, BUSY: 0}
    # once hers is answered, Alice may ask again
    runner.release.set()
    assert (await held).game.id == first
    _, hint = await core.games.hint(hinted, 0, ALICE)
    assert advisor.calls == 2 and records.reviews.gate.admitted == {"hint": 0, "review": 0}


async def test_past_the_reviews_bound_a_review_waits_its_turn_and_past_the_line_is_busy(
    make_core: Callable[..., Any],
) -> None:
    core, records, runner, _ = await setup(make_core, {"review": 1, "hint": 1}, held_reviews=2)
    games = [await four_by_four(core, ALICE, BOB, channel=CHANNEL + i) for i in range(3)]
    alices = asyncio.ensure_future(records.review(GUILD, ALICE, games[0]))
    await runner.called(1)
    bobs = asyncio.ensure_future(records.review(GUILD, BOB, games[1]))  # waits its turn
    gate = records.reviews.gate
    await within(wait_for(lambda: gate.waiting("review") == 1))
    # the line is as long as the pool, and this server has all of both: busy at once
    assert await refusal_key(records.review(GUILD, CAROL, games[2])) == BUSY
    assert runner.calls == 1 and not alices.done() and not bobs.done()
    # a review already being worked out takes no more room: Dave waits for Alice's
    joined = asyncio.ensure_future(records.review(GUILD, DAVE, games[0]))
    runner.release.set()
    done = await asyncio.gather(alices, joined, bobs)
    assert done[1] == done[0] and done[2].game.id == games[1] and runner.calls == 2
    # room again: Carol's is worked out now
    assert (await records.review(GUILD, CAROL, games[2])).game.id == games[2]
    assert runner.calls == 3 and gate.refused[BUSY] == 1
    assert gate.admitted == {"hint": 0, "review": 0} and gate.waiting("review") == 0


async def wait_for(ready: Callable[[], bool]) -> None:
    """Until ``ready()`` (the loop turned between checks; :func:`within` bounds it)."""
    while not ready():
        await asyncio.sleep(0)


async def test_past_the_hints_bound_a_hint_waits_its_turn_and_is_never_refused(
    make_core: Callable[..., Any],
) -> None:
    core, _, _, advisor = await setup(make_core, {"review": 1, "hint": 1})
    alices = await bot_game(core, ALICE, size=4, channel=CHANNEL)
    bobs = await bot_game(core, BOB, size=4, channel=CHANNEL + 1)
    held = asyncio.ensure_future(core.games.hint(alices, 0, ALICE))
    await within(advisor.started.wait())
    searching = asyncio.Event()

    async def said() -> None:
        searching.set()

    waiting = asyncio.ensure_future(core.games.hint(bobs, 0, BOB, searching=said))
    await within(searching.wait())  # told "thinking" before waiting his turn
    assert core.games.gate.waiting("hint") == 1 and advisor.calls == 1 and not waiting.done()
    advisor.release.set()
    await held
    _, hint = await within(waiting)
    assert advisor.calls == 2 and hint.mark == "X" and core.games.gate.refused[BUSY] == 0


async def test_3x3_hints_and_reviews_are_never_refused(make_core: Callable[..., Any]) -> None:
    """On the spot, in microseconds: no engine worker, nothing to bound."""
    core, records, _, advisor = await setup(make_core, {"review": 1, "hint": 1})
    alices = await bot_game(core, ALICE, size=4, channel=CHANNEL)
    held = asyncio.ensure_future(core.games.hint(alices, 0, ALICE))
    await within(advisor.started.wait())  # Alice has a hint in flight, and the hints are full
    small = await bot_game(core, ALICE, size=3, channel=CHANNEL + 1)
    _, hint = await core.games.hint(small, 0, ALICE)
    assert hint.value == 0 and advisor.calls == 1
    await core.games.resign(ALICE, game_id=small)
    assert len((await records.review(GUILD, ALICE, small)).verdicts) == 0
    advisor.release.set()
    await held


async def test_the_gate_gives_back_what_it_took_and_checks_its_bounds() -> None:
    gate = EngineGate({"review": 1, "hint": 2})
    with pytest.raises(RuntimeError):
        async with gate.admit("hint", ALICE):
            assert gate.busy(ALICE) and gate.admitted["hint"] == 1
            raise RuntimeError("the worker died")
    assert not gate.busy(ALICE) and gate.admitted["hint"] == 0
    async with gate.admit("review", ALICE, "here"):
        with pytest.raises(Refusal) as info:
            async with gate.admit("hint", ALICE):
                pass
        assert info.value.key == BUSY_MEMBER and gate.admitted["hint"] == 0
        waiting = gate.enter("review", "here")  # the line: as long as the pool
        with pytest.raises(Refusal) as info:
            async with gate.admit("review", BOB, "here"):
                pass
        assert info.value.key == BUSY and not gate.busy(BOB)  # nothing held for Bob
        waiting.close()  # a turn that leaves the line frees its place there
        assert gate.waiting("review") == 0
    assert gate.refused == {BUSY_MEMBER: 1, BUSY: 1}
    assert gate.admitted == {"hint": 0, "review": 0}
    for bounds in ({"review": 0, "hint": 1}, {"review": 1}):
        with pytest.raises(ValueError):
            EngineGate(bounds)  # type: ignore[arg-type]
