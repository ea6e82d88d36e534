"""Restart safety with a real process: ``python -m bot`` is killed with SIGKILL (no chance
to clean up) and started again on the same database, while the emulator, running in the
test's event loop, keeps the messages members still see and click."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import signal
import sqlite3
import time
from pathlib import Path

from engine import Board

from bot_harness import board_of, bot_process, bot_process_env, cell_buttons, cell_id
from discord_emulator import DiscordEmulator, buttons, find_button


def env_for(emu: DiscordEmulator, tmp_path: Path, **settings: str) -> dict[str, str]:
    # Every setting is given explicitly: these tests are about restarts, not defaults
    # (test_bot_startup checks that a bot started with only the defaults reaches READY).
    values = {
        "TTT_DEFAULT_DIFFICULTY": "hard",
        "TTT_TURN_TIMEOUT": "300",
        "TTT_CHALLENGE_TIMEOUT": "300",
        "TTT_LOG_LEVEL": "INFO",
    }
    return bot_process_env(emu, tmp_path / "ttt.sqlite3", **(values | settings))


async def wait_attached(tmp_path: Path, message_id: str, timeout: float = 5.0) -> None:
    """Until the bot stored ``message_id`` as a game's or challenge's message. Discord
    tells the bot the id only in the reply to its response, so the row is written a
    moment after the member already sees the message; a kill in between is the subject
    of its own test below."""
    uri = f"file:{tmp_path / 'ttt.sqlite3'}?mode=ro"

    def stored() -> bool:
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as conn:
            return (
                conn.execute(
                    "SELECT 1 FROM games WHERE message_id = ?1"
                    " UNION ALL SELECT 1 FROM challenges WHERE message_id = ?1",
                    (int(message_id),),
                ).fetchone()
                is not None
            )

    deadline = time.monotonic() + timeout
    while not await asyncio.to_thread(stored):
        if time.monotonic() > deadline:
            raise TimeoutError(f"message {message_id} was never stored")
        await asyncio.sleep(0.02)


def cells(message: dict) -> list[dict]:
    return cell_buttons(message)


def edited_at(message: dict) -> float:
    return dt.datetime.fromisoformat(message["edited_timestamp"]).timestamp()


async def test_a_game_continues_on_its_old_message_after_sigkill(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    env = env_for(emulator, tmp_path)
    alice = emulator.create_user("alice")
    async with bot_process(emulator, env, tmp_path, ready=1) as first:
        res = await emulator.invoke(alice, "ttt start", {"difficulty": "hard", "first": "me"})
        assert res.type == 4, res.content
        message_id = res.message["id"]
        res = await emulator.click(alice, res.message, cell_id(res.message, 4))
        assert res.type == 7, res.content
        before_kill = res.message
        assert Board.from_string(board_of(before_kill)).move_count == 2  # alice's and the bot's
        assert await first.kill() == -signal.SIGKILL

    async with bot_process(emulator, env, tmp_path, ready=2):
        old = emulator.message(message_id)  # what members still see: the pre-kill board
        assert board_of(old) == board_of(before_kill)
        board = Board.from_string(board_of(old))
        cell = board.legal_moves()[0]
        res = await emulator.click(alice, old, cell_id(old, cell))
        assert res.type == 7 and not res.ephemeral, res.content
        assert res.message["id"] == message_id
        after = Board.from_string(board_of(res.message))
        assert after.move_count == board.move_count + 2  # the move and the bot's reply
        assert after[cell] == "X"
        assert all(after[c] == board[c] for c in range(9) if board[c] is not None)

        # A member whose client still shows the pre-kill board clicks an empty square on
        # it: refused privately, and the board stays as it is.
        stale_cell = after.legal_moves()[0]
        stale_id = cell_id(before_kill, stale_cell)
        assert stale_id not in {b["custom_id"] for b in cells(emulator.message(message_id))}
        stale = await emulator.click(alice, message_id, stale_id, force=True)
        assert stale.type == 4 and stale.ephemeral
        assert "out of date" in stale.content
        assert board_of(emulator.message(message_id)) == board_of(res.message)


async def test_a_pending_challenge_can_be_accepted_after_sigkill(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    env = env_for(emulator, tmp_path)
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with bot_process(emulator, env, tmp_path, ready=1) as first:
        res = await emulator.invoke(alice, "ttt start", {"opponent": bob, "first": "me"})
        assert res.type == 4 and not res.ephemeral, res.content
        message_id = res.message["id"]
        accept = find_button(res.message, label="Accept")
        assert accept is not None
        await first.kill()

    async with bot_process(emulator, env, tmp_path, ready=2):
        res = await emulator.click(bob, message_id, accept["custom_id"])
        assert res.type == 7 and not res.ephemeral, res.content
        assert res.message["id"] == message_id
        assert board_of(res.message) == "........."
        assert len(cells(res.message)) == 9
        assert find_button(res.message, label="Accept") is None
        assert find_button(res.message, label="Resign") is not None
        # first: me, so the challenger plays X
        assert res.content.startswith(f"❌ <@{alice.id}>  vs  ⭕ <@{bob.id}>")

        # and the game is playable: bob must wait, alice moves
        res = await emulator.click(bob, message_id, cell_id(res.message, 0))
        assert res.ephemeral and "not your turn" in res.content
        res = await emulator.click(alice, message_id, cell_id(emulator.message(message_id), 0))
        assert res.type == 7 and board_of(res.message) == "X........"


async def test_what_expired_while_down_is_shown_at_start_up(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    env = env_for(emulator, tmp_path, TTT_TURN_TIMEOUT="3", TTT_CHALLENGE_TIMEOUT="3")
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    duel = emulator.create_channel(emulator.guild, "duel")
    async with bot_process(emulator, env, tmp_path, ready=1) as first:
        started = time.time()
        game = await emulator.invoke(alice, "ttt start", {"difficulty": "hard", "first": "me"})
        challenge = await emulator.invoke(alice, "ttt start", {"opponent": bob}, channel=duel)
        await wait_attached(tmp_path, game.message["id"])
        await wait_attached(tmp_path, challenge.message["id"])
        await first.kill()
        killed = time.time()
    game_id, challenge_id = game.message["id"], challenge.message["id"]
    assert killed < started + 3, "the process must die before the deadlines"
    # nothing was resolved before the kill
    assert "to move" in emulator.message(game_id)["content"]
    assert find_button(emulator.message(challenge_id), label="Accept") is not None

    await asyncio.sleep(max(0.0, started + 3.3 - time.time()))
    async with bot_process(emulator, env, tmp_path, ready=2):
        timed_out = await emulator.wait_for_message(
            lambda m: m["id"] == game_id and "ran out of time" in m["content"],
            include_existing=True,
        )
        expired = await emulator.wait_for_message(
            lambda m: m["id"] == challenge_id and "expired" in m["content"],
            include_existing=True,
        )
    assert f"<@{alice.id}> ran out of time. **the bot (hard) wins.**" in timed_out["content"]
    assert len(cells(timed_out)) == 9
    assert all(b.get("disabled") for b in cells(timed_out))
    assert find_button(timed_out, label="Resign") is None
    assert find_button(timed_out, label="Rematch") is not None
    assert expired["content"] == (
        f"<@{alice.id}>'s challenge to <@{bob.id}> expired without an answer."
    )
    assert buttons(expired) == []


async def test_an_unchanged_command_tree_is_not_synced_again(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    def command_puts() -> list[str]:
        return [r.path for r in emulator.requests if r.method == "PUT" and "/commands" in r.path]

    env = env_for(emulator, tmp_path)
    async with bot_process(emulator, env, tmp_path, ready=1):
        await emulator.wait_for_commands(count=1)
    assert emulator.sync_count == 1
    assert command_puts() == [f"/applications/{emulator.application_id}/commands"]

    # The sync decision is made in setup_hook, which discord.py runs before it opens the
    # gateway: once READY #2 arrived, the second process has decided. A short settle
    # catches a sync moved after READY.
    async with bot_process(emulator, env, tmp_path, ready=2):
        await asyncio.sleep(0.3)
        assert emulator.sync_count == 1
        assert len(command_puts()) == 1
        # the commands from the first sync still work
        res = await emulator.invoke(emulator.create_user("alice"), "ttt help")
        assert res.ephemeral and "Tic-tac-toe" in res.content

    # A changed target does sync: the check is not "never sync again".
    guild_env = env | {"TTT_DEV_GUILD_ID": str(emulator.guild.id)}
    async with bot_process(emulator, guild_env, tmp_path, ready=3):
        await emulator.wait_for_commands(count=2)
    assert command_puts()[1:] == [
        f"/applications/{emulator.application_id}/guilds/{emulator.guild.id}/commands"
    ]


async def test_a_kill_before_the_message_id_is_stored_still_shows_the_timeout(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    env = env_for(emulator, tmp_path, TTT_TURN_TIMEOUT="1")
    alice = emulator.create_user("alice")
    async with bot_process(emulator, env, tmp_path, ready=1) as first:

        def kill_on_board(message: dict) -> bool:
            # Runs inside the emulator's handling of the bot's response, before the bot
            # gets the HTTP reply carrying the message id: the bot dies in that window.
            if "⬜" in message["content"]:
                first.proc.send_signal(signal.SIGKILL)
                return True
            return False

        shown = asyncio.ensure_future(emulator.wait_for_message(kill_on_board))
        res = await emulator.invoke(alice, "ttt start", {"difficulty": "hard", "first": "me"})
        assert res.type == 4
        await shown
        assert await first.kill() == -signal.SIGKILL

    channel_id = str(emulator.channel.id)
    async with bot_process(emulator, env, tmp_path, ready=2):
        # edited in place or said in a new message: either way the channel learns it
        await emulator.wait_for_message(
            lambda m: m["channel_id"] == channel_id and "ran out of time" in m["content"],
            include_existing=True,
        )
