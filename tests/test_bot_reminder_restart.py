"""A reminder's DM under a SIGKILL: ``python -m bot`` is killed while Discord holds the
DM it is sending (its outbox row claimed ``sending``, not yet marked), then started again
on the same database. The DM is never sent a second time, and the next turn's reminder
goes as usual."""

from __future__ import annotations

import signal
from pathlib import Path

from test_bot_correspondence import press

from bot_harness import bot_process, bot_process_env, cell_id
from discord_emulator import DiscordEmulator


async def test_a_process_killed_mid_send_never_sends_that_reminder_twice(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    env = bot_process_env(emulator, tmp_path / "ttt.sqlite3", TTT_DM_PER_MINUTE="600",
                          TTT_LOG_LEVEL="INFO")  # fmt: skip
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    to_bob = f"/channels/{emulator.dm_channel(bob).id}/messages"
    to_alice = f"/channels/{emulator.dm_channel(alice).id}/messages"

    def posts(path: str) -> int:
        return sum(1 for r in emulator.requests if r.method == "POST" and r.path == path)

    async with bot_process(emulator, env, tmp_path, ready=1) as first:
        for member in (alice, bob):
            res = await emulator.invoke(member, "ttt notify", {"mode": "every"})
            assert res.ephemeral, res.content
        res = await emulator.invoke(alice, "ttt start", {"opponent": bob, "first": "me", "pace": 1})
        res = await emulator.click(bob, res.message, press(res.message, "Accept"))
        board = res.message
        await emulator.wait_for_message(  # alice's first move's reminder (at acceptance)
            lambda m: m["channel_id"] == str(emulator.dm_channel(alice).id),
            include_existing=True,
        )
        held = emulator.hold("POST", f"^{to_bob}$")
        res = await emulator.click(alice, board, cell_id(board, 4))
        board = res.message
        await held.reached.wait()  # bob's reminder is on its way: claimed, not marked
        assert await first.kill() == -signal.SIGKILL
        held.release()  # Discord handles it or not: either way it was sent once at most

    async with bot_process(emulator, env, tmp_path, ready=2):
        res = await emulator.click(bob, board, cell_id(board, 0))  # the next turn: alice's
        assert res.type == 7, res.content
        await emulator.wait_for_message(
            lambda m: (
                m["channel_id"] == str(emulator.dm_channel(alice).id)
                and len(emulator.channel_messages(emulator.dm_channel(alice))) == 2
            ),
            include_existing=True,
        )  # the restarted process's sender runs (it sent alice's reminder)
        assert posts(to_bob) == 1  # bob's was tried once, never again
        assert posts(to_alice) == 2
    assert emulator.violations == []
