"""Stops are clean at every moment: SIGTERM ends ``python -m bot`` with 0 and a log line
saying where it stopped, whichever kind of process it is and wherever its start-up is,
and leaves nothing open behind it.

Each point is reached by holding what the process waits for there, never by a sleep:

==========================  ================================================================
before signing in           PostgreSQL's migration lock, taken by the test: the process waits
                            in opening the database, as beside another process migrating it
signing in                  the emulator holds ``GET /users/@me``
starting the web service    tests/held_web_start.py holds the start once the port listens
                            (the start asks Discord nothing the emulator could hold)
syncing the slash commands  the emulator holds ``PUT /applications/{id}/commands``
serving                     nothing held: /readyz says ready and the log says it serves
connecting to the gateway   (sharded) the emulator holds ``GET /gateway/bot``, asked in the
                            shard's turn to IDENTIFY
==========================  ================================================================

The three kinds: the gateway bot with the Activity's web service; ``TTT_WEB_ONLY`` (the
Activity only, on PostgreSQL, which it requires); ``TTT_GATEWAY=off`` (interactions over
HTTP). The web-only process syncs no commands (the gateway's processes do), so it has
four points; with the sharded gateway bot's connection, fifteen cases. The SQLite kinds
run on PostgreSQL for the first point.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import asyncpg  # type: ignore[import-untyped]
import pytest
from held_web_start import HELD

from bot.storage.postgres_migrations import MIGRATION_LOCK

from bot_harness import BotProcess, bot_process_env, eventually, free_port
from discord_emulator import DiscordEmulator
from discord_emulator.interactions import WAIT_CEILING

HELD_WEB_START = Path(__file__).with_name("held_web_start.py")


@dataclass(frozen=True)
class Kind:
    name: str
    settings: dict[str, str]
    postgres: bool
    """Whether it needs TTT_DATABASE_URL (else it runs on a SQLite file)."""
    serving: str
    """The log line said once it serves (nothing awaited between it and serving)."""
    syncs: bool


KINDS = [
    Kind("gateway", {}, False, "connected to the gateway as", True),
    Kind("web_only", {"TTT_WEB_ONLY": "true"}, True, "web only: no gateway connection", False),
    Kind("http", {"TTT_GATEWAY": "off", "DISCORD_PUBLIC_KEY": ""}, False,
         "slash commands: synced", True),
]  # fmt: skip
POINTS = {  # each point, and what the process logs when stopped there
    "before signing in": "SIGTERM received before signing in: stopping",
    "signing in": "SIGTERM received while signing in: stopping",
    "starting the web service": "SIGTERM received while starting the web service: stopping",
    "syncing the slash commands": "SIGTERM received while syncing the slash commands: stopping",
    "serving": "SIGTERM received: finishing moves in flight, then stopping",
    "connecting to the gateway": "SIGTERM received while connecting to the gateway: stopping",
}
SIGNED_IN = {"syncing the slash commands", "connecting to the gateway", "serving"}
"""The points past Discord's accepting the token, from which a new SQLite file is kept."""
SHARDED = Kind("sharded", {"TTT_SHARD_COUNT": "1"}, True, "connected to the gateway as", True)
"""The gateway bot as one of several processes sharing the shards: its connection waits
for its turn to IDENTIFY (Discord's 5 s per concurrency bucket, across the processes)."""
CASES = [
    *(
        pytest.param(kind, point, id=f"{kind.name}-{point.replace(' ', '-')}")
        for kind in KINDS
        for point in list(POINTS)[:5]
        if kind.syncs or point != "syncing the slash commands"
    ),
    pytest.param(SHARDED, "connecting to the gateway", id="sharded-connecting-to-the-gateway"),
]


class HeldStartProcess(BotProcess):
    """tests/held_web_start.py instead of ``python -m bot``: the same bot, its web
    service's start held."""

    def __init__(self, env: dict[str, str], cwd: Path) -> None:
        self.own_group = False
        self.proc = subprocess.Popen(
            [sys.executable, str(HELD_WEB_START)], env=env, cwd=cwd,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        self.lines = []
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()


async def readyz(port: int) -> int:
    url = f"http://127.0.0.1:{port}/readyz"
    with contextlib.suppress(aiohttp.ClientError):
        async with aiohttp.ClientSession() as http, http.get(url) as response:
            return response.status
    return 0


async def migration_waiters(conn: object) -> int:
    """Sessions waiting for an advisory lock in this database (the process, at its
    migrations)."""
    return int(
        await conn.fetchval(  # type: ignore[attr-defined]
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
        )
    )


async def test_a_held_request_is_answered_once_released(emulator: DiscordEmulator) -> None:
    hold = emulator.hold("GET", r"^/users/@me$")
    headers = {"Authorization": f"Bot {emulator.token}"}
    async with aiohttp.ClientSession() as http:

        async def me() -> tuple[int, dict[str, object]]:
            async with http.get(f"{emulator.api_base}/users/@me", headers=headers) as response:
                return response.status, await response.json()

        asking = asyncio.ensure_future(me())
        await asyncio.wait_for(hold.reached.wait(), WAIT_CEILING)
        assert not asking.done() and hold.paths == ["/users/@me"]
        hold.release()
        status, body = await asking
        assert (status, body["id"]) == (200, str(emulator.application_id))
        assert (await me())[0] == 200  # held once: the next is answered at once
    assert [(r.method, r.path) for r in emulator.requests] == [("GET", "/users/@me")] * 2


@pytest.mark.slow  # a bot process per case
@pytest.mark.parametrize(("kind", "point"), CASES)
async def test_sigterm_at_each_point_of_the_start_exits_0_and_says_it_stopped(
    emulator: DiscordEmulator, tmp_path: Path, request: pytest.FixtureRequest, kind: Kind,
    point: str,
) -> None:  # fmt: skip
    health = free_port()
    database = tmp_path / "ttt.sqlite3"
    settings = {
        "TTT_HEALTH_PORT": str(health), "TTT_WEB_PORT": str(free_port()),
        "DISCORD_CLIENT_SECRET": emulator.client_secret, **kind.settings,
    }  # fmt: skip
    if "DISCORD_PUBLIC_KEY" in settings:
        settings["DISCORD_PUBLIC_KEY"] = emulator.public_key
    dsn: str | None = None
    if kind.postgres or point == "before signing in":
        dsn = request.getfixturevalue("pg_database")
        settings["TTT_DATABASE_URL"] = dsn
    env = bot_process_env(emulator, database, **settings)
    env["PYTHONWARNINGS"] = "always::ResourceWarning"  # what a stop left open is told

    locker = None
    if point == "before signing in":  # another process migrating the shared database
        locker = await asyncpg.connect(dsn)
        await locker.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
    hold = None
    if point == "signing in":
        hold = emulator.hold("GET", r"^/users/@me$")
    elif point == "syncing the slash commands":
        hold = emulator.hold("PUT", rf"^/applications/{emulator.application_id}/commands$")
    elif point == "connecting to the gateway":  # its turn to IDENTIFY asks for the limits
        hold = emulator.hold("GET", r"^/gateway/bot$")

    bot = (HeldStartProcess if point == "starting the web service" else BotProcess)(env, tmp_path)
    try:

        async def there() -> bool:
            assert bot.proc.poll() is None, bot.stderr
            if locker is not None:
                return await migration_waiters(locker) == 1
            if hold is not None:
                return hold.reached.is_set()
            if point == "starting the web service":
                return HELD in bot.lines
            return await readyz(health) == 200 and kind.serving in bot.stderr

        await eventually(there, f"{kind.name} process {point}", every=0.02)
    finally:
        code = await bot.stop(signal.SIGTERM)
        if locker is not None:
            await locker.close()
    log = bot.stderr
    assert code == 0, log
    assert POINTS[point] in log, log  # it knew where it was
    assert bot.lines[-1].endswith("bot: stopped"), log
    for trouble in ("Traceback", "ERROR", "Unclosed", "was never retrieved", "Task was destroyed",
                    "ResourceWarning"):  # fmt: skip
        assert trouble not in log, log
    if point == "before signing in":
        assert emulator.requests == []  # it never reached Discord
    if dsn is None:  # a start Discord never let in leaves no file behind; a later one keeps it
        assert database.exists() == (point in SIGNED_IN), [p.name for p in tmp_path.iterdir()]
