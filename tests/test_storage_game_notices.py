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
                await tx.mark_hinted(game_id, game.ply)  # shown: told, were it committed
                raise RuntimeError("rolled back")
        await asyncio.sleep(0.3)
        assert heard == [told, told]
        await writer.repo.mark_hinted(game_id, 1)  # the same, committed: told
        await heard_soon(heard, [told, told, told])
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


@pytest.mark.postgres
async def test_a_cancelled_write_stays_a_cancellation(pg_database) -> None:
    """A store call cancelled with its write in flight (a shutdown, say) raises
    CancelledError as asked, its doubt recorded and its connection cut, and settling
    that doubt ends only its own backend: the pool goes on working."""
    core = await open_core(pg_database, FakeClock())
    try:
        game_id = await member_game(core, ALICE, BOB)
        holder = open_repo(pg_database)
        await holder.open()
        try:
            async with holder.atomic() as tx:  # the game's row held: the write waits
                await tx.mark_hinted(game_id, 0)
                write = asyncio.ensure_future(core.repo.mark_hinted(game_id, 0))
                await asyncio.sleep(0.3)
                write.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await write
                raise RuntimeError("let go")
        except RuntimeError:
            pass
        finally:
            await holder.close()
        await core.repo.settle_writes()
        assert (await core.repo.get_game(game_id)) is not None  # the pool still works
    finally:
        await core.repo.close()
