"""ttt's web service under abuse, as an attacker would try it: the figures of the README's
"Under abuse" page (docs/run/under-abuse.md; junk sign-ins have a bench of their own,
bench/sign_in_flood.py). The emulator runs in this process; the bot is a child process
(``python -m bot``) with its web service on, as an owner runs it.

    python bench/abuse.py                      # every part
    python bench/abuse.py --parts review,nginx

Parts:

- ``sockets``: one member's session opens ``--sockets`` live sockets: how many are held,
  how the rest were refused, and that the held ones still get a move.
- ``review``: a finished ultimate game of ``--plies`` moves, its review asked by 12
  members at once: seconds until all had it, and the 13th ask's (worked out once).
- ``nginx``: two gateway-less processes on PostgreSQL behind nginx (deploy/nginx.conf):
  the clicks' latency, then again with ``--idle`` idle and ``--slow`` slow-header
  connections held open to nginx.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "bench"), str(ROOT)]

from bot_latency import Tally, percentile, slot, wait_until_ready  # noqa: E402
from http_cluster import serving  # noqa: E402
from http_cluster import start as start_http_process  # noqa: E402
from ultimate_harness import button_id  # noqa: E402
from ultimate_harness import game_id as game_id_of  # noqa: E402
from ultimate_harness import play as play_ultimate  # noqa: E402

from bot.discord_ui import custom_ids  # noqa: E402
from engine import UltimateBoard  # noqa: E402

from bot_harness import bot_process_env, free_port, start_bot_process  # noqa: E402
from discord_emulator import DiscordEmulator  # noqa: E402
from nginx_harness import nginx_config, running_nginx  # noqa: E402
from pg_server import start_server  # noqa: E402
from web_harness import Page, sign_in  # noqa: E402

PARTS = ("sockets", "review", "nginx")


async def until(condition: Any, seconds: float = 30.0) -> None:
    end = time.perf_counter() + seconds
    while not condition():
        if time.perf_counter() > end:
            raise TimeoutError("the bench waited too long")
        await asyncio.sleep(0.02)


class WebBot:
    """The emulator and a bot process (gateway and web service) on a SQLite file."""

    def __init__(self, workdir: Path, **env: str) -> None:
        self.workdir = workdir
        self.env = env
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.emu = DiscordEmulator(validate=False)

    async def __aenter__(self) -> WebBot:
        await self.emu.start()
        env = bot_process_env(self.emu, self.workdir / "ttt.sqlite3",
                              TTT_WEB_PORT=str(self.port),
                              DISCORD_CLIENT_SECRET=self.emu.client_secret,
                              TTT_LOG_LEVEL="WARNING", **self.env)  # fmt: skip
        self.proc = start_bot_process(env, self.workdir)
        await wait_until_ready(self.emu, self.proc)
        self.http = aiohttp.ClientSession()
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.http.close()
        self.proc.terminate()
        await asyncio.to_thread(self.proc.wait, 30)
        await self.emu.stop()


# --- one session's sockets -------------------------------------------------------------


async def sockets_part(args: argparse.Namespace, workdir: Path) -> list[str]:
    async with WebBot(workdir) as run:
        emu, http = run.emu, run.http
        member = emu.create_user("hoarder")
        page = await sign_in(emu, http, run.base, member)
        url = f"{run.base}/api/live?session={page.session}"
        held: list[aiohttp.ClientWebSocketResponse] = []
        closes: dict[tuple[int, str], int] = {}
        # a connector without aiohttp's 100-connection cap: the sockets are all one page's
        sockets = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        for _ in range(args.sockets):
            ws = await sockets.ws_connect(url)
            first = await ws.receive(timeout=10)
            said = first.json() if first.type == aiohttp.WSMsgType.TEXT else {}
            if said.get("type") != "closing":
                held.append(ws)
                continue
            end = await ws.receive(timeout=10)  # the close frame after the reason
            code = end.data if end.type == aiohttp.WSMsgType.CLOSE else ws.close_code
            key = (code, said.get("reason", ""))
            closes[key] = closes.get(key, 0) + 1
            await ws.close()
        # a move in the channel: each held page still hears of it
        res = await emu.invoke(member, "ttt start", {"first": "me", "difficulty": "easy"})
        heard = 0
        for ws in held:
            message = await ws.receive(timeout=10)
            heard += message.type == aiohttp.WSMsgType.TEXT and '"game"' in message.data
        for ws in held:
            await ws.close()
        await sockets.close()
        assert res.message is not None
        refused = "; ".join(f"{n} refused with {code} ({reason!r})" for (code, reason), n in
                            closes.items())  # fmt: skip
        return [f"{args.sockets} live sockets of one session: {len(held)} held, {refused}; "
                f"the held ones heard the next game start: {heard} of {len(held)}"]  # fmt: skip


# --- a long review asked by 12 at once -------------------------------------------------


def long_game(plies: int, seed: int) -> tuple[int, ...]:
    """A legal ultimate game that ends after ``plies`` moves or more, by random playouts."""
    rng = random.Random(seed)
    for _ in range(100_000):
        board, moves = UltimateBoard.new(), []
        while not board.is_over():
            cell = rng.choice(board.legal_moves())
            moves.append(cell)
            board = board.play(cell)
        if len(moves) >= plies:
            return tuple(moves)
    raise SystemExit(f"no game of {plies} moves found")


async def review_part(args: argparse.Namespace, workdir: Path) -> list[str]:
    moves = long_game(args.plies, args.seed)
    async with WebBot(workdir, TTT_WARM_WORKERS="1") as run:
        emu, http = run.emu, run.http
        x, o = emu.create_user("x"), emu.create_user("o")
        res = await emu.invoke(x, "ttt start", {"opponent": o, "first": "me",
                                                "game": "ultimate"})  # fmt: skip
        accept = button_id(res.message, custom_ids.AcceptClick)
        message = (await emu.click(o, res.message, accept)).message
        for n, cell in enumerate(moves):
            await play_ultimate(emu, (x, o)[n % 2], message, cell)
        game = game_id_of(emu.message(message["id"]))
        members = [emu.create_user(f"reader{n}") for n in range(13)]
        pages: list[Page] = [await sign_in(emu, http, run.base, m) for m in members]

        async def ask(page: Page) -> tuple[int, float]:
            began = time.perf_counter()
            status, _ = await page.get(f"/api/games/{game}/review")
            return status, time.perf_counter() - began

        began = time.perf_counter()
        answers = await asyncio.gather(*(ask(p) for p in pages[:12]))
        twelve = time.perf_counter() - began
        status, thirteenth = await ask(pages[12])
        return [
            f"review of a finished {len(moves)}-move ultimate game asked by 12 members at "
            f"once: all answered in {twelve:.2f} s (statuses "
            f"{sorted({s for s, _ in answers})}, slowest {max(t for _, t in answers):.2f} s); "
            f"a 13th ask afterwards: {status} in {1000 * thirteenth:.1f} ms",
        ]


# --- nginx with idle and slow-header connections ----------------------------------------


def hold_connections(port: int, idle: int, slow: int) -> list[socket.socket]:
    """``idle`` connections that send nothing and ``slow`` that send a request line and
    one header, then stop (the slow-header attack): nginx must not let them crowd out
    Discord's POSTs."""
    held = []
    for n in range(idle + slow):
        sock = socket.create_connection(("127.0.0.1", port))
        if n >= idle:
            sock.sendall(b"POST /interactions HTTP/1.1\r\nHost: ttt\r\nX-Slow: 1\r\n")
        held.append(sock)
    return held


def still_open(held: list[socket.socket]) -> int:
    """How many of ``held`` nginx has not closed (a closed one reads as EOF)."""
    count = 0
    for sock in held:
        sock.setblocking(False)
        try:
            count += sock.recv(1) != b""
        except BlockingIOError:
            count += 1
        except OSError:
            pass
    return count


async def clicks_for(emu: DiscordEmulator, seconds: float, games: int, seed: int) -> list[float]:
    tally = Tally()
    players = [emu.create_user(f"p{seed}-{i}") for i in range(games)]
    channels = [emu.create_channel(emu.guild, f"g{seed}-{i}") for i in range(games)]
    rng = random.Random(seed)
    end = time.perf_counter() + seconds
    await asyncio.gather(*(
        slot(emu, p, c, random.Random(rng.random()), tally, 0.2, end)
        for p, c in zip(players, channels, strict=True)
    ))  # fmt: skip
    return [x * 1000 for x in tally.latencies + tally.start_latencies]


async def nginx_part(args: argparse.Namespace, workdir: Path) -> list[str]:
    server, why = start_server(workdir)
    if server is None:
        raise SystemExit(f"no PostgreSQL server could be started: {why}")
    emu = DiscordEmulator(validate=False)
    await emu.start()
    ports = [free_port() for _ in range(2)]
    proxy = free_port()
    dsn = server.dsn(server.create_database())
    procs = [start_http_process(emu, dsn, port, workdir) for port in ports]
    prefix = workdir / "nginx"
    prefix.mkdir()
    lines = []
    try:
        with running_nginx(nginx_config(ports, proxy, prefix), prefix, proxy):
            emu.use_http(f"http://127.0.0.1:{proxy}/interactions")
            await serving(emu, procs)
            quiet = await clicks_for(emu, args.duration, args.games, 1)
            held = await asyncio.to_thread(hold_connections, proxy, args.idle, args.slow)
            try:
                loaded = await clicks_for(emu, args.duration, args.games, 2)
                open_after = still_open(held)
            finally:
                for sock in held:
                    sock.close()
            for name, clicks in (("alone", quiet), (f"beside {args.idle} idle and "
                                                    f"{args.slow} slow-header connections",
                                                    loaded)):  # fmt: skip
                lines.append(
                    f"interactions through nginx, {name}: {len(clicks)} answered, p50 "
                    f"{percentile(clicks, 50):.1f} ms, p99 {percentile(clicks, 99):.1f} ms"
                )
            lines.append(f"  held connections nginx still kept open after {args.duration:g} s: "
                         f"{open_after} of {len(held)}; violations or unanswered: "
                         f"{len(emu.violations)}")  # fmt: skip
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(30)
        await emu.stop()
        server.stop()
    return lines


async def bench(args: argparse.Namespace) -> None:
    cpus = len(os.sched_getaffinity(0))
    print(f"machine: {platform.platform()}, {platform.machine()}, nproc {cpus}, "
          f"load {os.getloadavg()[0]:.1f}")  # fmt: skip
    runs = {"sockets": sockets_part, "review": review_part, "nginx": nginx_part}
    for part in args.parts:
        with tempfile.TemporaryDirectory() as tmp:
            for line in await runs[part](args, Path(tmp)):
                print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default=",".join(PARTS),
                        help=f"comma-separated, of {', '.join(PARTS)}")  # fmt: skip
    parser.add_argument("--sockets", type=int, default=200, help="sockets of one session")
    parser.add_argument("--plies", type=int, default=66, help="moves of the reviewed game")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--idle", type=int, default=1000, help="idle connections to nginx")
    parser.add_argument("--slow", type=int, default=200, help="slow-header connections")
    parser.add_argument("--games", type=int, default=20, help="channels playing (nginx part)")
    parser.add_argument("--duration", type=float, default=10.0,
                        help="seconds of clicks each nginx round")  # fmt: skip
    args = parser.parse_args()
    args.parts = [p for p in args.parts.split(",") if p]
    if unknown := set(args.parts) - set(PARTS):
        parser.error(f"unknown part(s): {', '.join(sorted(unknown))}")
    asyncio.run(bench(args))


if __name__ == "__main__":
    main()
