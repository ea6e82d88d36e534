"""The SQLite repository: WAL, migrations, clear errors, and what a restart keeps."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time

import pytest

from bot.core.models import Ending, Game
from bot.core.repository import Conflict, DatabaseError
from bot.storage import MIGRATIONS, SqliteRepository
from bot.storage import sqlite as sqlite_module
from engine import Board

from bot_harness import board_of, cell_id, running_bot, settings_for
from discord_emulator import DiscordEmulator


def a_game(channel_id: int = 1, moves: tuple[int, ...] = ()) -> Game:
    now = time.time()
    return Game(
        id=0,
        guild_id=1,
        channel_id=channel_id,
        message_id=None,
        size=3,
        k=3,
        player_x=10,
        player_o=20,
        bot_side=None,
        difficulty=None,
        moves=moves,
        turn_deadline=now + 60,
        created_at=now,
        updated_at=now,
    )


async def test_wal_mode_and_schema_version(tmp_path) -> None:
    repo = SqliteRepository(tmp_path / "ttt.sqlite3")
    await repo.open()
    try:
        assert await repo.schema_version() == len(MIGRATIONS)
        assert repo.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        await repo.close()
    again = SqliteRepository(tmp_path / "ttt.sqlite3")  # migrations run once; reopening is fine
    await again.open()
    assert await again.schema_version() == len(MIGRATIONS)
    await again.close()


async def test_the_log_reaches_the_file_by_checkpoints_of_their_own(tmp_path, monkeypatch) -> None:
    """Queries run on the event loop and never checkpoint; a connection of its own on the
    database thread copies the log into the file every few seconds, once written to."""
    monkeypatch.setattr(sqlite_module, "CHECKPOINT_SECONDS", 0.05)
    path = tmp_path / "ttt.sqlite3"
    repo = SqliteRepository(path)
    await repo.open()

    def games_in_the_file_alone() -> int:
        """The games a copy of the database file holds without its log (0 before the
        migrations that made the table reach it)."""
        copy = tmp_path / "copy.sqlite3"
        copy.write_bytes(path.read_bytes())
        with contextlib.closing(sqlite3.connect(copy)) as conn:
            try:
                return int(conn.execute("SELECT count(*) FROM games").fetchone()[0])
            except sqlite3.OperationalError:  # no such table
                return 0

    try:
        assert repo.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
        await repo.create_game(a_game())
        assert games_in_the_file_alone() == 0  # still only in the log
        for _ in range(100):
            await asyncio.sleep(0.05)
            if games_in_the_file_alone() == 1:
                break
        assert games_in_the_file_alone() == 1
    finally:
        await repo.close()


async def test_round_trip_and_compare_and_set(tmp_path) -> None:
    repo = SqliteRepository(tmp_path / "ttt.sqlite3")
    await repo.open()
    try:
        game = await repo.create_game(a_game(moves=(4,)))
        assert game.id > 0
        assert await repo.get_game(game.id) == game
        moved = game.with_changes(moves=(4, 0))
        await repo.save_game(moved, expected_ply=1)
        assert (await repo.get_game(game.id)).moves == (4, 0)
        with pytest.raises(Conflict):  # a second writer that saw ply 1 loses
            await repo.save_game(game.with_changes(moves=(4, 8)), expected_ply=1)
        # how many games a channel may hold is the server's setting, kept by the service
        second = await repo.create_game(a_game())
        assert [g.id for g in await repo.running_games_in(1)] == [game.id, second.id]
    finally:
        await repo.close()


async def test_missing_folder_is_a_one_line_error_and_creates_nothing(tmp_path) -> None:
    path = tmp_path / "nowhere" / "ttt.sqlite3"
    with pytest.raises(DatabaseError, match=str(path)) as info:
        await SqliteRepository(path).open()
    assert "\n" not in str(info.value)
    assert not path.parent.exists()


async def test_not_a_database_is_refused_and_left_untouched(tmp_path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(b"these are my notes, not a database\n" * 200)
    before = path.read_bytes()
    with pytest.raises(DatabaseError, match=str(path)):
        await SqliteRepository(path).open()
    assert path.read_bytes() == before


async def test_a_newer_schema_is_refused(tmp_path) -> None:
    path = tmp_path / "ttt.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    with pytest.raises(DatabaseError, match="newer than this bot knows"):
        await SqliteRepository(path).open()


async def test_game_continues_after_a_restart_and_commands_sync_once(
    emulator: DiscordEmulator, tmp_path
) -> None:
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3")
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings):
        res = await emulator.invoke(alice, "ttt start", {"first": "me", "difficulty": "hard"})
        res = await emulator.click(alice, res.message, cell_id(res.message, 4))
        message = res.message
    assert emulator.sync_count == 1
    async with running_bot(emulator, settings):
        board = Board.from_string(board_of(message))
        cell = board.legal_moves()[0]
        res = await emulator.click(alice, message, cell_id(message, cell))
        assert res.type == 7
        after = Board.from_string(board_of(res.message))
        assert after.move_count == board.move_count + 2 and after[cell] == "X"
    assert emulator.sync_count == 1  # the tree did not change, so no second sync


async def test_a_bot_move_interrupted_by_a_crash_is_made_at_start_up(
    emulator: DiscordEmulator, tmp_path
) -> None:
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3")
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings) as bot:
        res = await emulator.invoke(alice, "ttt start", {"first": "me"})
        (game,) = await bot.repo.running_games_in(emulator.channel.id)
        # the member's move was stored, then the process died before the bot replied
        await bot.repo.save_game(game.with_changes(moves=(4,), turn_deadline=None), expected_ply=0)
    message_id = res.message["id"]
    async with running_bot(emulator, settings):
        edited = await emulator.wait_for_message(
            lambda m: m["id"] == message_id and board_of(m).count("O") == 1, include_existing=True
        )
    board = Board.from_string(board_of(edited))
    assert board[4] == "X" and board.move_count == 2


async def test_dev_guild_sync_goes_to_the_guild_only(emulator: DiscordEmulator, tmp_path) -> None:
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3", dev_guild_id=emulator.guild.id)
    async with running_bot(emulator, settings):
        names = [c["name"] for c in emulator.commands(guild_id=emulator.guild.id)]
        assert names == ["ttt"]
        assert emulator.commands() == []


async def test_a_slow_bot_reply_shows_the_member_move_first(
    emulator: DiscordEmulator, tmp_path
) -> None:
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3", defer_after=0.0)
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings):
        res = await emulator.invoke(alice, "ttt start", {"first": "me", "difficulty": "hard"})
        message = res.message
        res = await emulator.click(alice, message, cell_id(message, 0))
        # answered at once with the member's move and the bot thinking...
        assert res.type == 7
        first = Board.from_string(board_of(res.message))
        assert first.move_count == 1 and first[0] == "X"
        assert "the bot (hard) is thinking" in res.content
        # ...then the same message shows the reply
        edited = await res.wait_for_edit()
        assert edited is not None
        assert Board.from_string(board_of(emulator.message(message["id"]))).move_count == 2


async def test_migrating_a_version_2_database_keeps_its_games(tmp_path) -> None:
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as conn:
        for script in MIGRATIONS[:2]:
            for statement in script.split(";"):
                if statement.strip():
                    conn.execute(statement)
        conn.execute("PRAGMA user_version = 2")
        conn.execute(
            "INSERT INTO games (guild_id, channel_id, size, k, player_x, player_o, moves, ply,"
            " status, result, end_reason, created_at, updated_at, finished_at)"
            " VALUES (1, 2, 3, 3, 10, 20, '0,3,1,4,2', 5, 'finished', 'X', 'line', 1, 2, 3)"
        )
        conn.execute(
            "INSERT INTO challenges (channel_id, challenger_id, opponent_id, x_player, size,"
            " k, status, expires_at, created_at, game_id) VALUES (2, 10, 20, 'random', 3, 3,"
            " 'accepted', 5, 1, 1)"
        )
    repo = SqliteRepository(path)
    await repo.open()
    try:
        assert await repo.schema_version() == len(MIGRATIONS) >= 3
        game = await repo.get_game(1)
        assert (
            game is not None
            and game.moves == (0, 3, 1, 4, 2)
            and game.ending == Ending("line", "X")
        )
        assert (await repo.get_challenge(1)).game_id == 1
        running = await repo.create_game(a_game(channel_id=9))
        await repo.save_game(running.with_changes(ending=Ending("abandoned")), expected_ply=0)
        assert (await repo.get_game(running.id)).ending == Ending("abandoned")
    finally:
        await repo.close()
