"""Forget-me and puzzles, on SQLite and PostgreSQL: only "tried before" stays, as a keyed
hash of the member and the puzzle, so a puzzle tried before forget-me is no rated first
attempt afterwards, and the stored rows name neither the member nor the puzzle."""

from __future__ import annotations

import hashlib
import hmac
import random
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

import asyncpg

from bot.core.puzzles.models import EXPIRY
from bot.storage.forgotten_queries import SECRET_KEY
from engine.puzzles import by_id

from core_harness import GUILD, Core
from puzzle_harness import ALICE, BOB, day_clock, solve_daily

T = TypeVar("T")


class Nearest(random.Random):
    """Training's rng, made to take the nearest puzzle every time (the list is sorted by
    distance from the member's rating), so two members at one rating get the same."""

    def choice(self, seq: Sequence[T]) -> T:
        return seq[0]


async def stored(database: Path | str) -> tuple[list[str], str | None]:
    """The forgotten table's rows and the installation's secret, read as an operator
    would (not through the repository)."""
    if isinstance(database, Path):
        conn = sqlite3.connect(database)
        try:
            rows = [r[0] for r in conn.execute("SELECT tried FROM puzzle_forgotten")]
            secret = conn.execute("SELECT value FROM meta WHERE key = ?", (SECRET_KEY,))
            found = secret.fetchone()
            return rows, None if found is None else found[0]
        finally:
            conn.close()
    pg: Any = await asyncpg.connect(database)
    try:
        rows = [r["tried"] for r in await pg.fetch("SELECT tried FROM puzzle_forgotten")]
        return rows, await pg.fetchval("SELECT value FROM meta WHERE key = $1", SECRET_KEY)
    finally:
        await pg.close()


async def test_a_puzzle_tried_before_forget_me_is_unrated_after_it(
    make_core: Any, database: Path | str
) -> None:
    clock = day_clock(2)
    core: Core = await make_core(clock=clock)
    core.puzzles.rng = Nearest()
    training = (await core.puzzles.open(ALICE, GUILD, "training", "4x4")).attempt
    assert training.rated
    clock.advance(EXPIRY)  # expired: the member's rating moves, the puzzle's does not
    await solve_daily(core, ALICE)  # daily #2, rated
    assert await stored(database) == ([], None)  # no secret made before anyone forgets
    await core.records.forget(ALICE, ALICE, confirmed=True)
    assert await core.puzzles.player(ALICE) is None
    rows, secret = await stored(database)
    assert secret is not None and len(bytes.fromhex(secret)) == 32
    today = (await core.puzzles.open(ALICE, GUILD)).attempt
    assert today.daily == 2 and not today.rated  # solved before forget-me: no first now
    again = (await core.puzzles.open(BOB, GUILD, "training", "4x4")).attempt
    assert again.puzzle_id == training.puzzle_id and again.rated  # Bob's first: rated
    await core.records.forget(BOB, BOB, confirmed=True)
    puzzle = by_id(today.puzzle_id)
    wrong = next(m for m in puzzle.board().legal_moves() if m != puzzle.first)
    assert (await core.puzzles.move(ALICE, today.id, 0, wrong)).attempt.over
    mine = (await core.puzzles.open(ALICE, GUILD, "training", "4x4")).attempt
    assert mine.puzzle_id == training.puzzle_id and not mine.rated  # tried before: unrated
    assert not await core.repo.tried_before_forgetting(ALICE, "4x4-0123456789")
    # What is stored: one keyed hash per (member, puzzle), naming neither; hashing
    # without the secret finds nothing.
    rows, _ = await stored(database)
    key = bytes.fromhex(secret)
    pairs = [(ALICE, training.puzzle_id), (ALICE, today.puzzle_id), (BOB, training.puzzle_id)]
    expected = {hmac.new(key, f"{u}:{p}".encode(), hashlib.sha256).hexdigest() for u, p in pairs}
    assert sorted(rows) == sorted(expected) and len(rows) == 3
    plain = {hashlib.sha256(f"{u}:{p}".encode()).hexdigest() for u, p in pairs}
    assert not plain & set(rows)
    # each row is a bare digest: nothing else to name anyone by (a digest holds "101",
    # Alice's id, by chance in about one run of ten: no test of that)
    assert all(len(r) == 64 and set(r) <= set("0123456789abcdef") for r in rows)
