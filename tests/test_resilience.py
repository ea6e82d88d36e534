"""Faults Discord can throw at the bot, each one provoked through the emulator."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sqlite3
from pathlib import Path

import pytest

from bot.core.models import Ending
from bot.i18n import text
from engine import Board, get_agent

from bot_harness import (
    BotProcess,
    board_of,
    bot_process,
    bot_process_env,
    cell_id,
    eventually,
    running_bot,
    settings_for,
    with_marks,
)
from discord_emulator import DiscordEmulator, buttons
from discord_emulator.interactions import WAIT_CEILING

CALLBACK = r"^/interactions/\d+/[^/]+/callback$"
CHANNEL_EDIT = r"^/channels/\d+/messages/\d+$"


@pytest.fixture
def settings(emulator: DiscordEmulator, tmp_path: Path):
    return settings_for(emulator, tmp_path / "ttt.sqlite3")


@pytest.fixture
def quick_timeouts(emulator: DiscordEmulator, tmp_path: Path):
    return settings_for(emulator, tmp_path / "ttt.sqlite3", turn_timeout=1.5)


async def start_game(emu: DiscordEmulator, user, **options) -> dict:
    res = await emu.invoke(user, "ttt start", {"first": "me", "difficulty": "hard", **options})
    assert res.type == 4
    return res.message


PERFECT = get_agent("hard", seed=1)


async def _no_running_game(bot) -> bool:
    return not await bot.repo.running_games()


async def move(emu: DiscordEmulator, user, message: dict) -> dict:
    """Make a perfect move on the board as it is now (so the game lasts); expect the
    update."""
    current = emu.message(message["id"])
    board = Board.from_string(board_of(current))
    res = await emu.click(user, current, cell_id(current, PERFECT.choose(board)))
    assert res.type == 7, res
    after = Board.from_string(board_of(res.message))
    assert after.move_count == board.move_count + 2 or after.is_over()
    return res.message


async def test_gateway_drops_resume_then_reidentify(emulator, settings) -> None:
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings):
        message = await start_game(emulator, alice)
        message = await move(emulator, alice, message)
        await emulator.drop_gateway(4000)  # resumable: the bot resumes its session
        await emulator.wait_until_resumed()
        message = await move(emulator, alice, message)
        await emulator.drop_gateway(4009, invalidate=True)  # session gone: identify again
        await emulator.wait_until_ready(count=2)
        await move(emulator, alice, message)


async def test_a_rate_limited_answer_is_retried(emulator, settings, caplog) -> None:
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings):
        message = await start_game(emulator, alice)
        emulator.faults.add("POST", CALLBACK, 429, retry_after=0.3)
        with caplog.at_level(logging.WARNING):
            await move(emulator, alice, message)
    assert [status for _, _, status in emulator.faults.injected] == [429]
    assert "rate limited" in caplog.text


@pytest.mark.parametrize("status", [500, 502])
async def test_server_errors_are_retried(emulator, settings, status: int) -> None:
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings):
        message = await start_game(emulator, alice)
        emulator.faults.add("POST", CALLBACK, status)
        await move(emulator, alice, message)
    assert [s for _, _, s in emulator.faults.injected] == [status]


async def test_a_deleted_game_message_frees_the_channel(emulator, settings, caplog) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with running_bot(emulator, settings) as bot:
        old = await start_game(emulator, alice)
        emulator.delete_message(int(old["id"]))  # a moderator deletes the game
        with caplog.at_level(logging.INFO):
            res = await emulator.invoke(bob, "ttt start", {"first": "me"})
        assert res.type == 4 and not res.ephemeral  # the channel is free again
        games = await bot.repo.finished_games_of(emulator.guild.id, alice.id)
        assert [g.ending for g in games] == [Ending("abandoned")]
    assert "abandoned" in caplog.text


async def test_a_deleted_message_at_timeout_is_logged_and_recorded(
    emulator, quick_timeouts, caplog
) -> None:
    alice = emulator.create_user("alice")
    async with running_bot(emulator, quick_timeouts) as bot:
        old = await start_game(emulator, alice)
        emulator.delete_message(int(old["id"]))

        async def ended_and_logged() -> list | None:
            games = await bot.repo.finished_games_of(emulator.guild.id, alice.id)
            return games if games and "was deleted" in caplog.text else None

        with caplog.at_level(logging.WARNING):
            games = await eventually(ended_and_logged, "the timeout recorded and logged")
    assert [g.ending for g in games] == [Ending("timeout", "O")]
    assert f"message {old['id']} of game" in caplog.text and "was deleted" in caplog.text


async def test_missing_permissions_on_an_edit_is_logged(emulator, quick_timeouts, caplog) -> None:
    alice = emulator.create_user("alice")
    async with running_bot(emulator, quick_timeouts) as bot:
        old = await start_game(emulator, alice)
        emulator.faults.add("PATCH", CHANNEL_EDIT, 403, code=50013)

        async def ended_and_logged() -> list | None:
            games = await bot.repo.finished_games_of(emulator.guild.id, alice.id)
            return games if games and "missing permissions" in caplog.text else None

        with caplog.at_level(logging.WARNING):
            games = await eventually(ended_and_logged, "the timeout recorded, its edit refused")
        assert emulator.faults.injected
    assert [g.ending.reason for g in games if g.ending] == ["timeout"]  # recorded all the same
    assert "missing permissions" in caplog.text
    assert "ran out of time" not in emulator.message(int(old["id"]))["content"]


async def test_an_expired_interaction_still_shows_the_move(emulator, settings, caplog) -> None:
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings):
        message = await start_game(emulator, alice)
        emulator.faults.add("POST", CALLBACK, 404, code=10062)
        with caplog.at_level(logging.WARNING):
            res = await emulator.click(alice, message, cell_id(message, 4))
        assert res.type is None  # Discord refused the answer: the member saw it fail...
        shown = await emulator.wait_for_message(
            lambda m: m["id"] == message["id"] and "X" in board_of(m), include_existing=True
        )
        # ...but the stored move and the bot's reply reach the message all the same
        assert Board.from_string(board_of(shown)).move_count == 2
        assert "expired before its answer" in caplog.text
        await move(emulator, alice, shown)  # and the game goes on
    unanswered = [v for v in emulator.violations if "no initial response" in v]
    assert len(unanswered) == len(emulator.violations) == 1
    emulator.violations.clear()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_a_shutdown_finishes_the_move_in_flight(
    emulator: DiscordEmulator, tmp_path: Path, signum: int
) -> None:
    env = bot_process_env(emulator, tmp_path / "ttt.sqlite3", TTT_THINK_TIME="1.5")
    alice = emulator.create_user("alice")
    async with bot_process(emulator, env, tmp_path, ready=1) as bot:
        res = await emulator.invoke(alice, "ttt start", {"first": "me", "difficulty": "hard",
                                                        "size": 5})  # fmt: skip
        message = res.message
        click = asyncio.create_task(emulator.click(alice, message, cell_id(message, 12)))
        # the member's move is in, the bot is thinking: its engine worker, started on the
        # first search, is starting up or searching
        await eventually(lambda: engine_workers_of(bot.proc.pid), "the bot's search")
        bot.proc.send_signal(signum)
        code = await asyncio.to_thread(bot.proc.wait, WAIT_CEILING)
        assert code == 0, bot.stderr
        await click
    assert "finishing moves in flight" in bot.stderr
    final = Board.from_string(board_of(emulator.message(message["id"])), k=4)
    assert final.move_count == 2 and final[12] == "X"
    with sqlite3.connect(f"file:{tmp_path / 'ttt.sqlite3'}?mode=ro", uri=True) as conn:
        (moves,) = conn.execute("SELECT moves FROM games").fetchone()
    assert len(moves.split(",")) == 2  # stored, not only shown
    assert [len(row) for row in buttons(emulator.message(message["id"]))] == [5] * 5 + [2]


def engine_workers_of(pid: int) -> list[int]:
    """The engine worker processes (multiprocessing's spawned children) of process ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except (OSError, ValueError):  # not a process, or gone meanwhile
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid and b"spawn_main" in cmdline:
            found.append(int(entry.name))
    return found


async def test_a_sigterm_to_the_process_group_right_after_start_starts_no_engine_pool(
    emulator, tmp_path: Path
) -> None:
    """systemd, and Ctrl-C in a terminal, signal the engine workers along with the bot:
    right after a start, while the hint and review workers still read their tables and
    the shutdown waits for an answer in flight, no pool is started again."""
    env = bot_process_env(emulator, tmp_path / "ttt.sqlite3", TTT_WARM_WORKERS="1")
    bot = BotProcess(env, tmp_path, own_group=True)
    try:
        await bot.wait_until_ready(emulator, 1)

        def both_workers() -> list[int] | None:
            found = engine_workers_of(bot.proc.pid)
            return found if len(found) == 2 else None

        workers = await eventually(both_workers, "the hint and review workers")
        for worker in workers:  # their warm-up held, so the signal finds it in flight
            os.kill(worker, signal.SIGSTOP)
        assert "workers ready" not in bot.stderr, "the warm-up ended before the test held it"
        emulator.faults.hold("POST", CALLBACK, 1.5)  # an answer the shutdown waits for
        start = asyncio.create_task(
            emulator.invoke(emulator.create_user("alice"), "ttt start", {"first": "me"})
        )
        while not any(r.path.endswith("/callback") for r in emulator.requests):
            await asyncio.sleep(0.01)
        os.killpg(bot.proc.pid, signal.SIGTERM)
        for worker in workers:  # they die of the SIGTERM waiting for them
            os.kill(worker, signal.SIGCONT)
        code = await asyncio.to_thread(bot.proc.wait, WAIT_CEILING)
        assert (await start).type == 4
    finally:
        await bot.kill()
    assert code == 0, bot.stderr
    assert "waiting for 1 interaction(s) in flight" in bot.stderr
    assert bot.lines[-1].endswith("bot: stopped")
    assert not [line for line in bot.lines if "WARNING" in line or "ERROR" in line], bot.stderr


async def test_a_dead_engine_worker_does_not_lose_a_move(emulator, tmp_path: Path) -> None:
    """An engine worker killed (by the out-of-memory killer, say): the next 5×5 move is
    still answered, the message shows exactly what was stored, and the games after it
    are served too."""
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3", engine_workers=1, think_time=0.5)
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings) as bot:
        await bot.pool.warm_up()
        (worker,) = bot.pool.worker_pids()
        os.kill(worker, signal.SIGKILL)
        await eventually(lambda: worker not in bot.pool.worker_pids(), "the worker's death")
        message = await start_game(emulator, alice, size=5, difficulty="hard")
        res = await emulator.click(alice, message, cell_id(message, 12))
        assert res.type == 7 and not res.ephemeral
        shown = board_of(await with_marks(emulator, message, 2))  # the reply may come later
        (game,) = await bot.repo.running_games()  # stored before it is shown
        assert game.ply == 2 and shown == game.board.to_string()  # the move and the reply
        assert bot.pool.restarts == 1


@pytest.mark.parametrize("locale", ["en-US", "fr"])
async def test_a_board_discord_refuses_is_answered_and_starts_nothing(
    emulator, settings, locale: str
) -> None:
    alice = emulator.create_user("alice", locale=locale)
    async with running_bot(emulator, settings) as bot:
        emulator.faults.add("POST", CALLBACK, 400, code=50035)  # the board's answer only
        res = await emulator.invoke(alice, "ttt start", {"first": "me"})
        assert res.ephemeral and res.content == text("start.not_posted", locale)
        (game,) = await bot.repo.finished_games_of(emulator.guild.id, alice.id)
        assert game.ending == Ending("abandoned")
        res = await emulator.invoke(alice, "ttt start", {"first": "me"})
        assert res.type == 4 and not res.ephemeral  # the channel was not left blocked


async def test_a_board_deleted_while_the_bot_thinks_ends_the_game_and_answers(
    emulator, tmp_path
) -> None:
    """The member's move is shown early (the bot thinks on 4×4) while a moderator has
    deleted the board: the game is abandoned, the click answered privately, and the
    game's lock, held while the bot thinks, is not waited on by the abandon."""
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3", defer_after=0.0)
    alice = emulator.create_user("alice", locale="de")
    async with running_bot(emulator, settings) as bot:
        res = await emulator.invoke(alice, "ttt start",
                                    {"first": "me", "size": 4, "difficulty": "hard"})  # fmt: skip
        board = res.message
        click = asyncio.ensure_future(emulator.click(alice, board, cell_id(board, 5)))
        await asyncio.sleep(0)  # the click is on its way
        emulator.delete_message(int(board["id"]))
        res = await asyncio.wait_for(click, WAIT_CEILING)
        assert res.ephemeral and res.content == text("game.board_deleted", "de")
        # abandoned once the bot's search, holding the lock, is done
        await eventually(lambda: _no_running_game(bot), "the game abandoned", every=0.05)
        (game,) = await bot.repo.finished_games_of(emulator.guild.id, alice.id)
        assert game.ending == Ending("abandoned") and game.ply == 2  # the reply is kept
        res = await emulator.invoke(alice, "ttt start", {"first": "me"})
        assert res.type == 4 and not res.ephemeral  # nothing hangs on the old game's lock
