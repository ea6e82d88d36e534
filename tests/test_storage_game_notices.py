"""Every game written is told to whoever listens to ``games``, with its channel and id:
from this process on SQLite, from any process sharing PostgreSQL (a trigger), so the
Activity's pages follow moves made anywhere. A rolled-back write tells PostgreSQL's
listeners nothing."""

from __future__ import annotations

import asyncio

import pytest

from bot.core.repository import GAMES_TOPIC

from core_harness import CHANNEL, FakeClock, member_game, open_core, open_repo, play

ALICE, BOB = 1001, 1002


async def heard_soon(heard: list[str], expected: list[str]) -> None:
    for _ in range(100):
        if heard == expected:
            return
        await asyncio.sleep(0.02)
    assert heard == expected


async def test_a_game_written_is_told_with_its_channel(core) -> None:
    heard: list[str] = []
    await core.repo.listen(GAMES_TOPIC, heard.append)
    game_id = await member_game(core, ALICE, BOB)
    told = f"{CHANNEL}:{game_id}"
    await heard_soon(heard, [told])  # the accepted challenge's game, inserted
    await play(core, game_id, (ALICE, 4))
    await heard_soon(heard, [told, told])  # and the move


@pytest.mark.postgres
async def test_a_game_written_by_another_process_is_told_here(pg_database) -> None:
    writer = await open_core(pg_database, FakeClock())
    listener = open_repo(pg_database)
    await listener.open()
    heard: list[str] = []
    try:
        await listener.listen(GAMES_TOPIC, heard.append)
        game_id = await member_game(writer, ALICE, BOB)
        await play(writer, game_id, (ALICE, 4))
        told = f"{CHANNEL}:{game_id}"
        await heard_soon(heard, [told, told])
        with pytest.raises(RuntimeError):  # a write rolled back is not told
            async with writer.repo.atomic() as tx:
                game = await tx.get_game(game_id)
                assert game is not None
                await tx.save_game(game, expected_ply=game.ply)
                raise RuntimeError("rolled back")
        await asyncio.sleep(0.3)
        assert heard == [told, told]
    finally:
        await listener.close()
        await writer.repo.close()


async def test_without_a_listener_a_write_runs_no_trigger(tmp_path) -> None:
    """SQLite's trigger exists only once somebody listens: writes pay nothing otherwise."""
    repo = open_repo(tmp_path / "ttt.sqlite3")
    await repo.open()
    try:
        triggers = "SELECT count(*) FROM sqlite_temp_master WHERE type = 'trigger'"
        assert repo.conn.execute(triggers).fetchone()[0] == 0  # type: ignore[attr-defined]
        await repo.listen(GAMES_TOPIC, lambda payload: None)
        assert repo.conn.execute(triggers).fetchone()[0] == 2  # type: ignore[attr-defined]
    finally:
        await repo.close()
