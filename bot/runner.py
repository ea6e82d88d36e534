"""The bot's run, once its settings are read (:mod:`bot.__main__` reads them first, so a
wrong setting is told before discord.py, aiohttp and the bot's modules are imported: a
second, not three): open the database, sign in, serve until stopped.

Start-up problems end the process with one line on stderr and a non-zero status; a stop
signal at any moment ends it with 0, the log saying where it stopped.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
import sys
from pathlib import Path
from typing import Any

import aiohttp
import discord
import yarl

from bot import logs
from bot.app import TTTBot
from bot.core.repository import DatabaseError, Repository
from bot.discord_ui import http_answers
from bot.health import HealthError
from bot.settings import Settings
from bot.sharded import make_bot
from bot.storage import SqliteRepository
from bot.web.service import WebServiceError

log = logging.getLogger("bot")


def point_at(settings: Settings) -> None:
    """Send REST and gateway traffic to DISCORD_API_BASE / DISCORD_GATEWAY_URL when set
    (a proxy, or the tests' local emulator); by default both go to Discord."""
    if settings.api_base:
        discord.http.Route.BASE = settings.api_base
    if settings.gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.gateway_url)


async def run(settings: Settings, settings_source: str) -> None:
    """Open the database, sign in, say what was set up, then serve until stopped.

    Nothing is logged before Discord accepted the token, so a rejected one ends the
    start with the single line :func:`main` prints. A stop signal at any moment ends it
    without an error (see :class:`Stop`).
    """
    main = asyncio.current_task()
    assert main is not None
    stop = Stop(main)
    try:
        await _open_and_serve(settings, settings_source, stop)
    except asyncio.CancelledError:
        if not stop.cancelled_start:
            raise
        main.uncancel()  # the stop's own cancel, and it has done its work


async def _open_and_serve(settings: Settings, settings_source: str, stop: Stop) -> None:
    repo = open_repository(settings)
    created = _new_sqlite_files(settings)
    bot: TTTBot | None = None
    try:
        await repo.open()  # a stop may end it: waiting for another process's migrations
        async with make_bot(settings, repo, settings_source=settings_source) as bot:
            stop.bot = bot
            # What the start-up made (the modules above all) lives as long as the process:
            # out of the collector's generations, a full collection need not walk it again
            # (under load, one every few seconds; each walked some 60,000 objects).
            gc.freeze()
            await bot.start(settings.token)
    finally:
        await repo.close()
        if bot is None or not bot.signed_in:  # Discord never let it in: leave no new file
            for path in created:
                path.unlink(missing_ok=True)


class Stop:
    """What SIGTERM and SIGINT do, from the start of the run on: while the bot serves,
    :meth:`TTTBot.close` (the moves in flight finish, then it disconnects); before, the
    start is cancelled where it waits (the database, Discord's answer to the sign-in or
    to the command sync, the web service's start), and the run's own clean-up closes
    what it had opened. Either way the process ends with 0 and says it stopped.

    Closing the client under a start still running failed it instead: its HTTP session
    closed under the sign-in's or the sync's request ("Connector is closed", exit 1).
    """

    def __init__(self, run: asyncio.Task[Any]) -> None:
        self.run = run
        self.bot: TTTBot | None = None
        """The bot, once made (before, the run is opening the database)."""
        self.cancelled_start = False
        self.closing: asyncio.Task[None] | None = None
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, self.received, signum)

    def received(self, signum: int) -> None:
        name = signal.Signals(signum).name
        if self.cancelled_start:  # a second signal must not cut the clean-up short
            log.info("%s received: already stopping", name)
            return
        bot = self.bot
        if bot is not None:
            # At once, not in a task: the signal may have reached the engine workers too.
            bot.begin_close()
        where = "before signing in" if bot is None else bot.starting
        if where is None:
            log.info("%s received: finishing moves in flight, then stopping", name)
            assert bot is not None
            if self.closing is None or self.closing.done():
                self.closing = asyncio.get_running_loop().create_task(bot.close())
            return
        log.info("%s received %s: stopping", name, where)
        self.cancelled_start = True
        self.run.cancel()


def _new_sqlite_files(settings: Settings) -> list[Path]:
    """The SQLite file and its journals, if this start is about to create them."""
    if settings.database_url is not None or settings.database == ":memory:":
        return []
    database = Path(settings.database)
    if database.exists():
        return []
    return [database, *(Path(f"{database}{suffix}") for suffix in ("-wal", "-shm"))]


def open_repository(settings: Settings) -> Repository:
    """PostgreSQL when TTT_DATABASE_URL is set (several processes may share it), else the
    SQLite file. Not yet opened.

    Raises:
        DatabaseError: PostgreSQL asked for without the driver installed.
    """
    if settings.database_url is None:
        return SqliteRepository(settings.database)
    try:
        from bot.storage.postgres import PostgresRepository
    except ImportError:
        raise DatabaseError(
            "TTT_DATABASE_URL needs the PostgreSQL driver: pip install -e '.[postgres]'"
        ) from None
    return PostgresRepository(settings.database_url, pool_size=settings.db_pool_size)


def serve(settings: Settings, settings_source: str) -> int:
    """Run the bot with ``settings`` until it is stopped: its exit status (0, or 1 after
    the one line that says what stopped the start)."""
    logs.setup(settings.log_level, settings.log_format)
    point_at(settings)
    if settings.public_key is not None and (lacking := http_answers.internals_problems()):
        print(f"ttt-bot: DISCORD_PUBLIC_KEY is set, but discord.py {discord.__version__} lacks "
              f"what answering over HTTP needs: {'; '.join(lacking)}", file=sys.stderr)  # fmt: skip
        return 1
    try:
        asyncio.run(run(settings, settings_source))
    except (DatabaseError, HealthError, WebServiceError) as exc:
        print(f"ttt-bot: {exc}", file=sys.stderr)
        return 1
    except discord.LoginFailure:
        print(
            "ttt-bot: Discord rejected DISCORD_TOKEN: copy the bot token again from the "
            "Developer Portal (Bot → Reset Token) into .env",
            file=sys.stderr,
        )
        return 1
    except (aiohttp.ClientError, TimeoutError) as exc:
        where = settings.api_base or "https://discord.com/api"
        print(f"ttt-bot: cannot reach Discord at {where}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    log.info("stopped")
    return 0
