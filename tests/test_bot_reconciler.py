"""The reconciler, which shows as stored what a write of unknown outcome touched: it
never sets a board back behind a click that came while it read, it gives up on a read
that fails by a fault (once in the log, with its traceback), and it keeps trying one
that fails because the database is out of reach, until it answers."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.core.doubts import Touched
from bot.discord_ui.reconciler import Reconciler

from bot_harness import board_of, cell_id, eventually, running_bot, settings_for
from discord_emulator import DiscordEmulator
from fault_harness import out_of_reach, told

CALLBACK = r"^/interactions/\d+/[^/]+/callback$"
MESSAGE = r"^/channels/\d+/messages/\d+$"
LOGGER = "bot.discord_ui.reconciler"


def reconciler_of(bot) -> Reconciler:
    cog = bot.get_cog("Reconciler")
    assert isinstance(cog, Reconciler)
    return cog


def said(caplog: pytest.LogCaptureFixture, level: int, words: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records
            if r.name == LOGGER and r.levelno == level and words in r.getMessage()]  # fmt: skip


async def test_a_board_read_back_before_a_click_is_not_shown_after_it(
    emulator: DiscordEmulator, tmp_path, monkeypatch, caplog
) -> None:
    """The reconciler reads a game; a click then stores a move and shows it; what the
    reconciler shows next is the game with that move, never the older board it read."""
    caplog.set_level(logging.INFO, logger=LOGGER)
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings_for(emulator, tmp_path / "t.sqlite3")) as bot:
        board = (await emulator.invoke(alice, "ttt start", {"first": "me"})).message
        (game,) = await bot.repo.running_games_in(int(board["channel_id"]))
        read_back = reconciler_of(bot).read_back
        current, read, go = read_back.current, asyncio.Event(), asyncio.Event()

        async def read_then_wait(item: Touched) -> list:
            shown = await current(item)
            read.set()
            await go.wait()  # the click comes now, between the read and the showing
            return shown

        monkeypatch.setattr(read_back, "current", read_then_wait)
        bot.repo.doubts.add([Touched("game", game.id)])
        await read.wait()
        res = await emulator.click(alice, board, cell_id(board, 4))
        assert res.type == 7 and board_of(res.message)[4] == "X"
        go.set()
        await eventually(lambda: said(caplog, logging.INFO, "shown as stored"), "the reconciler")
        (stored,) = await bot.repo.running_games_in(int(board["channel_id"]))
        assert stored.ply == 2  # the click and the bot's reply
        assert board_of(emulator.message(board["id"])) == stored.board.to_string()


async def test_a_read_that_fails_by_a_fault_is_logged_once_and_given_up_on(
    emulator: DiscordEmulator, tmp_path, caplog
) -> None:
    """A stored game the code cannot read (its moves garbled) is no outage: its reading
    again fails once at ERROR, with the traceback, and is not tried again; the
    reconciler goes on with what comes next."""
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    alice = emulator.create_user("alice")
    other = emulator.create_channel(emulator.guild, "other")
    async with running_bot(emulator, settings_for(emulator, tmp_path / "t.sqlite3")) as bot:
        await emulator.invoke(alice, "ttt start", {"first": "me"})
        await emulator.invoke(alice, "ttt resign")  # finished: only the reconciler reads it
        (broken,) = await bot.repo.finished_games_of(emulator.guild.id, alice.id)
        bot.repo.conn.execute("UPDATE games SET moves = 'x,y' WHERE id = ?", (broken.id,))
        bot.repo.doubts.add([Touched("game", broken.id)])
        await eventually(
            lambda: said(caplog, logging.ERROR, f"game {broken.id}: reading"), "the log"
        )
        # something else to show afterwards: once it is shown, the broken game would
        # have been tried again (and logged again) if it were still in doubt
        board = (await emulator.invoke(alice, "ttt start", {"first": "me"}, channel=other)).message
        (fine,) = await bot.repo.running_games_in(other.id)
        bot.repo.doubts.add([Touched("game", fine.id)])
        await eventually(
            lambda: said(caplog, logging.INFO, f"game {fine.id}: shown as stored"),
            "the next game shown",
        )
        (error,) = said(caplog, logging.ERROR, f"game {broken.id}")
        assert error.exc_info is not None and error.exc_info[0] is ValueError
        assert not said(caplog, logging.DEBUG, f"game {broken.id}: not read again yet")
        assert board_of(emulator.message(board["id"])) == "." * 9


@pytest.mark.postgres
async def test_a_read_in_an_outage_is_tried_until_the_database_answers(
    emulator: DiscordEmulator, pg_server, pg_database: str, tmp_path, caplog
) -> None:
    """A board behind its store, to be read again while PostgreSQL refuses connections:
    the reconciler keeps trying, logs no error, and shows it once the database is back."""
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    settings = settings_for(emulator, tmp_path / "unused.sqlite3", database_url=pg_database)
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings) as bot:
        board = (await emulator.invoke(alice, "ttt start", {"first": "me"})).message
        channel_id = int(board["channel_id"])
        (game,) = await bot.repo.running_games_in(channel_id)
        emulator.faults.add("POST", CALLBACK, 403, code=50013)  # the click's answer
        emulator.faults.add("PATCH", MESSAGE, 403, code=50013)  # and the reconciler's edit
        assert told(await emulator.click(alice, board, cell_id(board, 4))) == "unconfirmed"
        await eventually(lambda: len(emulator.faults.injected) == 2, "both faults")
        await eventually(lambda: said(caplog, logging.INFO, "shown as stored"), "the first try")
        assert board_of(emulator.message(board["id"])) == "." * 9  # behind the store
        caplog.clear()
        async with out_of_reach(pg_server, pg_database, listener_too=True):
            bot.repo.doubts.add([Touched("game", game.id)])
            await eventually(
                lambda: len(said(caplog, logging.DEBUG, "not read again yet")) >= 3,
                "three tries",
            )
            assert board_of(emulator.message(board["id"])) == "." * 9
        (stored,) = await bot.repo.running_games_in(channel_id)
        assert stored.ply == 2
        await eventually(
            lambda: board_of(emulator.message(board["id"])) == stored.board.to_string(),
            "the board shown as stored",
        )
        assert not [r for r in caplog.records if r.name == LOGGER and r.levelno >= logging.ERROR]
