"""The compose stack, run for real against the project's Discord emulator.

    .venv/bin/python bench/docker_stack.py        (as root, with a Docker daemon; see
                                                  ../shared/docker-kit for a machine
                                                  without Docker Hub)

Builds the image and brings up compose.yaml (PostgreSQL and the three bot processes,
one gateway shard each) with an override that puts every service on the host's network
and keeps all traffic on loopback: PostgreSQL on 127.0.0.1:55432, each bot's health
server on a port of its own, Discord = the emulator this script runs on 127.0.0.1. Then:
a game against the bot in a server of each shard, played through the containers; every
container healthy (the image's own HEALTHCHECK, run every 2 s here); a game between
members on shard 2 left waiting on its turn while ``docker-compose stop bot-2`` stops
that process (it must exit 0 within the grace period), and the turn timeout shown by one
of the others; then everything torn down (``down -v``). Prints how long each step took.
``tests/test_docker_stack.py`` runs it (``pytest -m docker``).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import functools
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

from engine import Board  # noqa: E402

from bot_harness import accepted_member_game, board_of, cell_id  # noqa: E402
from discord_emulator import DiscordEmulator, default_spec_path  # noqa: E402

PROJECT = "ttt-stack-check"
SHARDS = 3
PG_PORT = 55432
HEALTH_PORTS = (18080, 18081, 18082)
TURN = 8  # seconds a member has per move
GRACE = 20  # compose.yaml's stop_grace_period
PASSWORD = secrets.token_urlsafe(18)
"""The stack's PostgreSQL password (the compose files require one): new each run, in
the environment of every docker-compose command, so an owner's .env cannot decide it."""


LOCK = Path(tempfile.gettempdir()) / "ttt-docker-stack.lock"
R = TypeVar("R")


def one_stack_at_a_time(
    run: Callable[[], Coroutine[Any, Any, R]],
) -> Callable[[], Coroutine[Any, Any, R]]:
    """``run`` once no other stack runs on this machine (``pytest -m docker`` runs the
    two stacks' tests on two workers): each makes the .env its compose file needs from
    the example when there is none and removes it at the end, under the other's feet."""

    @functools.wraps(run)
    async def alone() -> R:
        with LOCK.open("a") as lock:  # closing it lets the next one in
            await asyncio.to_thread(fcntl.flock, lock, fcntl.LOCK_EX)
            return await run()

    return alone


def docker_missing() -> str | None:
    """Why the stack cannot run here, or None: a daemon must already answer."""
    for tool in ("docker", "docker-compose"):
        if shutil.which(tool) is None:
            return f"no {tool} on the PATH"
    info = subprocess.run(["docker", "info"], capture_output=True, timeout=30)
    if info.returncode != 0:
        return "no Docker daemon answers (docker info failed)"
    return None


@dataclass
class Report:
    steps: dict[str, float] = field(default_factory=dict)
    health: dict[str, str] = field(default_factory=dict)
    stop_exit_code: int | None = None
    stop_seconds: float = 0.0
    games_played: int = 0
    compiled_search: bool = False

    def lines(self) -> list[str]:
        out = [f"{name:38} {seconds:6.1f} s" for name, seconds in self.steps.items()]
        out.append(f"health: {', '.join(f'{k} {v}' for k, v in self.health.items())}")
        out.append(f"docker-compose stop bot-2: exit code {self.stop_exit_code} after "
                   f"{self.stop_seconds:.1f} s (grace period {GRACE} s)")  # fmt: skip
        out.append(f"games played through the containers: {self.games_played}")
        search = "compiled" if self.compiled_search else "Python (no extension)"
        out.append(f"ultimate's search in the image: {search}")
        return out


def env_from_example() -> str:
    """.env.example with :data:`PASSWORD` as its POSTGRES_PASSWORD."""
    text = (ROOT / ".env.example").read_text()
    line = f"POSTGRES_PASSWORD={PASSWORD}"
    text, found = re.subn(r"^POSTGRES_PASSWORD=.*$", line, text, flags=re.MULTILINE)
    return text if found else f"{text.rstrip()}\n{line}\n"


def override(emu: DiscordEmulator) -> dict:
    """compose.yaml's services on the host's network, pointed at the emulator."""
    dsn = f"postgresql://ttt:{PASSWORD}@127.0.0.1:{PG_PORT}/ttt"
    services: dict[str, dict] = {
        "postgres": {
            "network_mode": "host",
            "command": ["postgres", "-p", str(PG_PORT), "-c", "listen_addresses=127.0.0.1"],
            "healthcheck": {
                "test": ["CMD-SHELL", f"pg_isready -h 127.0.0.1 -p {PG_PORT} -U ttt -d ttt"],
                "interval": "1s", "timeout": "3s", "retries": 60,
            },
        }
    }  # fmt: skip
    for shard, port in enumerate(HEALTH_PORTS):
        services[f"bot-{shard}"] = {
            "network_mode": "host",
            "environment": {
                "DISCORD_TOKEN": emu.token, "DISCORD_API_BASE": emu.api_base,
                "DISCORD_GATEWAY_URL": emu.gateway_url, "TTT_DATABASE_URL": dsn,
                "TTT_DISCORD_EMULATOR": "true",
                "TTT_HEALTH_PORT": str(port), "TTT_HEALTH_HOST": "127.0.0.1",
                "TTT_TURN_TIMEOUT": str(TURN), "TTT_LOG_FORMAT": "text",
            },
            "healthcheck": {"interval": "2s", "start_period": "60s"},
        }  # fmt: skip
    return {"version": "3.7", "services": services}


COMPILED_CHECK = (
    "from engine.ultimate import mcts; print('compiled' if mcts._csearch else 'python')"
)


class Stack:
    def __init__(self, folder: Path, file: str = "compose.yaml", project: str = PROJECT) -> None:
        self.override = folder / "override.json"  # JSON is YAML
        self.file, self.project = file, project
        self.made_env = False

    def compose(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        command = ["docker-compose", "-p", self.project, "-f", str(ROOT / self.file),
                   "-f", str(self.override), *args]  # fmt: skip
        env = {**os.environ, "POSTGRES_PASSWORD": PASSWORD}
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True,
                              timeout=timeout, env=env)  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command[5:])} failed:\n{done.stderr[-3000:]}")
        return done

    def container(self, service: str) -> str:
        return self.compose("ps", "-q", service).stdout.strip()

    def inspect(self, service: str) -> dict:
        out = subprocess.run(["docker", "inspect", self.container(service)], capture_output=True,
                             text=True, check=True).stdout  # fmt: skip
        state: dict = json.loads(out)[0]["State"]
        return state

    def logs(self) -> str:
        try:
            return self.compose("logs", "--no-color", "--tail", "60").stdout
        except RuntimeError as exc:
            return str(exc)


@contextlib.asynccontextmanager
async def built_stack(
    emu: DiscordEmulator, file: str, project: str, overrides: Callable[[Path], dict],
    steps: dict[str, float],
) -> AsyncIterator[Stack]:  # fmt: skip
    """``file``'s images built, with ``overrides(folder)`` (JSON) over it, and the
    emulator started; afterwards every container and volume gone (``down -v``), the
    ``.env`` this made from the example removed, and the emulator stopped. What failed in
    between gets the containers' last log lines as a note."""
    env_file, clock = ROOT / ".env", time.monotonic
    with tempfile.TemporaryDirectory() as tmp:
        stack = Stack(Path(tmp), file, project)
        await emu.start()
        try:
            stack.override.write_text(json.dumps(overrides(Path(tmp))))
            if not env_file.exists():  # the compose files read .env: the example, a password
                env_file.write_text(env_from_example())
                stack.made_env = True
            began = clock()
            await asyncio.to_thread(stack.compose, "build", "-q")
            steps["docker-compose build"] = clock() - began
            yield stack
        except BaseException as exc:
            exc.add_note(stack.logs())
            raise
        finally:
            began = clock()
            stack.compose("down", "-v", "--remove-orphans", timeout=300)
            steps["down -v"] = clock() - began
            if stack.made_env:
                env_file.unlink(missing_ok=True)
            await emu.stop()


async def until(check: Callable[[], bool], seconds: float, what: str) -> float:
    began = time.monotonic()
    while not check():
        if time.monotonic() - began > seconds:
            raise TimeoutError(f"{what}: not within {seconds:g} s")
        await asyncio.sleep(0.25)
    return time.monotonic() - began


async def play_the_bot(emu: DiscordEmulator, guild, member) -> None:
    res = await emu.invoke(member, "ttt start", {"first": "me", "difficulty": "hard"},
                           channel=guild.channels[0])  # fmt: skip
    assert res.type == 4 and not res.ephemeral, res
    message = res.message
    for _ in range(5):
        board = Board.from_string(board_of(emu.message(message["id"])))
        if board.is_over():
            return
        current = emu.message(message["id"])
        res = await emu.click(member, current, cell_id(current, board.legal_moves()[0]))
        assert res.type == 7, res
    assert Board.from_string(board_of(emu.message(message["id"]))).is_over()


@one_stack_at_a_time
async def run_stack() -> Report:
    """Everything above; raises on the first thing that is not as it should be."""
    report, clock = Report(), time.monotonic
    emu = DiscordEmulator(spec_path=default_spec_path(), validate=default_spec_path().is_file())
    emu.shard_count = SHARDS
    guilds: dict[int, object] = {emu.gateway.shard_of(emu.guild.id): emu.guild}
    while len(guilds) < SHARDS:
        guild = emu.create_guild(f"server {len(guilds)}")
        guilds.setdefault(emu.gateway.shard_of(guild.id), guild)
    async with built_stack(emu, "compose.yaml", PROJECT, lambda _: override(emu),
                           report.steps) as stack:  # fmt: skip
        began = clock()
        await asyncio.to_thread(stack.compose, "up", "-d")
        await until(lambda: emu.ready_count >= SHARDS, 120, "three shards READY")
        report.steps["up -d until every shard is READY"] = clock() - began
        # ultimate's search runs compiled in the image (built in its build stage)
        report.compiled_search = (
            "compiled"
            in stack.compose("exec", "-T", "bot-0", "python", "-c", COMPILED_CHECK).stdout
        )
        began = clock()
        for shard, guild in sorted(guilds.items()):
            member = emu.create_user(f"member-{shard}", guilds=[guild])
            await play_the_bot(emu, guild, member)
            report.games_played += 1
        report.steps["a game against the bot per shard"] = clock() - began
        began = clock()
        services = ["postgres", *(f"bot-{s}" for s in range(SHARDS))]

        def healthy() -> bool:
            report.health = {s: stack.inspect(s)["Health"]["Status"] for s in services}
            return all(status == "healthy" for status in report.health.values())

        await until(healthy, 60, "every container healthy")
        report.steps["until every container is healthy"] = clock() - began
        # a duel on shard 2, waiting on its turn while that process stops
        guild = guilds[2]
        a, b = (emu.create_user(f"duel-{i}", guilds=[guild]) for i in range(2))
        board = await accepted_member_game(emu, a, b, channel=guild.channels[0])
        began = clock()
        await asyncio.to_thread(stack.compose, "stop", "-t", str(GRACE), "bot-2")
        report.stop_seconds = clock() - began
        state = stack.inspect("bot-2")
        report.stop_exit_code = state["ExitCode"]
        if report.stop_exit_code != 0 or report.stop_seconds >= GRACE:
            raise AssertionError(f"bot-2 stopped with {state}")
        began = clock()
        await until(lambda: "ran out of time" in emu.message(board["id"])["content"],
                        TURN + 60, "the stopped shard's turn timeout shown by another")  # fmt: skip
        report.steps["its timeout shown by another process"] = clock() - began
        report.games_played += 1
        if emu.violations:
            raise AssertionError(f"emulator violations: {emu.violations}")
    return report


def run_main(name: str, run: Callable[[], Awaitable[Any]]) -> int:
    """A stack script's command: ``run()`` where Docker answers, its report printed."""
    missing = docker_missing()
    if missing:
        print(f"{name}: {missing}", file=sys.stderr)
        return 2
    began = time.monotonic()
    report = asyncio.run(run())
    print("\n".join(report.lines()))
    print(f"in all: {time.monotonic() - began:.1f} s")
    return 0


def main() -> int:
    return run_main("docker_stack", run_stack)


if __name__ == "__main__":
    sys.exit(main())
