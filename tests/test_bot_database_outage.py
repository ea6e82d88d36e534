"""PostgreSQL out of reach for a while (the database refusing connections, every backend
terminated: what a restart of the server looks like to the bot): every interaction is
still answered, and what fell due meanwhile shows within seconds of its return."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator, Iterator
from urllib.parse import urlsplit

import asyncpg
import pytest

from bot.core.models import Ending

from bot_harness import board_of, cell_id, running_bot, settings_for
from discord_emulator import DiscordEmulator

pytestmark = pytest.mark.postgres


@contextlib.asynccontextmanager
async def out_of_reach(pg_server, dsn: str, listener_too: bool) -> AsyncIterator[None]:
    """No new connection to the database, and every one there is cut (but the bot's
    notification connection, unless ``listener_too``), until the block ends
    (ALLOW_CONNECTIONS false, pg_terminate_backend: the server stays up for the other
    tests)."""
    name = urlsplit(dsn).path.lstrip("/")
    admin = await asyncpg.connect(pg_server.admin_dsn)
    try:
        await admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1"
            " AND ($2 OR application_name <> 'ttt-bot listener')", name, listener_too,
        )  # fmt: skip
        yield
    finally:
        await admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
        await admin.close()


@pytest.mark.parametrize("listener_too", [True, False], ids=["all", "queries only"])
async def test_an_outage_is_answered_and_a_timeout_due_in_it_shows_soon_after(
    emulator: DiscordEmulator, pg_server, pg_database: str, tmp_path, listener_too: bool
) -> None:
    """The timeout shows by the timekeeper's retries (the queries only: the notifications
    never stopped), or by the notification connection's return (everything cut)."""
    settings = settings_for(emulator, tmp_path / "unused.sqlite3", database_url=pg_database,
                            turn_timeout=3.0)  # fmt: skip
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings) as bot:
        start = await emulator.invoke(alice, "ttt start", {"first": "me", "difficulty": "hard"})
        board = start.message
        async with out_of_reach(pg_server, pg_database, listener_too):
            res = await emulator.click(alice, board, cell_id(board, 4))
            assert res.type is not None and res.ephemeral  # the apology, in time
            assert board_of(emulator.message(board["id"])) == "." * 9  # nothing shown
            await asyncio.sleep(4)  # the turn's deadline passes while out of reach
        back = asyncio.get_running_loop().time()
        for _ in range(200):
            if "ran out of time" in emulator.message(board["id"])["content"]:
                break
            await asyncio.sleep(0.05)
        shown_after = asyncio.get_running_loop().time() - back
        assert "ran out of time" in emulator.message(board["id"])["content"]
        assert shown_after < 5, f"the timeout showed {shown_after:.1f} s after the database"
        (game,) = await bot.repo.finished_games_of(emulator.guild.id, alice.id)
        assert game.ending == Ending("timeout", "O") and game.moves == ()
    assert not emulator.violations


def server_processes(pg_server) -> list[int]:
    """The PostgreSQL server's postmaster and every process it started."""
    postmaster = int((pg_server.data_dir / "postmaster.pid").read_text().split()[0])
    children = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError), open(f"/proc/{entry}/stat") as file:
                if int(file.read().rpartition(")")[2].split()[1]) == postmaster:
                    children.append(int(entry))
    return [postmaster, *children]


@contextlib.contextmanager
def frozen(pg_server) -> Iterator[None]:
    """The server stopped dead (SIGSTOP): connections stay open, nothing answers."""
    processes = server_processes(pg_server)
    for pid in processes:
        os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        for pid in processes:
            os.kill(pid, signal.SIGCONT)


async def test_a_frozen_database_still_gets_every_interaction_answered_in_time(
    emulator: DiscordEmulator, pg_server, pg_database: str, tmp_path
) -> None:
    """Queries time out: each interaction gets the apology within Discord's 3 s (the
    emulator records a violation otherwise), and the bot plays on once the server does."""
    settings = settings_for(emulator, tmp_path / "unused.sqlite3", database_url=pg_database)
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    elsewhere = emulator.create_channel(emulator.guild, "elsewhere")
    async with running_bot(emulator, settings):
        start = await emulator.invoke(alice, "ttt start", {"first": "me", "difficulty": "hard"})
        board = start.message
        with frozen(pg_server):
            answers = await asyncio.gather(
                emulator.click(alice, board, cell_id(board, 4)),
                emulator.invoke(bob, "ttt start", {"first": "me"}, channel=elsewhere),
                emulator.invoke(alice, "ttt stats"),
            )
            for res in answers:
                assert res.type is not None and res.ephemeral, res
            await asyncio.sleep(0.5)
        assert board_of(emulator.message(board["id"])) == "." * 9  # nothing was stored
        res = await emulator.click(alice, board, cell_id(board, 4))
        assert res.type == 7 and board_of(res.message)[4] == "X"
    assert not emulator.violations, emulator.violations
