"""Correspondence deadlines on a real ``python -m bot`` whose clock is moved with Debian's
``faketime`` (libfaketime): days pass in a second, nobody sleeps. The emulator, in this
test's process, keeps the real clock, as Discord would.

Only the wall clock is moved (``FAKETIME_DONT_FAKE_MONOTONIC``): a server whose clock is
stepped forward keeps its monotonic clock, and asyncio's timers, discord.py's heartbeats
and the timekeeper's sleeps run on it. What the bot reads from the wall clock (a game's
deadline, a stored time) is then two days ahead of what Discord writes: an interaction's
snowflake looks two days old to the bot, which answers it all the same (Discord judges
the 3 s and the 15 minutes of a token on its own clock). Over HTTP it would not: the bot
refuses a signed POST whose timestamp is more than a few seconds off its clock
(``bot/web/signature.py``), so a machine whose clock is wrong by days receives no HTTP
interaction at all; these tests use the gateway.

Skipped, with the reason, where ``faketime`` is absent; under ``CI=true`` that fails
(``.ci/run`` installs it).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot_harness import (
    BotProcess,
    board_of,
    bot_process,
    bot_process_env,
    cell_buttons,
    cell_id,
)
from correspondence_harness import press
from discord_emulator import DiscordEmulator


@functools.cache
def preload() -> str:
    """The library ``faketime`` preloads, as it names it (``/usr/$LIB/faketime/...``, which
    the dynamic linker completes): asked of the command itself, so it is found wherever
    the distribution put it. Skips the test without ``faketime`` (fails under CI)."""
    command = shutil.which("faketime")
    if command is None:
        reason = "faketime is not installed (Debian: apt-get install faketime)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(reason + " - CI must move a bot's clock", pytrace=False)
        pytest.skip(reason)
    shown = subprocess.run([command, "-f", "+0", "/usr/bin/env"], capture_output=True,
                           text=True, check=True).stdout  # fmt: skip
    (library,) = [line.split("=", 1)[1] for line in shown.splitlines()
                  if line.startswith("LD_PRELOAD=")]  # fmt: skip
    return library


def moved_by(offset: str) -> dict[str, str]:
    """What a process's environment needs for its wall clock to be ``offset`` ahead
    (``"+2d"``), as ``faketime -f +2d python -m bot`` would start it. Not through the
    command itself: it runs the bot as its child and waits, so the SIGKILL a test sends
    would leave the bot running (and holding its database) and faketime's shared memory
    in /dev/shm."""
    return {"LD_PRELOAD": preload(), "FAKETIME": offset}


def movable_clock(clock_file: Path, offset: str = "+0") -> dict[str, str]:
    """What a process's environment needs for its wall clock to follow ``clock_file``
    while it runs: the test writes an offset there (``"+2d"``, ``"+25h"``; not ``"+1d1h"``,
    which libfaketime does not read as one) and the next reading of the clock has it."""
    clock_file.write_text(offset + "\n")
    return {
        "LD_PRELOAD": preload(),
        "FAKETIME_TIMESTAMP_FILE": str(clock_file),
        "FAKETIME_NO_CACHE": "1",  # else the file is read again only every 10 s
    }


@contextlib.asynccontextmanager
async def faked_bot(
    emu: DiscordEmulator, env: dict[str, str], cwd: Path, *, ready: int
) -> AsyncIterator[BotProcess]:
    """A bot process under libfaketime (``env`` from :func:`moved_by` or
    :func:`movable_clock`), stopped by SIGTERM at the end: libfaketime keeps two files in
    /dev/shm per process, named after its pid, and removes them when the process exits
    properly. A process killed (a failed test) leaves them, and a later process given the
    same pid would then fail to start under libfaketime; they are removed here."""
    async with bot_process(emu, env, cwd, ready=ready) as bot:
        try:
            yield bot
            if bot.proc.poll() is None:  # not killed by the test
                assert await bot.stop(signal.SIGTERM) == 0, bot.stderr
        finally:
            await bot.kill()
            for name in (f"faketime_shm_{bot.proc.pid}", f"sem.faketime_sem_{bot.proc.pid}"):
                (Path("/dev/shm") / name).unlink(missing_ok=True)


def env_for(emu: DiscordEmulator, tmp_path: Path, **extra: str) -> dict[str, str]:
    return bot_process_env(
        emu, tmp_path / "ttt.sqlite3",
        TTT_TURN_TIMEOUT="300", TTT_CHALLENGE_TIMEOUT="300", TTT_LOG_LEVEL="INFO",
        FAKETIME_DONT_FAKE_MONOTONIC="1", **extra,
    )  # fmt: skip


async def correspondence_game(emu: DiscordEmulator, alice, bob, days: int) -> dict:
    """A game of ``days`` a move from alice (X) to bob, accepted: its board message."""
    res = await emu.invoke(alice, "ttt start", {"opponent": bob, "first": "me", "pace": days})
    assert res.type == 4 and not res.ephemeral, res.content
    res = await emu.click(bob, res.message, press(res.message, "Accept"))
    assert res.type == 7 and f"{days} day" in res.message["content"], res.content
    return res.message


def edits_of(emu: DiscordEmulator, message_id: str) -> int:
    """How many times the bot edited ``message_id`` over REST (an interaction's answer
    that edits it is not counted: a timekeeper has none)."""
    return sum(1 for r in emu.requests if r.method == "PATCH" and r.path.endswith(message_id))


async def rows_of(emu: DiscordEmulator, member) -> list[str]:
    """The leaderboard's rows, as ``member`` sees them."""
    res = await emu.invoke(member, "ttt leaderboard")
    assert res.embeds, res.content
    return str(res.embeds[0]["description"]).splitlines()[1:]


async def test_a_deadline_passed_while_down_is_settled_once_at_start_up(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    clock_file = tmp_path / "clock"
    env = env_for(emulator, tmp_path)
    async with faked_bot(emulator, env | movable_clock(clock_file), tmp_path, ready=1) as first:
        board = await correspondence_game(emulator, alice, bob, 1)
        res = await emulator.click(alice, board, cell_id(board, 4))
        assert res.type == 7 and board_of(res.message) == "....X...."
        board = res.message
        # a 3-day game nobody moves in: cancelled when the clock is four days on
        unplayed = await correspondence_game(emulator, bob, alice, 3)

        # Bob's day is over on this process's clock; its timekeeper sleeps until its next
        # check, a minute after its last (its safety net): bob's move is refused by the
        # clock alone, the game still running.
        clock_file.write_text("+25h\n")
        late = await emulator.click(bob, board, cell_id(board, 0))
        assert late.ephemeral and late.content.startswith("Too late:"), late.content
        assert emulator.message(board["id"])["content"] == board["content"]
        assert await first.kill() < 0  # as a crash would: no chance to clean up

    # Started again two days on: its start-up pass finds bob's deadline passed while
    # nothing ran.
    async with faked_bot(emulator, env | moved_by("+2d"), tmp_path, ready=2):
        ended = await emulator.wait_for_message(
            lambda m: m["id"] == board["id"] and "ran out of time" in m["content"],
            include_existing=True,
        )
        assert f"<@{bob.id}> ran out of time. **<@{alice.id}> wins.**" in ended["content"]
        assert board_of(ended) == "....X...."  # bob's late move was never played
        assert all(b.get("disabled") for b in cell_buttons(ended))
        # the board bob still had from before the restart: refused, nothing changed
        stale = await emulator.click(bob, board["id"], cell_id(board, 0), force=True)
        assert stale.ephemeral and stale.content.startswith("This game is over."), stale.content
        assert await rows_of(emulator, bob) == [
            f"1. <@{alice.id}> — **1016** (1-0-0)",
            f"2. <@{bob.id}> — **984** (0-1-0)",
        ]
        assert "Cancelled" not in emulator.message(unplayed["id"])["content"]  # 3 days: not yet
    edited = edits_of(emulator, board["id"])

    # Started again four days on: the 3-day game is cancelled (so this process's pass ran),
    # and bob's loss is neither settled again nor counted twice.
    async with faked_bot(emulator, env | moved_by("+4d"), tmp_path, ready=3):
        cancelled = await emulator.wait_for_message(
            lambda m: m["id"] == unplayed["id"] and "Cancelled" in m["content"],
            include_existing=True,
        )
        assert "Cancelled: nobody made the first move in time. Unrated." in cancelled["content"]
        assert edits_of(emulator, board["id"]) == edited
        history = await emulator.invoke(alice, "ttt history")
        cancelled_line, won_line = str(history.embeds[0]["description"]).splitlines()
        assert cancelled_line.startswith(f"**No result** vs <@{bob.id}> — no first move in time")
        assert won_line.startswith(f"**Win** vs <@{bob.id}> — time out")
        assert emulator.message(board["id"])["content"] == ended["content"]
        assert await rows_of(emulator, alice) == [
            f"1. <@{alice.id}> — **1016** (1-0-0)",
            f"2. <@{bob.id}> — **984** (0-1-0)",
        ]


async def test_a_running_bot_settles_a_deadline_its_clock_passes(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    carol, dave = emulator.create_user("carol"), emulator.create_user("dave")
    clock_file = tmp_path / "clock"
    env = env_for(emulator, tmp_path) | movable_clock(clock_file) | {"TTT_CHALLENGE_TIMEOUT": "4"}
    async with faked_bot(emulator, env, tmp_path, ready=1):
        board = await correspondence_game(emulator, alice, bob, 1)
        res = await emulator.click(alice, board, cell_id(board, 0))
        assert res.type == 7
        # The timekeeper sleeps at most a minute between its passes (and a deadline stored
        # after the clock jumped forward does not wake it: it is later than the pass it
        # planned); a live challenge expiring in 4 s brings its next one sooner. The clock
        # moves two days as soon as the challenge is answered, which Discord's 3 s bound,
        # so that pass finds bob's day over too.
        other = emulator.create_channel(emulator.guild, "other")
        live = await emulator.invoke(carol, "ttt start", {"opponent": dave}, channel=other)
        assert live.type == 4 and "Correspondence" not in live.content
        clock_file.write_text("+2d\n")
        ended = await emulator.wait_for_message(
            lambda m: m["id"] == board["id"] and "ran out of time" in m["content"],
            include_existing=True,
        )
        assert f"<@{bob.id}> ran out of time. **<@{alice.id}> wins.**" in ended["content"]
        assert board_of(ended) == "X........"
        await emulator.wait_for_message(  # the same pass
            lambda m: m["id"] == live.message["id"] and "expired" in m["content"],
            include_existing=True,
        )
        assert await rows_of(emulator, bob) == [
            f"1. <@{alice.id}> — **1016** (1-0-0)",
            f"2. <@{bob.id}> — **984** (0-1-0)",
        ]
