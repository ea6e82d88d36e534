"""Every answer true: 'nothing was changed' only when that is known, a board never left
behind its store, and a click on an out-of-date board answered with the position as it
stands (the write tracking of ``bot.storage.outcomes`` and the reconciler)."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from bot.discord_ui import game_controller
from bot.discord_ui.render_game import grid
from bot.i18n import text

from bot_harness import board_of, cell_id, eventually, running_bot, settings_for
from discord_emulator import DiscordEmulator
from discord_emulator.interactions import WAIT_CEILING
from fault_harness import locked, told, waiting_backend

CALLBACK = r"^/interactions/\d+/[^/]+/callback$"
MESSAGE = r"^/channels/\d+/messages/\d+$"


async def stored_board(bot, channel_id: int) -> str:
    (game,) = await bot.repo.running_games_in(channel_id)
    return game.board.to_string()


async def until_shown(
    emu: DiscordEmulator, bot, board: dict, seconds: float = WAIT_CEILING
) -> None:
    """Until the board message equals the store (fails after ``seconds``)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    channel_id = int(board["channel_id"])
    while board_of(emu.message(board["id"])) != await stored_board(bot, channel_id):
        assert loop.time() < end, "the board stayed behind the store"
        await asyncio.sleep(0.05)


async def test_a_move_stored_and_then_not_shown_is_told_unconfirmed_and_shown_after(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """Discord refuses the click's answer after its move was stored: the member is told
    the outcome is not confirmed (never that nothing changed), and the board catches up."""
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3")
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings) as bot:
        board = (await emulator.invoke(alice, "ttt start", {"first": "me"})).message
        emulator.faults.add("POST", CALLBACK, 403, code=50013)  # the board's edit
        res = await emulator.click(alice, board, cell_id(board, 4))
        assert told(res) == "unconfirmed"
        assert (await stored_board(bot, int(board["channel_id"])))[4] == "X"  # it was stored
        await until_shown(emulator, bot, board)
    assert emulator.faults.injected, "the fault was never met"


async def test_a_click_on_a_board_behind_the_store_gets_the_position_as_stored(
    emulator: DiscordEmulator, tmp_path, monkeypatch
) -> None:
    """A board whose every edit failed shows an old position: a click on it is not
    played, its member is shown privately how the game stands, and the board is brought
    up to date."""
    monkeypatch.setattr(game_controller, "IN_FLIGHT", 0.0)  # no answer is on its way
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3")
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings) as bot:
        board = (await emulator.invoke(alice, "ttt start", {"first": "me"})).message
        channel_id = int(board["channel_id"])
        emulator.faults.add("POST", CALLBACK, 403, code=50013)  # the board's edit
        emulator.faults.add("PATCH", MESSAGE, 403, code=50013)  # and the reconciler's
        assert told(await emulator.click(alice, board, cell_id(board, 4))) == "unconfirmed"
        await eventually(lambda: len(emulator.faults.injected) == 2, "both refused edits")
        behind = emulator.message(board["id"])
        stored = await stored_board(bot, channel_id)
        assert board_of(behind) == "." * 9 and stored[4] == "X"
        res = await emulator.click(alice, behind, cell_id(behind, 0))
        (game,) = await bot.repo.running_games_in(channel_id)
        assert game.board.to_string() == stored  # the click was not played
        await res.wait_for_edit()  # the board edited, then the private answer follows
        answer = res.followups[-1]["content"]
        now = text("move.stale.now", None, board=grid(game))
        assert answer == f"{text('move.stale')}\n{now}"
        assert board_of(emulator.message(board["id"])) == stored  # brought up to date


async def test_a_full_disk_refuses_a_start_and_says_truly_nothing_changed(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """SQLite rolls back a statement that finds the disk full (here the file capped at its
    size): the member is told nothing changed, and nothing did."""
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3")
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings) as bot:
        conn = bot.repo.conn
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")
        answers = []
        # until a start needs a page more than the file may have: the pages free in it
        # (a migration that rebuilt a table leaves some) are used up first
        for i in range(1000):
            channel = emulator.create_channel(emulator.guild, f"full-{i}")
            res = await emulator.invoke(alice, "ttt start", {"first": "me"}, channel=channel)
            if res.type == 4 and res.ephemeral:
                answers.append((told(res), await bot.repo.running_games_in(channel.id)))
                break
            await emulator.invoke(alice, "ttt resign", channel=channel)
        assert answers == [("nothing", [])]
        conn.execute(f"PRAGMA max_page_count = {pages * 100}")
        res = await emulator.invoke(alice, "ttt start", {"first": "me"}, channel=channel)
        assert res.type == 4 and not res.ephemeral  # room again: the same start plays


@pytest.mark.postgres
@pytest.mark.slow  # waits out the bot's 2 s for a query
async def test_a_write_left_waiting_is_ended_before_its_board_is_read_again(
    emulator: DiscordEmulator, pg_database: str, tmp_path
) -> None:
    """A click whose write waits for a row lock past the bot's patience: the member is
    told it is not confirmed; the write is then ended on the server before the board is
    read again, so when the lock goes it is not applied behind the board's back."""
    settings = settings_for(emulator, tmp_path / "unused.sqlite3", database_url=pg_database)
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings) as bot:
        board = (await emulator.invoke(alice, "ttt start", {"first": "me"})).message
        (game,) = await bot.repo.running_games_in(int(board["channel_id"]))
        locker, watcher = [
            await asyncpg.connect(pg_database, server_settings={"application_name": name})
            for name in ("ttt-test locker", "ttt-test watcher")
        ]
        try:
            await locked(locker, game.id)
            click = asyncio.ensure_future(emulator.click(alice, board, cell_id(board, 4)))
            waiting = await waiting_backend(watcher)
            assert told(await click) == "unconfirmed"

            async def gone() -> bool:
                count = "SELECT count(*) FROM pg_stat_activity WHERE pid = $1"
                return not await watcher.fetchval(count, waiting)

            # the reconciler ends the backend still waiting
            await eventually(gone, "the waiting write ended, not left to land later")
            await locker.execute("COMMIT")
        finally:
            await locker.close()
            await watcher.close()
        await asyncio.sleep(0.5)  # wait-ok: the ended write must NOT land (an absence)
        assert await stored_board(bot, int(board["channel_id"])) == "." * 9
        assert board_of(emulator.message(board["id"])) == "." * 9
        res = await emulator.click(alice, emulator.message(board["id"]), cell_id(board, 4))
        assert res.type == 7 and board_of(res.message)[4] == "X"  # and play goes on
