"""The limits of correspondence games hold when two accepts race: each starts a game for
the same challenger, in two channels, through two processes (PostgreSQL: two pools on
one database) or two services on one store (SQLite: one process per file). The first
accept is held inside its unit of work, its counts read and its game not yet stored,
until the second has either run to its end or waits for the first's locks."""

from __future__ import annotations

import asyncio
import contextlib
import copy
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import pytest

from bot.core.lobby import Lobby
from bot.core.policy import ServerPolicy
from bot.core.refusals import Refusal

from bot_harness import eventually
from core_harness import CHANNEL, GUILD, Core
from discord_emulator.interactions import WAIT_CEILING

ALICE, BOB, CAROL, DAVE = 101, 102, 103, 104
LIMIT = 2


class HeldAccept:
    """A repository whose units of work stop at the accept's insert until released:
    the start rules are read (under whatever locks the accept took), nothing stored yet."""

    def __init__(self, repo: Any) -> None:
        self._repo = repo
        self.reached = asyncio.Event()
        self.release = asyncio.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._repo, name)

    @contextlib.asynccontextmanager
    async def atomic(self) -> AsyncIterator[Any]:
        async with self._repo.atomic() as tx:
            yield _HeldTransaction(tx, self)


class _HeldTransaction:
    def __init__(self, tx: Any, held: HeldAccept) -> None:
        self._tx = tx
        self._held = held

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tx, name)

    async def accept_challenge(self, challenge: Any, game: Any) -> Any:
        self._held.reached.set()
        await self._held.release.wait()
        return await self._tx.accept_challenge(challenge, game)


class Asking:
    """A repository that notes when its service first asks the database anything."""

    def __init__(self, repo: Any) -> None:
        self._repo = repo
        self.asked = False

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._repo, name)
        if callable(value):
            self.asked = True
        return value


async def advisory_waiters(dsn: str) -> int:
    """Sessions of this database waiting for an advisory lock."""
    conn = await asyncpg.connect(dsn)
    try:
        return int(await conn.fetchval(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
        ))  # fmt: skip
    finally:
        await conn.close()


def outcome_of(result: object) -> str:
    if isinstance(result, Refusal):
        return result.key
    if isinstance(result, BaseException):
        return repr(result)
    return "done"


@pytest.mark.parametrize(
    ("limit", "refusal"),
    [("process", "start.correspondence_limit"), ("server", "start.correspondence_server_limit")],
)
async def test_two_accepts_at_once_start_no_game_past_the_challengers_limit(
    make_core: Callable[..., Any], database: Path | str, limit: str, refusal: str
) -> None:
    policy = ServerPolicy(turn_timeout=30, challenge_timeout=60,
                          correspondence_games=LIMIT if limit == "server" else None)  # fmt: skip
    first: Core = await make_core(policy)
    postgres = isinstance(database, str)
    if postgres:  # another process: a pool of its own on the same database
        second: Lobby = (await make_core(policy, clock=first.clock)).lobby
    else:  # one process per SQLite file: another service on the same store
        second = copy.copy(first.lobby)
    for lobby in (first.lobby, second):
        lobby.correspondence_limit = LIMIT if limit == "process" else 20

    def correspondence(opponent: int, channel: int) -> Any:
        return first.lobby.challenge(guild_id=GUILD, channel_id=channel, user_id=ALICE,
                                     opponent_id=opponent, first="me", days_per_move=3)  # fmt: skip

    running = await correspondence(DAVE, CHANNEL)
    await first.lobby.accept(running.id, DAVE, None)  # ALICE plays one: one short of LIMIT
    to_bob = await correspondence(BOB, CHANNEL + 1)
    to_carol = await correspondence(CAROL, CHANNEL + 2)

    held = HeldAccept(first.lobby.repo)
    first.lobby.repo = held  # type: ignore[assignment]
    asking = Asking(second.repo)
    second.repo = asking  # type: ignore[assignment]
    bob = asyncio.ensure_future(first.lobby.accept(to_bob.id, BOB, None))
    await asyncio.wait_for(held.reached.wait(), WAIT_CEILING)  # BOB's counts read, not stored
    carol = asyncio.ensure_future(second.accept(to_carol.id, CAROL, None))

    async def carol_ran_or_waits() -> bool:
        if carol.done():
            return True
        if postgres:  # waiting for a lock BOB's accept holds
            return await advisory_waiters(database) > 0  # type: ignore[arg-type]
        return asking.asked  # SQLite: any question waits for the unit of work to end

    await eventually(carol_ran_or_waits, "CAROL's accept ran, or waits for BOB's")
    held.release.set()
    results = await asyncio.gather(bob, carol, return_exceptions=True)
    assert [outcome_of(r) for r in results] == ["done", refusal]
    assert await first.repo.correspondence_games_of(ALICE) == LIMIT
    stored = await first.repo.get_challenge(to_carol.id)
    assert stored is not None and stored.pending  # refused: it still waits for an answer
