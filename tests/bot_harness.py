"""Run the real bot (in this event loop, or as a child process) against the emulator."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import discord
import yarl
from discord.http import Route

from bot.app import TTTBot
from bot.core.models import Game
from bot.core.policy import SERVER_SETTINGS
from bot.discord_ui import custom_ids
from bot.settings import Settings
from bot.sharded import make_bot
from bot.storage import PostgresRepository, SqliteRepository
from engine import Board

from discord_emulator import DiscordEmulator, buttons
from discord_emulator.interactions import WAIT_CEILING

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.R2VuZQ.YS13ZWxsLWZvcm1lZC10ZXN0LXRva2Vu"
"""Shaped like a bot token, for settings that are parsed but never used to sign in."""


def free_port() -> int:
    """A local port nobody listens on (for a server of our own, or a Discord that is
    unreachable)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def settings_for(emu: DiscordEmulator, database: Path, **overrides: object) -> Settings:
    """Settings for a bot on ``emu``; ``overrides`` may name process settings and server
    policy defaults alike (``turn_timeout=1.5``)."""
    base = Settings(
        token=emu.token, database=str(database), api_base=emu.api_base, gateway_url=emu.gateway_url,
        warm_workers=False,  # two interpreters a bot; the tests that need them ask
    )  # fmt: skip
    policy = {k: v for k, v in overrides.items() if k in SERVER_SETTINGS}
    process = {k: v for k, v in overrides.items() if k not in SERVER_SETTINGS}
    return dataclasses.replace(base, policy=dataclasses.replace(base.policy, **policy), **process)


@contextlib.asynccontextmanager
async def running_bot(
    emu: DiscordEmulator, settings: Settings, game_clock: Callable[[], float] | None = None
) -> AsyncIterator[TTTBot]:
    """The bot connected and ready (commands synced if they changed); closed afterwards.
    On PostgreSQL when ``settings.database_url`` is set, else on the SQLite file.
    ``game_clock``: the games' clock (their deadlines), for a test that moves it."""
    if emu.transport == "http" and not settings.web_only:  # the same bot, over HTTP
        settings = dataclasses.replace(
            settings, web_port=settings.web_port or free_port(), web_only=True,
            public_key=emu.public_key,
        )  # fmt: skip
    old_base, old_gateway = Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    Route.BASE = emu.api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(emu.gateway_url)
    repo: SqliteRepository | PostgresRepository = (
        PostgresRepository(settings.database_url, settings.db_pool_size)
        if settings.database_url
        else SqliteRepository(settings.database)
    )
    await repo.open()
    bot = make_bot(settings, repo)  # sharded when settings.shard_count says so
    bot.clock = emu.now  # the sign-in limits' clock: emu.advance moves it with Discord's
    if game_clock is not None:
        bot.game_clock = game_clock
    ready = emu.ready_count + 1
    task = asyncio.create_task(bot.start(settings.token))
    try:
        if settings.web_only:  # no gateway: ready once the pages are served
            deadline = time.monotonic() + WAIT_CEILING
            while bot.web is None and not task.done() and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert bot.web is not None, "the web-only bot did not start serving"
        else:
            await emu.wait_until_ready(count=ready)
        syncs = settings.public_key is not None if settings.web_only else (
            settings.shard_ids is None or 0 in settings.shard_ids)  # fmt: skip
        if syncs:  # shard 0's process, or any over HTTP
            await emu.wait_for_commands()
        if settings.web_only and settings.public_key is not None:
            emu.use_http(f"http://127.0.0.1:{settings.web_port}/interactions")
        yield bot
    finally:
        if settings.web_only and settings.public_key is not None:
            emu.use_http(None)
        await bot.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, WAIT_CEILING)
        await repo.close()
        Route.BASE = old_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway


def bot_process_env(emu: DiscordEmulator, database: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TTT_"))}
    env.update(
        DISCORD_TOKEN=emu.token,
        DISCORD_API_BASE=emu.api_base,
        DISCORD_GATEWAY_URL=emu.gateway_url,
        TTT_DISCORD_EMULATOR="true",  # its http:// and ws:// (a real bot's are refused)
        TTT_DATABASE=str(database),
        TTT_WARM_WORKERS="0",  # two interpreters a bot; the tests that need them ask
    )
    env.update(extra)
    return env


def start_bot_process(
    env: dict[str, str], cwd: Path, prefix: tuple[str, ...] = (), *, own_group: bool = False
) -> subprocess.Popen[bytes]:
    """``python -m bot`` as a user would start it (cwd without a .env of ours); ``prefix``
    runs it under another command (see ``test_bot_startup.UNPRIVILEGED``); ``own_group``
    in a process group of its own, as a service manager or a terminal starts it."""
    return subprocess.Popen(
        [*prefix, sys.executable, "-m", "bot"],
        env=env,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        process_group=0 if own_group else None,
    )


BUSY_DEADLINE = 15.0
"""Seconds the emulator gives an interaction's answer in the tests that run several bot
processes (tests/test_cluster.py, tests/test_http_cluster.py), instead of Discord's 3.
Those tests check correctness: every click answered, applied exactly once, every board
as stored. Three bot processes, their engine workers, PostgreSQL, nginx and the emulator
share two cores there with the rest of the suite, and on a machine busy with something
else too, answers took up to 4.9 s (issue 43). The 3-second promise under load is what
bench/flood.py measures, on a machine left alone; every other test keeps Discord's 3 s."""

START_TIMEOUT = WAIT_CEILING
"""Seconds a bot process gets to READY: a safety net, since a busy machine takes several
seconds just to start an interpreter and import discord.py."""


class BotProcess:
    """A child ``python -m bot``. Its stderr is drained on a thread, because a full pipe
    would block the bot's logging, and kept for failure messages. With ``own_group`` its
    signals go to its whole process group (its engine workers too), as systemd's and a
    terminal's do."""

    def __init__(self, env: dict[str, str], cwd: Path, *, own_group: bool = False) -> None:
        self.own_group = own_group
        self.proc = start_bot_process(env, cwd, own_group=own_group)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            self.lines.append(raw.decode(errors="replace").rstrip("\n"))

    @property
    def stderr(self) -> str:
        return "\n".join(self.lines)

    async def wait_until_ready(self, emu: DiscordEmulator, count: int) -> None:
        """Until the emulator saw READY number ``count``; fails at once if the bot exits."""
        deadline = time.monotonic() + START_TIMEOUT
        while emu.ready_count < count:
            if self.proc.poll() is not None:
                raise AssertionError(
                    f"bot exited with {self.proc.returncode} before READY #{count}:\n{self.stderr}"
                )
            if time.monotonic() > deadline:
                raise TimeoutError(f"no READY #{count} within {START_TIMEOUT}s:\n{self.stderr}")
            await asyncio.sleep(0.02)

    async def stop(self, sig: int = signal.SIGKILL) -> int:
        """Send ``sig`` (if still running) and reap, without blocking the event loop."""
        if self.proc.poll() is None:
            if self.own_group:
                os.killpg(self.proc.pid, sig)
            else:
                self.proc.send_signal(sig)
        code = await asyncio.to_thread(self.proc.wait, WAIT_CEILING)
        await asyncio.to_thread(self._reader.join, WAIT_CEILING)
        return code

    async def kill(self) -> int:
        """SIGKILL: no chance to clean up."""
        return await self.stop(signal.SIGKILL)


@contextlib.asynccontextmanager
async def bot_process(
    emu: DiscordEmulator, env: dict[str, str], cwd: Path, *, ready: int
) -> AsyncIterator[BotProcess]:
    """A bot process connected to ``emu`` (its READY is the ``ready``-th); always killed."""
    bot = BotProcess(env, cwd)
    try:
        await bot.wait_until_ready(emu, ready)
        yield bot
    finally:
        await bot.kill()


def cell_buttons(message: dict) -> list[dict]:
    """The board's buttons of a message, read with the bot's own custom_id grammar."""
    return [
        b
        for row in buttons(message)
        for b in row
        if isinstance(custom_ids.parse(b["custom_id"]), custom_ids.CellClick)
    ]


def board_of(message: dict) -> str:
    """Read the board back from the buttons a member sees."""
    cells = cell_buttons(message)
    marks = {"❌": "X", "⭕": "O"}
    return "".join(marks.get((b.get("emoji") or {}).get("name"), ".") for b in cells)


async def with_marks(
    emu: DiscordEmulator, message: dict, marks: int, timeout: float = WAIT_CEILING
) -> dict:
    """``message`` once its board shows at least ``marks`` marks. On 4×4 and 5×5 the
    member's move may be shown first and the bot's reply edited in when its search ends:
    later the busier the machine, so a test waits for the reply, never for a time."""
    return await emu.wait_for_message(
        lambda m: m["id"] == message["id"] and len(board_of(m).replace(".", "")) >= marks,
        timeout,
        include_existing=True,
    )


async def eventually(
    check: Callable[[], Any], what: str, timeout: float = WAIT_CEILING, every: float = 0.02
) -> Any:
    """``check()``'s first truthy value (``check`` may be a coroutine function), polled
    every ``every`` seconds: for a state the bot reaches on its own (a stored row, a
    process's log line). ``timeout`` is a safety net, not a time the test expects."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"still not so after {timeout} s: {what}")
        await asyncio.sleep(every)


def cell_id(message: dict, cell: int) -> str:
    return str(cell_buttons(message)[cell]["custom_id"])


async def accepted_member_game(
    emu: DiscordEmulator, challenger, opponent, first: str = "me", channel=None
) -> dict:
    """A challenge from ``challenger``, accepted by ``opponent`` (in ``channel``, default
    the emulator's): the new board message. The Accept button is found by its custom_id,
    so this works in any server language."""
    res = await emu.invoke(
        challenger, "ttt start", {"opponent": opponent, "first": first}, channel=channel
    )
    accept = next(
        b
        for row in buttons(res.message)
        for b in row
        if isinstance(custom_ids.parse(b["custom_id"]), custom_ids.AcceptClick)
    )
    res = await emu.click(opponent, res.message, accept["custom_id"])
    assert res.type == 7, res
    return res.message


async def easy_bot_game(emu: DiscordEmulator, channel: Any, member: Any) -> str:
    """``member`` plays the bot (easy) in ``channel``, always the first empty square,
    until the game ends: its board message's id."""
    res = await emu.invoke(member, "ttt start", {"first": "me", "difficulty": "easy"},
                           channel=channel)  # fmt: skip
    message = res.message
    for _ in range(5):
        current = emu.message(message["id"])
        board = Board.from_string(board_of(current))
        if board.is_over():
            break
        res = await emu.click(member, current, cell_id(current, board.legal_moves()[0]))
        assert res.type == 7, res
    return str(message["id"])


async def stored_games(dsn: str) -> list[Game]:
    """Every game a PostgreSQL database holds (ids from 1, as a test's few games have)."""
    repo = PostgresRepository(dsn, pool_size=1)
    await repo.open()
    try:
        games = [await repo.get_game(i) for i in range(1, 1000)]
        return [g for g in games if g is not None]
    finally:
        await repo.close()
