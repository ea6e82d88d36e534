"""A new game's board is stored by the first click on it (no write of its own on the
start), or on its own a moment later, or when the store closes; never over a board
posted again meanwhile by another process."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from test_core_click_cost import services_over, start_hard, watch_statements
from test_storage_repository import a_game

from bot.core.models import GameUpdate
from bot.core.repository import Repository
from bot.storage import SqliteRepository, board_writes

from core_harness import CHANNEL, FakeClock, open_core, open_repo

ALICE, BOB = 101, 102
BOARD, REPOSTED = 5000, 6000


async def stored_board(repo: Repository, game_id: int) -> int | None:
    """The game's message id as the database holds it (not as this process knows it)."""
    sql = "SELECT message_id FROM games WHERE id = "
    if isinstance(repo, SqliteRepository):
        return repo.conn.execute(sql + "?", (game_id,)).fetchone()[0]  # type: ignore[no-any-return]
    async with repo.pool.connection(timeout=2.0) as conn:  # type: ignore[attr-defined]
        return await conn.fetchval(sql + "$1", game_id)  # type: ignore[no-any-return]


async def test_a_new_board_is_stored_by_its_first_click(database: Path | str) -> None:
    repo = open_repo(database, pool_size=1)
    await repo.open()
    try:
        core = await services_over(repo, FakeClock())
        update = await start_hard(core)
        game = await core.games.attach_game_message(update.game, BOARD)
        assert await stored_board(repo, game.id) is None  # no write of its own
        assert (await repo.get_game(game.id)).message_id == BOARD  # type: ignore[union-attr]
        statements = await watch_statements(repo)
        played = await core.games.play_turn(game.id, 0, 4, ALICE, message_id=BOARD)
        await asyncio.sleep(0)  # asyncpg tells its query loggers with call_soon
        assert len(statements) == 1 and statements[0].lstrip().upper().startswith("UPDATE")
        assert played.game.message_id == BOARD
        assert await stored_board(repo, game.id) == BOARD
    finally:
        await repo.close()


async def test_a_board_nobody_clicks_is_stored_a_moment_later(
    database: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(board_writes, "DELAY", 0.05)
    repo = open_repo(database)
    await repo.open()
    try:
        game = await repo.create_game(a_game())
        await repo.set_game_message(game.id, BOARD)
        for _ in range(100):
            if await stored_board(repo, game.id) is not None:
                break
            await asyncio.sleep(0.02)
        assert await stored_board(repo, game.id) == BOARD
    finally:
        await repo.close()


async def test_the_boards_still_waiting_are_stored_when_the_store_closes(
    database: Path | str,
) -> None:
    repo = open_repo(database)
    await repo.open()
    game = await repo.create_game(a_game())
    await repo.set_game_message(game.id, 2**62)  # Discord ids need 64 bits
    await repo.close()
    again = open_repo(database)
    await again.open()
    try:
        assert await stored_board(again, game.id) == 2**62
    finally:
        await again.close()


@pytest.mark.postgres
async def test_a_board_posted_again_elsewhere_meanwhile_stays_the_live_one(
    pg_database: str,
) -> None:
    clock = FakeClock()
    first, second = await open_core(pg_database, clock), await open_core(pg_database, clock)
    try:
        update = await start_hard(first)
        game = await first.games.attach_game_message(update.game, BOARD)

        async def post(_update: GameUpdate) -> int:
            return REPOSTED

        # the second process has not seen the first's board yet, and posts the game anew
        assert (await second.messages.repost(ALICE, CHANNEL, post)).live
        await first.repo.close()  # writes the board it knows, where none is stored
        assert await stored_board(second.repo, game.id) == REPOSTED
    finally:
        await second.repo.close()
