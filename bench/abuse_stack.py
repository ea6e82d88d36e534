"""The stack bench/abuse_second.py attacks: the emulator, the real bot and nginx on the
shipped configuration (deploy/nginx.conf, its upstream and port rewritten by
tests/nginx_harness.py) in front of it. One process: the bot as an owner runs it on its
own (gateway, web service with the Activity and /interactions, SQLite). Several:
gateway-less processes (``TTT_GATEWAY=off``) on one PostgreSQL, as compose.http.yaml
runs them. The emulator signs every interaction and POSTs it to nginx. And the report's
helpers: the machine, the load average, the figures' formats."""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import aiohttp

from bot_harness import BotProcess, bot_process_env, free_port
from discord_emulator import DiscordEmulator
from nginx_harness import nginx_config, running_nginx
from pg_server import start_server

ROOT = Path(__file__).resolve().parents[1]
START = 120.0
"""Seconds the processes get to serve (a busy machine starts interpreters slowly)."""


class Stack:
    """``processes`` bot processes behind nginx, or one without (``direct``); ``front``
    is the base URL every request goes to, on port ``proxy``: nginx's, or the process's."""

    def __init__(
        self, workdir: Path, nginx: Path | None = None, processes: int = 1, direct: bool = False
    ) -> None:
        if direct and processes != 1:
            raise SystemExit("--direct is for one process (without nginx)")
        self.workdir, self.nginx, self.processes, self.direct = workdir, nginx, processes, direct
        self.emu = DiscordEmulator(validate=False)
        self.emu.interaction_deadline = 30.0  # a late answer is measured, not dropped
        self.ports = [free_port() for _ in range(processes)]
        self.proxy = self.ports[0] if direct else free_port()
        self.front = f"http://127.0.0.1:{self.proxy}"
        self.bots: list[BotProcess] = []
        self._exits = contextlib.ExitStack()

    @property
    def pids(self) -> list[int]:
        return [bot.proc.pid for bot in self.bots]

    async def __aenter__(self) -> Stack:
        await self.emu.start()
        workdir, emu = self.workdir, self.emu
        common = {"TTT_LOG_LEVEL": "WARNING", "DISCORD_CLIENT_SECRET": emu.client_secret,
                  "DISCORD_PUBLIC_KEY": emu.public_key}  # fmt: skip
        if self.processes == 1:
            env = bot_process_env(emu, workdir / "ttt.sqlite3",
                                  TTT_WEB_PORT=str(self.ports[0]), **common)  # fmt: skip
            self.bots = [BotProcess(env, workdir)]
            await self.bots[0].wait_until_ready(emu, 1)
        else:
            server, why = start_server(workdir)
            if server is None:
                raise SystemExit(f"no PostgreSQL server could be started: {why}")
            self._exits.callback(server.stop)
            dsn = server.dsn(server.create_database())
            for port in self.ports:
                env = bot_process_env(emu, workdir / "unused.sqlite3", TTT_DATABASE_URL=dsn,
                                      TTT_GATEWAY="off", TTT_WEB_PORT=str(port),
                                      TTT_ENGINE_WORKERS="1", **common)  # fmt: skip
                self.bots.append(BotProcess(env, workdir))
            await self._serving()
        while emu.sync_count < 1:  # the commands, before the first /ttt start
            await asyncio.sleep(0.05)
        if not self.direct:
            prefix = workdir / "nginx"
            prefix.mkdir()
            config = nginx_config(self.ports, self.proxy, prefix, source=self.nginx)
            self._exits.enter_context(running_nginx(config, prefix, self.proxy))
        emu.use_http(f"{self.front}/interactions")
        self.http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0),
                                          timeout=aiohttp.ClientTimeout(total=30))  # fmt: skip
        return self

    async def _serving(self) -> None:
        """Until every gateway-less process answers a signed PING on its own port."""
        body = b'{"type": 1}'
        waiting, deadline = set(self.ports), time.monotonic() + START
        async with aiohttp.ClientSession() as http:
            while waiting:
                for bot in self.bots:
                    if bot.proc.poll() is not None:
                        raise SystemExit(f"a bot exited with {bot.proc.returncode}: {bot.stderr}")
                if time.monotonic() > deadline:
                    raise SystemExit(f"not serving within {START:g} s: {sorted(waiting)}")
                for port in sorted(waiting):
                    url = f"http://127.0.0.1:{port}/interactions"
                    with contextlib.suppress(aiohttp.ClientError):
                        headers = self.emu.http_mode.headers(body)
                        async with http.post(url, data=body, headers=headers) as res:
                            if res.status == 200:
                                waiting.discard(port)
                await asyncio.sleep(0.2)

    async def __aexit__(self, *_: object) -> None:
        await self.http.close()
        for bot in self.bots:
            await bot.stop(signal.SIGTERM)
        self._exits.close()
        await self.emu.stop()


# --- the report ---------------------------------------------------------------------


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def ms(seconds: list[float], q: float) -> str:
    if not seconds:
        return "-"
    ordered = sorted(seconds)
    return f"{1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]:.0f} ms"


def counts(tally: Counter[str]) -> str:
    return ", ".join(f"{n} × {what}" for what, n in tally.most_common()) or "none"


def cpu_model() -> str:
    with open("/proc/cpuinfo", encoding="utf-8") as info:
        return next((line.split(":", 1)[1].strip() for line in info
                     if line.startswith("model name")), "?")  # fmt: skip


def machine() -> list[str]:
    def run(*command: str) -> str:
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=10, cwd=ROOT)
        except OSError:
            return "?"
        return (done.stdout or done.stderr).strip()

    commit = run("git", "rev-parse", "--short", "HEAD")
    changed = run("git", "status", "--porcelain", "--", "bot", "deploy")
    dirty = " (with uncommitted changes)" if changed else ""
    return [f"code: {commit}{dirty}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
            f"uname: {' '.join(platform.uname())}",
            f"cores: {os.cpu_count()} (this process may use {len(os.sched_getaffinity(0))}); "
            f"{cpu_model()}",
            f"Python {platform.python_version()}, aiohttp {aiohttp.__version__}, "
            f"{run('nginx', '-v')}; {load()} at the start"]  # fmt: skip
