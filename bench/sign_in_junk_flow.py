"""Members signing in as the page does while junk sign-ins flow at a steady rate.

    python bench/sign_in_junk_flow.py --rate 20 60 --scenario known new same

Starts the Discord emulator in this process (its token route limited to 5 calls in 10 s,
as bench/sign_in_flood.py) and the real bot as a child process serving the Activity.
Junk sign-ins (junk codes) are sent at ``--rate`` a second; 3 s in, ten members sign in
at once as the page does (six tries, the wait the server tells or a backoff doubling
from 1 s, plus up to half again at random; a new code only when the refused one was
spent). Scenarios: ``known``, junk naming distinct unknown ids while the members join one
instance already signed in from; ``new``, the same junk while each member is the first
of a new instance in a channel never used; ``same``, junk naming one unknown id, members
as in ``new``. Reported: members signed in and their tries, the junk's answers, the
instance reads Discord answered and the calls to the token route.

``TTT_ROOT`` names another checkout to run (its tests' emulator, its bot): run it with
that checkout's Python to measure the code before a change.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(os.environ.get("TTT_ROOT") or Path(__file__).resolve().parents[1])
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "bench"), str(ROOT)]

import aiohttp  # noqa: E402
from activity_latency import web_serving  # noqa: E402

from bot_harness import bot_process_env, free_port  # noqa: E402
from discord_emulator import DiscordEmulator  # noqa: E402

TRIES, BACKOFF, CAP = 6, 1.0, 30.0
"""The page's (web/src/discord.js)."""
MEMBERS = 10


async def post(
    http: aiohttp.ClientSession, base: str, code: str, instance: str
) -> tuple[int, dict[str, Any]]:
    async with http.post(f"{base}/api/session",
                         json={"code": code, "instance_id": instance}) as res:  # fmt: skip
        return res.status, await res.json()


async def page_signs_in(
    emu: DiscordEmulator, http: aiohttp.ClientSession, base: str, user: Any, instance: str
) -> int | None:
    """The tries it took, as the page tries; None when its six were refused."""
    code = emu.authorize(user)
    for attempt in range(TRIES):
        status, body = await post(http, base, code, instance)
        if status == 200:
            return attempt + 1
        if status != 429:
            return None
        wait = min(CAP, max(float(body.get("retry_after", 0)), BACKOFF * 2**attempt))
        await asyncio.sleep(wait + random.random() * wait * 0.5)
        if body.get("code_spent") is not False:
            code = emu.authorize(user)
    return None


async def junk(
    http: aiohttp.ClientSession, base: str, rate: float, ids: Callable[[int], str],
    stop: asyncio.Event, answers: dict[str, int],
) -> None:  # fmt: skip
    sent, due, pending = 0, time.perf_counter(), set()

    def count(task: asyncio.Task[tuple[int, dict[str, Any]]]) -> None:
        pending.discard(task)
        try:
            status, body = task.result()
            key = f"{status} {body.get('error')}"
        except Exception as exc:
            key = type(exc).__name__
        answers[key] = answers.get(key, 0) + 1

    while not stop.is_set():
        task = asyncio.create_task(post(http, base, f"junk{sent:026d}", ids(sent)))
        pending.add(task)
        task.add_done_callback(count)
        sent += 1
        due += 1 / rate
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
    await asyncio.gather(*pending, return_exceptions=True)


async def run(rate: float, scenario: str) -> str:
    emu = DiscordEmulator(validate=False)
    emu.rate_limits.token.set(5, 10.0)
    await emu.start()
    port, workdir = free_port(), Path(tempfile.mkdtemp(prefix="ttt-junk-flow-"))
    env = bot_process_env(emu, workdir / "ttt.sqlite3", TTT_WEB_PORT=str(port),
                          DISCORD_CLIENT_SECRET=emu.client_secret)  # fmt: skip
    proc = subprocess.Popen([sys.executable, "-m", "bot"], env=env, cwd=workdir,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        await emu.wait_until_ready(timeout=60)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
            await web_serving(http, base)
            users = [emu.create_user(f"member{n}") for n in range(MEMBERS)]
            if scenario == "known":
                first = emu.create_user("first")
                assert await page_signs_in(emu, http, base, first, emu.launch_activity(first))
                instances = [emu.launch_activity(user) for user in users]
            else:
                channels = [emu.create_channel(emu.guild, f"new-{n}") for n in range(MEMBERS)]
                pairs = zip(users, channels, strict=True)
                instances = [emu.launch_activity(user, channel) for user, channel in pairs]
            big = 10**17

            def ids(n: int) -> str:
                return "i-999999-gc-1-2" if scenario == "same" else f"i-{big + n}-gc-{big + n}-1"

            stop, answers = asyncio.Event(), {}  # type: ignore[var-annotated]
            flow = asyncio.create_task(junk(http, base, rate, ids, stop, answers))
            await asyncio.sleep(3)
            pages = zip(users, instances, strict=True)
            tries = await asyncio.gather(*(page_signs_in(emu, http, base, user, instance)
                                           for user, instance in pages))  # fmt: skip
            stop.set()
            await flow
            reads = sum(1 for r in emu.requests if "/activity-instances/" in r.path)
            signed = sorted(t for t in tries if t is not None)
            calls = emu.rate_limits.token.calls
            return (f"junk {rate:g}/s, {scenario}: {len(signed)} of {MEMBERS} signed in "
                    f"(tries {signed}); junk answered {dict(sorted(answers.items()))}; "
                    f"instance reads {reads}; token route calls {calls}")  # fmt: skip
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        await emu.stop()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, nargs="+", default=[20.0, 60.0])
    parser.add_argument("--scenario", nargs="+", default=["known", "new", "same"],
                        choices=["known", "new", "same"])  # fmt: skip
    args = parser.parse_args()
    for scenario in args.scenario:
        for rate in args.rate:
            print(await run(rate, scenario), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
