"""The live board's figures, through the local emulator and the real bot as a child process
(``python -m bot`` with its web service on), as a member's pages would see them.

    python bench/activity_latency.py --games 50 --moves 4

Every game is between two members in a channel of its own, each with the Activity open
(two pages a game, signed in as the page does, following the channel over the WebSocket).
Prints:

- a page's move to the chat board's edit and to the other page's push, p50 / p99;
- the bot's CPU per page move against per button click (the same moves, made with the
  chat buttons instead, in another round of games);
- the bot's memory per open page (resident memory with every page open, less before
  they opened, over their number);
- the page's bytes on first load (``bot/web/static``, gzipped) and the time to the first
  board (sign-in, the games, the WebSocket's first message), p50.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "bench"), str(ROOT)]

import discord  # noqa: E402
from bot_latency import rss_kb, tree_cpu_seconds  # noqa: E402

from bot_harness import board_of, bot_process_env, cell_id, free_port  # noqa: E402
from discord_emulator import DiscordEmulator, default_spec_path  # noqa: E402
from web_harness import Page, next_game, sign_in  # noqa: E402

STATIC = ROOT / "bot" / "web" / "static"


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def until(condition, seconds: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    end = time.perf_counter() + seconds
    while not condition():
        if time.perf_counter() > end:
            raise TimeoutError("the bench waited too long")
        await asyncio.sleep(0.01)


async def web_serving(http: aiohttp.ClientSession, base: str) -> None:
    """Until the bot's web service answers (it starts with the bot, a moment after)."""
    for _ in range(200):
        try:
            async with http.get(base + "/api/config"):
                return
        except aiohttp.ClientError:
            await asyncio.sleep(0.05)


async def member_game(emu: DiscordEmulator, n: int) -> tuple[object, object, dict]:
    """Two members and their game in a channel of its own (X moves first)."""
    x, o = emu.create_user(f"x{n}"), emu.create_user(f"o{n}")
    channel = emu.create_channel(emu.guild, f"game-{n}")
    start = await emu.invoke(x, "ttt start", {"opponent": o, "first": "me"}, channel=channel)
    accept = start.message["components"][0]["components"][0]["custom_id"]
    board = (await emu.click(o, start.message, accept)).message
    return x, o, board


async def page_moves(
    emu: DiscordEmulator, pages: list[tuple[Page, Page, dict]], moves: int
) -> tuple[list[float], list[float], int]:
    """Each game's two pages take turns moving; the time from each page move's request
    to the chat board's edit, and to the other page's push."""
    to_chat: list[float] = []
    to_page: list[float] = []

    async def play(first: Page, second: Page, board: dict) -> None:
        async with first.live() as ws_first, second.live() as ws_second:
            sockets = {first.user_id: ws_first, second.user_id: ws_second}
            for ws in sockets.values():
                await ws.receive_json()  # the channel's games, on opening
            movers = [first, second]
            for ply in range(moves):
                mover, other = movers[ply % 2], movers[(ply + 1) % 2]
                free = board_of(emu.message(board["id"])).find(".")
                began = time.perf_counter()
                chat = asyncio.ensure_future(shown(emu, board, free))
                pushed = asyncio.ensure_future(next_game(sockets[other.user_id], 10))
                status, body = await mover.post(
                    f"/api/games/{body_id(board)}/move", {"ply": ply, "cell": free}
                )
                assert status == 200, body
                await pushed
                to_page.append(time.perf_counter() - began)
                await chat
                to_chat.append(time.perf_counter() - began)
                # the mover's own socket hears it too: drain it
                await next_game(sockets[mover.user_id], 10)

    await asyncio.gather(*(play(a, b, board) for a, b, board in pages))
    return to_chat, to_page, len(to_chat)


async def shown(emu: DiscordEmulator, board: dict, cell: int) -> None:
    await until(lambda: board_of(emu.message(board["id"]))[cell] != ".")


def body_id(board: dict) -> str:
    button = cell_id(board, 0)  # ttt:c:<game>:<ply>:<cell>
    return button.split(":")[2]


async def chat_moves(
    emu: DiscordEmulator, boards: list[tuple[object, object, dict]], moves: int
) -> int:
    async def play(x: object, o: object, board: dict) -> None:
        for ply in range(moves):
            current = emu.message(board["id"])
            free = board_of(current).find(".")
            res = await emu.click((x, o)[ply % 2], current, cell_id(current, free))
            assert res.type == 7, res

    await asyncio.gather(*(play(*b) for b in boards))
    return len(boards) * moves


def page_bytes() -> tuple[int, int, int]:
    """(JavaScript raw, JavaScript gzipped, everything gzipped) of the first load."""
    js = sum(p.stat().st_size for p in STATIC.glob("*.js"))
    js_gz = sum(len(gzip.compress(p.read_bytes(), 9)) for p in STATIC.glob("*.js"))
    all_gz = sum(len(gzip.compress(p.read_bytes(), 9)) for p in STATIC.iterdir() if p.is_file())
    return js, js_gz, all_gz


async def bench(games: int, moves: int, validate: bool) -> list[str]:
    spec = default_spec_path() if validate else None
    emu = DiscordEmulator(spec_path=spec)
    emu.rate_limits.token.set(10 * games, 1.0)  # sign-ins' speed measured, not their limits
    await emu.start()
    port = free_port()
    workdir = Path(tempfile.mkdtemp(prefix="ttt-activity-bench-"))
    env = bot_process_env(emu, workdir / "ttt.sqlite3", TTT_WEB_PORT=str(port),
                          DISCORD_CLIENT_SECRET=emu.client_secret,
                          TTT_SIGN_INS_OVERALL=str(10 * games))  # fmt: skip
    proc = subprocess.Popen([sys.executable, "-m", "bot"], env=env, cwd=workdir,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    lines = []
    try:
        try:
            await emu.wait_until_ready(timeout=30)
        except TimeoutError:
            proc.terminate()
            raise SystemExit(proc.communicate(timeout=10)[1].decode()[-3000:]) from None
        # one connection a page socket, and more for the moves: no pool limit
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
            await web_serving(http, base)
            boards = [await member_game(emu, n) for n in range(games)]
            before_pages = rss_kb(proc.pid)[0]
            first_board: list[float] = []
            pages = []
            for x, o, board in boards:
                channel = emu.channels[int(board["channel_id"])]
                pair = []
                for member in (x, o):
                    began = time.perf_counter()
                    page = await sign_in(emu, http, base, member, channel)
                    await page.games()
                    first_board.append(time.perf_counter() - began)
                    pair.append(page)
                pages.append((pair[0], pair[1], board))
            cpu0 = tree_cpu_seconds(proc.pid)
            to_chat, to_page, done = await page_moves(emu, pages, moves)
            cpu_page = (tree_cpu_seconds(proc.pid) - cpu0) / done
            with_pages = rss_kb(proc.pid)[0]
            chats = [await member_game(emu, games + n) for n in range(games)]
            cpu0 = tree_cpu_seconds(proc.pid)
            clicks = await chat_moves(emu, chats, moves)
            cpu_click = (tree_cpu_seconds(proc.pid) - cpu0) / clicks
        js, js_gz, all_gz = page_bytes()
        ms = 1000
        lines += [
            f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, "
            f"discord.py {discord.__version__}; {games} games, two pages each, {moves} moves",
            f"page move -> chat board edit: p50 {percentile(to_chat, 50) * ms:.1f} ms, "
            f"p99 {percentile(to_chat, 99) * ms:.1f} ms",
            f"page move -> other page: p50 {percentile(to_page, 50) * ms:.1f} ms, "
            f"p99 {percentile(to_page, 99) * ms:.1f} ms",
            f"bot CPU per page move {cpu_page * ms:.2f} ms, per button click "
            f"{cpu_click * ms:.2f} ms: {cpu_page / cpu_click:.2f}x (goal <= 1.2x)",
            f"memory per open page: {(with_pages - before_pages) / (2 * games):.1f} KB "
            f"({2 * games} pages)",
            f"first load: JavaScript {js / 1024:.1f} KB, {js_gz / 1024:.1f} KB gzipped "
            f"(goal <= 150 KB); everything {all_gz / 1024:.1f} KB gzipped",
            f"time to the first board (sign-in and the games, over HTTP): p50 "
            f"{statistics.median(first_board) * ms:.1f} ms",
        ]
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        await emu.stop()
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--moves", type=int, default=4)
    parser.add_argument(
        "--no-validate",
        action="store_true",
        help="skip the emulator's spec validation (it costs the emulator CPU)",
    )
    args = parser.parse_args()
    for line in asyncio.run(bench(args.games, args.moves, not args.no_validate)):
        print(line)


if __name__ == "__main__":
    main()
