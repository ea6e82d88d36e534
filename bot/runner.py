"""The bot's run, once its settings are read (:mod:`bot.__main__` reads them first, so a
wrong setting is told before discord.py, aiohttp and the bot's modules are imported: a
second, not three): open the database, sign in, serve until stopped.

Start-up problems end the process with one line on stderr and a non-zero status.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
import sys
from pathlib import Path

import aiohttp
import discord
import yarl

from bot import logs
from bot.app import TTTBot, make_bot
from bot.core.repository import DatabaseError, Repository
from bot.discord_ui import http_answers
from bot.health import HealthError
from bot.settings import Settings
from bot.storage import SqliteRepository

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
    start with the single line :func:`main` prints.
    """
    repo = open_repository(settings)
    created = _new_sqlite_files(settings)
    await repo.open()
    bot: TTTBot | None = None
    try:
        async with make_bot(settings, repo, settings_source=settings_source) as bot:
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(signum, _shutdown, bot, signum)
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


def _shutdown(bot: TTTBot, signum: int) -> None:
    # At once, not in the task: the signal may have reached the engine workers too.
    bot.begin_close()
    log.info("%s received: finishing moves in flight, then stopping", signal.Signals(signum).name)
    asyncio.get_running_loop().create_task(bot.close())


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
    except (DatabaseError, HealthError) as exc:
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
