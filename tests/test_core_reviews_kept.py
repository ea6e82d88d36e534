"""A finished game's review is worked out once and kept, on SQLite and PostgreSQL: twelve
members asking at once share one computation and get the same review; a later ask, and
another process's, reads it without computing; 3×3 reviews are worked out on the spot and
not kept; forget-me takes the reviews with the games. The engine's work is counted and
held by the test (a runner that waits for an event), never timed."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from bot.core import review_codec
from bot.core.engine_advice import engine_review
from bot.core.records import RecordsService
from bot.core.review import MoveVerdict
from bot.core.variants import Review
from engine.ultimate.review import ReviewedMove

from core_harness import BOT, CHANNEL, GUILD, Core, member_game, open_repo, play
from discord_emulator.interactions import WAIT_CEILING

T = TypeVar("T")

ALICE, BOB = 101, 102
MEMBERS = tuple(range(201, 213))
"""Twelve members asking for one review at once."""
FOUR_BY_FOUR = ((ALICE, 0), (BOB, 5), (ALICE, 1), (BOB, 6), (ALICE, 2), (BOB, 10), (ALICE, 3))
"""A 4×4 game X wins along the top row: exact search over 7 positions, a real computation
of well under a second."""


class HeldRunner:
    """A reviews' runner that counts its calls and holds the first ``held`` of them until
    :attr:`release` is set; then runs the work here, as the worker would."""

    def __init__(self, held: int = 1) -> None:
        self.calls = 0
        self.held = held
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self._called = asyncio.Condition()

    async def called(self, times: int) -> None:
        """Until the runner was called ``times`` times."""
        async with self._called:
            await within(self._called.wait_for(lambda: self.calls >= times))

    async def __call__(self, fn: Callable[..., Any], /, *args: Any) -> Any:
        self.calls += 1
        self.started.set()
        async with self._called:
            self._called.notify_all()
        if self.calls <= self.held:
            await self.release.wait()
        if fn is engine_review:  # repeatable: playouts, not the clock
            return engine_review(*args, iterations=100)
        return fn(*args)


async def within(step: Awaitable[T]) -> T:
    """``step``'s result; a test that waits for what never comes fails, and does not hang
    (a safety net: the test waits for the state it checks, never for a time)."""
    return await asyncio.wait_for(step, WAIT_CEILING)


def refusing(fn: Callable[..., Any], /, *args: Any) -> Any:
    raise AssertionError(f"worked out again: {fn.__name__}")


async def four_by_four(core: Core, x: int = ALICE, o: int = BOB, channel: int = CHANNEL) -> int:
    challenge = await core.lobby.challenge(guild_id=GUILD, channel_id=channel, user_id=x,
                                           opponent_id=o, first="me", size=4)  # fmt: skip
    game_id = (await core.lobby.accept(challenge.id, o, message_id=None)).game.id
    await play(core, game_id, *(((x, c) if u == ALICE else (o, c)) for u, c in FOUR_BY_FOUR))
    return game_id


async def test_twelve_asks_at_once_are_worked_out_once_and_read_back_by_another_process(
    core: Core, database: Path | str
) -> None:
    game_id = await four_by_four(core)
    runner = HeldRunner()
    records = RecordsService(core.repo, BOT, runner)
    game = await records.review_target(GUILD, MEMBERS[0], game_id)
    arrived = 0
    all_waiting = asyncio.Event()

    async def waiting() -> None:
        nonlocal arrived
        arrived += 1
        if arrived == len(MEMBERS):
            all_waiting.set()

    asks = [asyncio.ensure_future(records.analyze(game, member, waiting=waiting))
            for member in MEMBERS]  # fmt: skip
    await within(all_waiting.wait())  # all twelve wait for the engine, which holds the one call
    assert runner.calls == 1 and not any(ask.done() for ask in asks)
    assert await core.repo.review_of(game_id) is None  # not kept before it is worked out
    runner.release.set()
    reviews = await asyncio.gather(*asks)
    assert runner.calls == 1 and records.reviews.computed == 1
    assert all(review == reviews[0] for review in reviews)
    assert [v.cell for v in reviews[0].verdicts] == [c for _, c in FOUR_BY_FOUR]

    # kept as the core wrote it
    body = await core.repo.review_of(game_id)
    assert body is not None and review_codec.decode(body, game) == reviews[0]
    # asked again here: no work
    assert await records.review(GUILD, MEMBERS[0], game_id) == reviews[0]
    assert runner.calls == 1
    # another process (on SQLite, which one process owns, a service of its own on the
    # same file): read from the database, never worked out
    other_repo = core.repo if isinstance(database, Path) else open_repo(database)
    if other_repo is not core.repo:
        await other_repo.open()
    try:
        other = RecordsService(other_repo, BOT, refusing)  # type: ignore[arg-type]
        assert await other.review(GUILD, BOB, game_id) == reviews[0]
        assert other.reviews.computed == 0
    finally:
        if other_repo is not core.repo:
            await other_repo.close()


async def test_a_3x3_review_is_worked_out_on_the_spot_and_not_kept(core: Core) -> None:
    game_id = await member_game(core, ALICE, BOB)
    await play(core, game_id, (ALICE, 0), (BOB, 3), (ALICE, 1), (BOB, 4), (ALICE, 2))
    records = RecordsService(core.repo, BOT, refusing)  # type: ignore[arg-type]
    review = await records.review(GUILD, BOB, game_id)
    assert len(review.verdicts) == 5 and records.reviews.computed == 0
    assert await core.repo.review_of(game_id) is None


async def test_forget_me_takes_the_reviews_of_the_members_games(core: Core) -> None:
    forgotten = await four_by_four(core, ALICE, BOB)
    kept = await four_by_four(core, BOB, 103)
    records = RecordsService(core.repo, BOT, HeldRunner(held=0))
    await records.review(GUILD, ALICE, forgotten)
    await records.review(GUILD, BOB, kept)
    assert await core.repo.review_of(forgotten) is not None
    assert await records.forget(ALICE, ALICE, confirmed=True) == 1
    assert await core.repo.review_of(forgotten) is None
    assert await core.repo.review_of(kept) is not None  # Bob's other game keeps its review


async def test_a_review_finished_after_its_game_was_forgotten_is_not_kept(core: Core) -> None:
    game_id = await four_by_four(core)
    runner = HeldRunner()
    records = RecordsService(core.repo, BOT, runner)
    asked = asyncio.ensure_future(records.review(GUILD, BOB, game_id))
    await within(runner.started.wait())
    assert await records.forget(ALICE, ALICE, confirmed=True) == 1
    runner.release.set()
    assert (await asked).game.id == game_id  # the member who asked still gets it
    assert await core.repo.review_of(game_id) is None  # nothing kept for a game now gone
    assert not await core.repo.keep_review(game_id, "{}", 0.0)


async def test_a_kept_body_of_another_shape_is_worked_out_again(core: Core) -> None:
    game_id = await four_by_four(core)
    assert await core.repo.keep_review(game_id, '{"format": 99}', 0.0)
    runner = HeldRunner(held=0)
    records = RecordsService(core.repo, BOT, runner)
    review = await records.review(GUILD, BOB, game_id)
    assert runner.calls == 1
    body = await core.repo.review_of(game_id)
    assert body is not None and review_codec.decode(body, review.game) == review


def test_every_kind_of_review_comes_back_from_its_body_as_it_went_in() -> None:
    from bot.core import rules

    game = rules.new_game(guild_id=GUILD, channel_id=CHANNEL, size=5, now=0.0,
                          player_x=ALICE, player_o=BOB)  # fmt: skip
    five = Review(game, [MoveVerdict(1, "X", 12, 0, 0, ()),
                         MoveVerdict(2, "O", 0, 0, -1, (6, 7, 8), complete=False)])  # fmt: skip
    ultimate = Review(game, [], [ReviewedMove(3, "O", 40, 41, 0.1 + 0.2, 1 / 3),
                                 ReviewedMove(7, "X", 0, 80, 1.0, 0.0)])  # fmt: skip
    for review in (five, ultimate, Review(game, [], [])):
        assert review_codec.decode(review_codec.encode(review), game) == review
    for junk in (
        "[]",
        '{"format": 1}',
        '{"format": 1, "verdicts": [{}], "judged": null}',
        '{"format": 1, "verdicts": [], "judged": [{"ply": true}]}',
        "[" * 5000,
    ):
        with pytest.raises(ValueError):
            review_codec.decode(junk, game)
