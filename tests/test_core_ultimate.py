"""Ultimate tic-tac-toe in the core, on both backends: a game says which game it plays,
is stored and read back as one, keeps the forced board, and counts in records of its
own (ratings and records against the bot apart from the classic boards')."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import asyncpg
import pytest

from bot.core.models import Ending
from bot.core.refusals import Refusal
from bot.storage import MIGRATIONS
from bot.storage.postgres_migrations import MIGRATIONS as PG_MIGRATIONS
from engine import Board, UltimateBoard

from core_harness import CHANNEL, GUILD, Core, open_repo, play, refusal_key

ALICE, BOB = 101, 102

X_WINS = (4, 42, 58, 38, 18, 1, 15, 56, 24, 54, 0, 2, 21, 31, 41, 45, 8, 74, 13, 40, 11)
"""A legal game (cells numbered board by board) that X wins across the top row of the
big grid after 21 moves."""


async def ultimate_member_game(core: Core, x: int, o: int) -> int:
    challenge = await core.lobby.challenge(
        guild_id=GUILD, channel_id=CHANNEL, user_id=x, opponent_id=o, first="me",
        variant="ultimate",
    )  # fmt: skip
    assert challenge.variant == "ultimate" and challenge.size == 9
    update = await core.lobby.accept(challenge.id, o, message_id=None)
    return update.game.id


async def test_a_bot_game_plays_the_forced_board_and_reads_back_as_ultimate(core: Core) -> None:
    update = await core.lobby.start_bot_game(
        guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, difficulty="easy", first="me",
        variant="ultimate",
    )  # fmt: skip
    game = update.game
    assert (game.variant, game.size, game.k) == ("ultimate", 9, 3)
    assert isinstance(game.board, UltimateBoard) and game.board.move_count == 0
    # the centre square of the centre board sends the bot to the centre board
    moved = (await core.games.play_turn(game.id, 0, 40, ALICE)).game
    assert moved.ply == 2 and moved.moves[0] == 40 and moved.moves[1] // 9 == 4
    stored = await core.repo.get_game(game.id)
    assert stored is not None and stored.variant == "ultimate"
    assert stored.board == moved.board and isinstance(stored.board, UltimateBoard)
    forced = stored.board.forced_board
    assert forced == moved.moves[1] % 9
    outside = next(c for c in range(81) if c // 9 != forced and stored.board[c] is None)
    key = await refusal_key(core.games.play_turn(game.id, 2, outside, ALICE))
    assert key.startswith("move.")
    assert await core.repo.get_game(game.id) == stored  # nothing changed


async def test_a_won_ultimate_game_is_rated_apart_from_the_classic_boards(core: Core) -> None:
    game_id = await ultimate_member_game(core, ALICE, BOB)
    await play(core, game_id, *((ALICE, c) if i % 2 == 0 else (BOB, c)
                                for i, c in enumerate(X_WINS)))  # fmt: skip
    game = await core.repo.get_game(game_id)
    assert game is not None and game.ending == Ending("line", "X")
    ultimate = await core.records.leaderboard(GUILD, ALICE, "ultimate")
    assert [(r.user_id, r.wins, r.losses) for r in ultimate.top] == [(ALICE, 1, 0), (BOB, 0, 1)]
    classic = await core.records.leaderboard(GUILD, ALICE)
    assert classic.top == [] and classic.mine is None
    stats = await core.records.stats(GUILD, ALICE, variant="ultimate")
    assert str(stats.total) == "1-0-0" and len(stats.ratings) == 2
    with pytest.raises(Refusal):  # no classic game yet
        await core.records.stats(GUILD, ALICE)
    # a classic game afterwards starts the classic rating from scratch
    challenge = await core.lobby.challenge(
        guild_id=GUILD, channel_id=CHANNEL, user_id=BOB, opponent_id=ALICE, first="me"
    )
    classic_id = (await core.lobby.accept(challenge.id, ALICE, message_id=None)).game.id
    await play(core, classic_id, (BOB, 0), (ALICE, 3), (BOB, 1), (ALICE, 4), (BOB, 2))
    classic = await core.records.leaderboard(GUILD, ALICE)
    assert [(r.user_id, r.rating) for r in classic.top] == [
        (BOB, pytest.approx(1016)), (ALICE, pytest.approx(984))
    ]  # fmt: skip
    ultimate = await core.records.leaderboard(GUILD, ALICE, "ultimate")
    assert ultimate.top[0].user_id == ALICE and ultimate.top[0].rating == pytest.approx(1016)
    assert isinstance((await core.repo.get_game(classic_id)).board, Board)  # type: ignore[union-attr]


async def test_bot_records_at_ultimate_are_their_own(core: Core) -> None:
    update = await core.lobby.start_bot_game(
        guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, difficulty="hard", first="me",
        variant="ultimate",
    )  # fmt: skip
    await core.games.resign(ALICE, game_id=update.game.id)
    ultimate = await core.records.leaderboard(GUILD, ALICE, "ultimate")
    (row,) = ultimate.against_bot["hard"]
    assert (row.user_id, row.wins, row.losses) == (ALICE, 0, 1)
    classic = await core.records.leaderboard(GUILD, ALICE)
    assert classic.against_bot["hard"] == []


async def test_a_rematch_plays_ultimate_again(core: Core) -> None:
    game_id = await ultimate_member_game(core, ALICE, BOB)
    await core.games.resign(BOB, game_id=game_id)
    again = await core.lobby.rematch(game_id, BOB)
    assert not hasattr(again, "game") and again.variant == "ultimate"  # type: ignore[union-attr]


BEFORE_ULTIMATE, PG_BEFORE_ULTIMATE = 12, 9
"""The schema versions of the release before ultimate (SQLite's, PostgreSQL's)."""


async def test_ratings_from_before_ultimate_stay_classic(database: Path | str) -> None:
    """A database migrated by the release before ultimate keeps its ratings and records
    as the classic boards' once this one migrates it."""
    rows = (
        "INSERT INTO ratings (guild_id, user_id, rating, wins) VALUES (7, 101, 1016, 1)",
        "INSERT INTO bot_records (guild_id, user_id, difficulty, wins, points)"
        " VALUES (7, 101, 'hard', 1, 2)",
    )
    if isinstance(database, Path):
        conn = sqlite3.connect(database)
        for number, migration in enumerate(MIGRATIONS[:BEFORE_ULTIMATE], start=1):
            conn.executescript(migration)
            conn.execute(f"PRAGMA user_version = {number}")
        for row in rows:
            conn.execute(row)
        conn.commit()
        conn.close()
    else:
        pg = await asyncpg.connect(database)
        await pg.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        for migration in PG_MIGRATIONS[:PG_BEFORE_ULTIMATE]:
            await pg.execute(migration)
        await pg.execute("INSERT INTO schema_version VALUES ($1)", PG_BEFORE_ULTIMATE)
        for row in rows:
            await pg.execute(row)
        await pg.close()
    repo = open_repo(database)
    await repo.open()
    try:
        (rating,) = await repo.leaderboard(7, 10)
        assert (rating.user_id, rating.rating, rating.wins) == (101, 1016, 1)
        assert await repo.leaderboard(7, 10, "ultimate") == []
        (record,) = await repo.best_against_bot(7, "hard", 10)
        assert (record.user_id, record.wins) == (101, 1)
        assert await repo.best_against_bot(7, "hard", 10, "ultimate") == []
    finally:
        await repo.close()
