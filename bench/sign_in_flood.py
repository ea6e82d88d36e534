"""Junk sign-ins against the Activity, and a member signing in after them.

    python bench/sign_in_flood.py --junk 300 --limit 5 --window 10

Starts the Discord emulator in this process, its OAuth2 token route limited to
``--limit`` calls a ``--window`` of seconds (Discord documents no figure for it; a client
must read the headers), and the real bot as a child process (``python -m bot``) serving
the Activity. Then, twice (the first time Discord has not yet told the bucket, the
second time, ``--pause`` seconds later, it has), ``--junk`` sign-ins with junk codes are
sent at once, and a member signs in as the page does: after each 429, the wait told,
with a new code when the refused one was spent. Reported: the calls the token route
saw, the 429s it answered and the calls made while its Retry-After ran (both 0 when ttt
obeys), how fast the refusals came, and how long the member took to sign in.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

import aiohttp  # noqa: E402
from activity_latency import web_serving  # noqa: E402

from bot_harness import bot_process_env, free_port  # noqa: E402
from discord_emulator import DiscordEmulator  # noqa: E402


async def session(
    http: aiohttp.ClientSession, base: str, code: str, instance: str
) -> tuple[int, dict[str, Any], float]:
    began = time.perf_counter()
    async with http.post(f"{base}/api/session",
                         json={"code": code, "instance_id": instance}) as res:  # fmt: skip
        return res.status, await res.json(), time.perf_counter() - began


async def member_signs_in(
    emu: DiscordEmulator, http: aiohttp.ClientSession, base: str, user: Any, instance: str
) -> tuple[int, float]:
    """Tries, and seconds, until the member is signed in (as the page, without jitter)."""
    began, code, tries = time.perf_counter(), emu.authorize(user), 0
    while True:
        tries += 1
        status, body, _ = await session(http, base, code, instance)
        if status == 200:
            return tries, time.perf_counter() - began
        assert status == 429, body
        await asyncio.sleep(max(float(body["retry_after"]), 0.05))
        if body["code_spent"]:
            code = emu.authorize(user)


async def wave(
    emu: DiscordEmulator, http: aiohttp.ClientSession, base: str, instance: str, junk: int,
    user: Any, name: str,
) -> list[str]:  # fmt: skip
    token = emu.rate_limits.token
    calls, limited, early = token.calls, token.limited, token.early
    answers = await asyncio.gather(*(session(http, base, f"junk{n:026d}", instance)
                                     for n in range(junk)))  # fmt: skip
    refused = sorted(s for status, _, s in answers if status == 429)
    statuses: dict[int, int] = {}
    for status, _, _ in answers:
        statuses[status] = statuses.get(status, 0) + 1
    tries, seconds = await member_signs_in(emu, http, base, user, instance)
    ms = 1000
    speed = "  no refusal"
    if refused:
        speed = (f"  refusals: p50 {statistics.median(refused) * ms:.0f} ms, "
                 f"max {refused[-1] * ms:.0f} ms after sending")  # fmt: skip
    return [
        f"{name}: {junk} junk sign-ins at once -> answers {dict(sorted(statuses.items()))}; "
        f"token route: {token.calls - calls} calls, {token.limited - limited} 429s drawn, "
        f"{token.early - early} calls during a Retry-After",
        speed,
        f"  a member then: signed in after {tries} tries, {seconds:.1f} s",
    ]


async def bench(junk: int, limit: int, window: float, pause: float) -> list[str]:
    emu = DiscordEmulator(validate=False)
    emu.rate_limits.token.set(limit, window)
    await emu.start()
    port = free_port()
    workdir = Path(tempfile.mkdtemp(prefix="ttt-sign-in-bench-"))
    env = bot_process_env(emu, workdir / "ttt.sqlite3", TTT_WEB_PORT=str(port),
                          DISCORD_CLIENT_SECRET=emu.client_secret)  # fmt: skip
    proc = subprocess.Popen([sys.executable, "-m", "bot"], env=env, cwd=workdir,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        await emu.wait_until_ready(timeout=30)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
            await web_serving(http, base)
            alice, bob = emu.create_user("alice"), emu.create_user("bob")
            instance = emu.launch_activity(alice)
            emu.launch_activity(bob)
            lines = [f"{platform.processor() or platform.machine()}, Python "
                     f"{platform.python_version()}; token route: {limit} calls / {window:g} s, "
                     "ttt's defaults"]  # fmt: skip
            lines += await wave(emu, http, base, instance, junk, alice, "cold (bucket unknown)")
            await asyncio.sleep(pause)  # the sign-in budget back in full, the bucket reset
            lines += await wave(emu, http, base, instance, junk, bob,
                                f"warm (bucket known, {pause:g} s later)")  # fmt: skip
            return lines
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        await emu.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--junk", type=int, default=300)
    parser.add_argument("--limit", type=int, default=5)
    parser.add_argument("--window", type=float, default=10.0)
    parser.add_argument("--pause", type=float, default=60.0, help="seconds between the waves")
    args = parser.parse_args()
    for line in asyncio.run(bench(args.junk, args.limit, args.window, args.pause)):
        print(line)


if __name__ == "__main__":
    main()
