"""The HTTP compose stack (compose.http.yaml), run for real against the project's Discord
emulator: ``.venv/bin/python bench/docker_http_stack.py`` (as root, with a Docker daemon;
see ../shared/docker-kit for a machine without Docker Hub).

Builds the images (the bot's, and nginx's from deploy/nginx.Dockerfile) and brings up
PostgreSQL, the three gateway-less processes (TTT_GATEWAY=off) and nginx, with an
override that puts every service on the host's network with all traffic on loopback,
each on free ports of 127.0.0.1; nginx on deploy/nginx.conf with its upstream lines and
port rewritten for those (tests/nginx_harness.py), mounted over the image's copy, and
started by ``docker-compose run``, which publishes no port (compose refuses 127.0.0.1:8080:8080
beside the host's network, and an override cannot remove it). Discord = the emulator
this script runs, which POSTs every interaction, signed, to nginx. Then: a game against
the bot per process; every container healthy (the image's own HEALTHCHECK, every 2 s
here) and /readyz ready on each process; a duel, ``docker-compose stop ttt-http-2``
between two of its moves (it must exit 0 within the grace period), the duel finished and
one more game played on the other two; each game's board as PostgreSQL holds it; then
``down -v``. Prints each step's time. ``tests/test_docker_stack.py`` runs it.

An answer gets :data:`bot_harness.BUSY_DEADLINE` seconds, not Discord's 3, as in
tests/test_http_cluster.py: six containers share the machine's cores, and this checks
that every click is answered once, not how fast (the slowest answer is printed).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "bench"), str(ROOT)]

from docker_stack import (  # noqa: E402
    COMPILED_CHECK,
    PASSWORD,
    Stack,
    built_stack,
    docker_missing,
    one_stack_at_a_time,
    play_the_bot,
    run_main,
    until,
)

from bot_harness import (  # noqa: E402
    BUSY_DEADLINE,
    accepted_member_game,
    board_of,
    cell_id,
    stored_games,
)
from discord_emulator import DiscordEmulator, default_spec_path  # noqa: E402
from nginx_harness import answered_by, nginx_config  # noqa: E402

__all__ = ["GRACE", "STOPPED", "HttpReport", "docker_missing", "run_http_stack"]

PROJECT = "ttt-http-stack-check"
PROCESSES = ("ttt-http-1", "ttt-http-2", "ttt-http-3")
STOPPED = "ttt-http-2"
GRACE = 20  # compose.http.yaml's stop_grace_period


@dataclass
class Ports:
    """Loopback ports, free when chosen: PostgreSQL's, nginx's, and each process's."""

    postgres: int
    nginx: int
    web: dict[str, int]
    health: dict[str, int]

    @classmethod
    def free(cls) -> Ports:
        with contextlib.ExitStack() as held:  # all bound at once: no port chosen twice
            socks = [held.enter_context(socket.socket()) for _ in range(8)]
            for sock in socks:
                sock.bind(("127.0.0.1", 0))
            ports = [sock.getsockname()[1] for sock in socks]
        return cls(ports[0], ports[1], dict(zip(PROCESSES, ports[2:5], strict=True)),
                   dict(zip(PROCESSES, ports[5:8], strict=True)))  # fmt: skip


@dataclass
class HttpReport:
    steps: dict[str, float] = field(default_factory=dict)
    health: dict[str, str] = field(default_factory=dict)
    ready: dict[str, str] = field(default_factory=dict)
    stop_exit_code: int | None = None
    stop_seconds: float = 0.0
    games_played: int = 0
    games_stored: int = 0
    answered_before: set[str] = field(default_factory=set)
    """The processes (service names) that answered a click before the stop."""
    after_stop: list[tuple[list[str], str]] = field(default_factory=list)
    """Per click after the stop: the processes nginx tried, in order, and the status."""
    slowest_answer: float = 0.0
    worker_deaths: int = 0
    """Lines "an engine worker died" in the processes' logs (each a move played without
    the engine's workers until one started again)."""
    compiled_search: bool = False

    def lines(self) -> list[str]:
        out = [f"{name:46} {seconds:6.2f} s" for name, seconds in self.steps.items()]
        out.append(f"health: {', '.join(f'{k} {v}' for k, v in self.health.items())}")
        out.append(f"/readyz: {', '.join(f'{k} {v}' for k, v in self.ready.items())}")
        out.append(f"docker-compose stop {STOPPED}: exit code {self.stop_exit_code} after "
                   f"{self.stop_seconds:.1f} s (grace period {GRACE} s)")  # fmt: skip
        out.append(f"answered clicks before the stop: {', '.join(sorted(self.answered_before))}")
        tried = sum(STOPPED in addrs for addrs, _ in self.after_stop)
        out.append(f"clicks after the stop: {len(self.after_stop)}, statuses "
                   f"{sorted({s for _, s in self.after_stop})}, {tried} first sent to "
                   f"{STOPPED} (refused, passed on)")  # fmt: skip
        out.append(f"games played through nginx: {self.games_played} "
                   f"({self.games_stored} finished in PostgreSQL, boards as shown)")  # fmt: skip
        out.append(f"slowest answer: {self.slowest_answer:.2f} s")
        out.append(f"engine workers that died: {self.worker_deaths}")
        search = "compiled" if self.compiled_search else "Python (no extension)"
        out.append(f"ultimate's search in the image: {search}")
        return out


def override(emu: DiscordEmulator, ports: Ports, nginx_conf: Path) -> dict:
    """compose.http.yaml's services on the host's network, pointed at the emulator."""
    dsn = f"postgresql://ttt:{PASSWORD}@127.0.0.1:{ports.postgres}/ttt"
    services: dict[str, dict] = {
        "postgres": {
            "network_mode": "host",
            "command": ["postgres", "-p", str(ports.postgres), "-c", "listen_addresses=127.0.0.1"],
            "healthcheck": {
                "test": ["CMD-SHELL", f"pg_isready -h 127.0.0.1 -p {ports.postgres} -U ttt -d ttt"],
                "interval": "1s", "timeout": "3s", "retries": 60,
            },
        },
        "nginx": {
            "network_mode": "host",
            "volumes": [f"{nginx_conf}:/etc/nginx/nginx.conf:ro"],
        },
    }  # fmt: skip
    for name in PROCESSES:
        services[name] = {
            "network_mode": "host",
            "environment": {
                "DISCORD_TOKEN": emu.token, "DISCORD_API_BASE": emu.api_base,
                "DISCORD_GATEWAY_URL": emu.gateway_url, "DISCORD_PUBLIC_KEY": emu.public_key,
                "TTT_DISCORD_EMULATOR": "true",
                "TTT_GATEWAY": "off", "TTT_DATABASE_URL": dsn,
                "TTT_WEB_PORT": str(ports.web[name]), "TTT_WEB_HOST": "127.0.0.1",
                # the image's HEALTHCHECK asks TTT_HEALTH_PORT: one port each on the host
                "TTT_HEALTH_PORT": str(ports.health[name]), "TTT_HEALTH_HOST": "127.0.0.1",
                "TTT_LOG_FORMAT": "text",
            },
            "healthcheck": {"interval": "2s", "start_period": "60s"},
        }  # fmt: skip
    return {"version": "3.7", "services": services}


async def serving(emu: DiscordEmulator, ports: Ports) -> None:
    """Until each process answers a signed PING on its own port and the commands are
    synced (the processes' start-up, not nginx's round robin, is what is waited for)."""
    body = b'{"type": 1}'
    waiting = set(PROCESSES)
    async with aiohttp.ClientSession() as http:

        async def check() -> None:
            for name in sorted(waiting):
                url = f"http://127.0.0.1:{ports.web[name]}/interactions"
                with contextlib.suppress(aiohttp.ClientError):
                    async with http.post(url, data=body, headers=emu.http_mode.headers(body)) as r:
                        if r.status == 200:
                            waiting.discard(name)

        began = time.monotonic()
        while waiting or emu.sync_count < 1:
            if time.monotonic() - began > 120:
                raise TimeoutError(f"not serving within 120 s: {sorted(waiting)}")
            await check()
            await asyncio.sleep(0.25)


def probe(port: int, path: str) -> str:
    """The status of GET http://127.0.0.1:<port><path>, with the reason if not 200."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as res:
            return str(res.status)
    except urllib.error.HTTPError as exc:
        return f"{exc.code} {exc.read().decode(errors='replace').strip()}"


def nginx_log(stack: Stack, folder: Path, ports: Ports) -> list[tuple[list[str], str]]:
    """nginx's access log so far (its container's stdout), per /interactions request:
    the services it tried, in order, and the status."""
    container = stack.container("nginx")
    out = subprocess.run(["docker", "logs", container], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    log = folder / "access.log"
    log.write_text(out)
    names = {f"127.0.0.1:{port}": name for name, port in ports.web.items()}
    return [([names[a] for a in addrs], status) for addrs, status in answered_by(log)]


async def click(emu: DiscordEmulator, member, board: dict, cell: int) -> None:
    current = emu.message(board["id"])
    res = await emu.click(member, current, cell_id(current, cell))
    assert res.type == 7 and not res.ephemeral, res


async def finished_games(dsn: str, emu: DiscordEmulator) -> int:
    """The games PostgreSQL holds, each checked finished and shown as stored."""
    games = await stored_games(dsn)
    for game in games:
        assert not game.running, game
        assert board_of(emu.message(game.message_id)) == game.board.to_string(), game
    return len(games)


@one_stack_at_a_time
async def run_http_stack() -> HttpReport:
    """Everything above; raises on the first thing that is not as it should be."""
    report, clock = HttpReport(), time.monotonic
    emu = DiscordEmulator(spec_path=default_spec_path(), validate=default_spec_path().is_file())
    emu.interaction_deadline = BUSY_DEADLINE
    ports = Ports.free()
    guild = emu.guild
    channel = emu.create_channel(guild, "duels")

    def overridden(folder: Path) -> dict:
        conf = nginx_config(list(ports.web.values()), ports.nginx, folder)
        return override(emu, ports, conf)

    async with built_stack(emu, "compose.http.yaml", PROJECT, overridden,
                           report.steps) as stack:  # fmt: skip
        folder = stack.override.parent
        began = clock()
        await asyncio.to_thread(stack.compose, "up", "-d", "postgres", *PROCESSES)
        # nginx by `run`, which leaves out the published port (127.0.0.1:8080:8080): compose
        # refuses a port binding beside network_mode host, and an override can add
        # to a service's ports but not take them away
        await asyncio.to_thread(stack.compose, "run", "-d", "--no-deps", "nginx")
        await serving(emu, ports)
        report.steps["up -d until every process serves"] = clock() - began
        assert emu.ready_count == 0, "a gateway-less process connected to the gateway"
        emu.use_http(f"http://127.0.0.1:{ports.nginx}/interactions")
        search = await asyncio.to_thread(
            stack.compose, "exec", "-T", PROCESSES[0], "python", "-c", COMPILED_CHECK
        )
        report.compiled_search = "compiled" in search.stdout
        began = clock()
        for i in range(len(PROCESSES)):  # nginx takes turns: each process answers some
            await play_the_bot(emu, guild, emu.create_user(f"member-{i}", guilds=[guild]))
            report.games_played += 1
        report.steps["a game against the bot per process"] = clock() - began
        report.answered_before = {n for addrs, _ in nginx_log(stack, folder, ports)
                                  for n in addrs[-1:]}  # fmt: skip
        began = clock()
        services = ["postgres", *PROCESSES]

        def healthy() -> bool:
            report.health = {s: stack.inspect(s)["Health"]["Status"] for s in services}
            return all(status == "healthy" for status in report.health.values())

        await until(healthy, 90, "every container healthy")
        report.ready = {n: probe(ports.health[n], "/readyz") for n in PROCESSES}
        report.steps["until every container is healthy"] = clock() - began
        # a duel, three moves in when ttt-http-2 stops, finished on the other two
        a, b = (emu.create_user(f"duel-{i}", guilds=[guild]) for i in range(2))
        board = await accepted_member_game(emu, a, b, channel=channel)
        for player, cell in ((a, 0), (b, 3), (a, 1)):
            await click(emu, player, board, cell)
        before = len(nginx_log(stack, folder, ports))
        began = clock()
        await asyncio.to_thread(stack.compose, "stop", "-t", str(GRACE), STOPPED)
        report.stop_seconds = clock() - began
        state = stack.inspect(STOPPED)
        report.stop_exit_code = state["ExitCode"]
        if report.stop_exit_code != 0 or report.stop_seconds >= GRACE:
            raise AssertionError(f"{STOPPED} stopped with {state}")
        began = clock()
        for player, cell in ((b, 4), (a, 2)):
            await click(emu, player, board, cell)
        assert f"<@{a.id}> wins" in emu.message(board["id"])["content"]
        report.games_played += 1
        await play_the_bot(emu, guild, emu.create_user("after-the-stop", guilds=[guild]))
        report.games_played += 1
        report.steps[f"the duel finished, a game, without {STOPPED}"] = clock() - began
        report.after_stop = nginx_log(stack, folder, ports)[before:]
        dsn = f"postgresql://ttt:{PASSWORD}@127.0.0.1:{ports.postgres}/ttt"
        report.games_stored = await finished_games(dsn, emu)
        report.slowest_answer = max((r.response_at or r.created) - r.created
                                    for r in emu.interactions.values())  # fmt: skip
        logs = stack.compose("logs", "--no-color", *PROCESSES).stdout
        report.worker_deaths = logs.count("an engine worker died")
        if emu.violations:
            raise AssertionError(f"emulator violations: {emu.violations}")
    return report


def main() -> int:
    return run_main("docker_http_stack", run_http_stack)


if __name__ == "__main__":
    sys.exit(main())
