"""Issue 53's four attacks, as someone on the internet with no Discord account tries them,
against the real bot behind the shipped nginx (deploy/nginx.conf, its upstream and port
rewritten by tests/nginx_harness.py): figures for docs/run/under-abuse.md.

    python bench/abuse_second.py | tee bench/results/abuse/<name>.txt
    python bench/abuse_second.py --attacks bombs,frames
    git show 3484b14:deploy/nginx.conf > /tmp/old.conf
    python bench/abuse_second.py --nginx-conf /tmp/old.conf   # another nginx.conf
    python bench/abuse_second.py --direct          # one process, no nginx in front
    python bench/abuse_second.py --processes 3     # gateway-less, on PostgreSQL

Each attack gets a fresh bot process (gateway, web service with the Activity and
/interactions, on SQLite; ``python -m bot`` as an owner runs it) and nginx in front; the
emulator runs in this process and signs the interactions it POSTs to nginx. Everything
goes through nginx from 127.0.0.1: one address, as Discord's proxy is for the members.

- ``bombs``: gzip bodies to /interactions (``--bomb-clients`` clients of 250 KB bodies
  that expand to 250 MB, then ``--big-clients`` of 1 MB ones that expand to 1,000 MB)
  while a signed ``/ttt start`` comes every second: the answers' p50 and max, and how
  many missed Discord's 3 s.
- ``junk``: junk sign-ins naming unknown instance ids at each of ``--junk-rates`` a
  second while 10 members sign in as the page does (six tries, its waits).
- ``drip``: 200 ``POST /api/session`` and 1,000 ``GET /api/live``, each dripping one
  byte of body every 4 s (reopened 4 s after the server closes it); a wave of 10
  members every 7 s signs in as the page does and asks for its channel's games.
- ``frames``: one member's three live sockets send frames as fast as they can: the bot
  process's CPU (/proc/<pid>/stat) before and during, and whether the sockets are closed.

It copes with the code before issue 53 and after: the live socket gets its session in
the URL and in a first frame; refusals are counted by status and ``error``, whatever
they are. Timed figures are for a machine left alone; the load average is printed with
each.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "bench"), str(ROOT)]

import abuse_clients as clients  # noqa: E402
from abuse_stack import Stack, counts, load, machine, ms  # noqa: E402

from discord_emulator import DiscordEmulator  # noqa: E402

ATTACKS = ("bombs", "junk", "drip", "frames")
LATE = 3.0  # Discord's deadline for an interaction's answer


def stack_for(args: argparse.Namespace, workdir: Path) -> Stack:
    return Stack(workdir, args.nginx_conf, args.processes, args.direct)


# --- 1. gzip bombs against /interactions --------------------------------------------------


async def starts(emu: DiscordEmulator, tag: str, count: int) -> list[float | None]:
    """A signed ``/ttt start`` against the bot each second, each in a channel of its own:
    each one's seconds until answered (None: never)."""

    async def one(n: int) -> float | None:
        member = emu.create_user(f"{tag}{n}")
        channel = emu.create_channel(emu.guild, f"{tag}-{n}")
        res = await emu.invoke(member, "ttt start", {"first": "me", "difficulty": "easy"},
                               channel=channel)  # fmt: skip
        return res.latency

    tasks = []
    for n in range(count):
        tasks.append(asyncio.create_task(one(n)))
        await asyncio.sleep(1.0)
    return list(await asyncio.gather(*tasks))


async def bombs(args: argparse.Namespace, workdir: Path) -> list[str]:
    small, big = clients.gzip_bomb(250), clients.gzip_bomb(1000)
    rows = ["| while | /ttt start answered | p50 | max | missed 3 s | bomb POSTs answered "
            "| load |", "|---|---|---|---|---|---|---|"]  # fmt: skip
    async with stack_for(args, workdir) as stack:
        rounds = [("nothing else", b"", 0),
                  (f"{args.bomb_clients} clients POST {len(small) // 1000} KB gzip → 250 MB",
                   small, args.bomb_clients),
                  (f"{args.big_clients} clients POST {len(big) // 1000} KB gzip → 1,000 MB",
                   big, args.big_clients)]  # fmt: skip
        for n, (name, body, senders) in enumerate(rounds):
            stop, tally = asyncio.Event(), Counter[str]()
            url = f"{stack.front}/interactions"
            posting = [asyncio.create_task(clients.bomb_loop(url, body, stop, tally))
                       for _ in range(senders)]  # fmt: skip
            await asyncio.sleep(1.0 if senders else 0)
            took = await starts(stack.emu, f"r{n}-", args.interactions)
            stop.set()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*posting), 40)
            answered = [t for t in took if t is not None]
            missed = sum(1 for t in took if t is None or t > LATE)
            times = f"{ms(answered, 0.5)} | {ms(answered, 1.0)}"
            rows.append(f"| {name} | {len(answered)} of {len(took)} | {times} | {missed} "
                        f"| {counts(tally)} | {load()} |")  # fmt: skip
            await asyncio.sleep(2)  # what the last bombs left behind settles
    return rows


# --- 2. junk sign-ins ---------------------------------------------------------------------


async def junk(args: argparse.Namespace, workdir: Path) -> list[str]:
    rows = ["| junk sign-ins (unknown instance ids) | members signed in | their tries | "
            "slowest | refusals they saw | junk answered | load |",
            "|---|---|---|---|---|---|---|"]  # fmt: skip
    for rate in args.junk_rates:
        (workdir / f"junk-{rate:g}").mkdir()
        async with stack_for(args, workdir / f"junk-{rate:g}") as stack:
            emu, stop, tally = stack.emu, asyncio.Event(), Counter[str]()
            flow = asyncio.create_task(clients.junk_flow(stack.http, stack.front, rate, stop,
                                                         tally))  # fmt: skip
            await asyncio.sleep(args.junk_lead)  # the flood is on before the members come
            members = [emu.create_user(f"member{n}") for n in range(args.members)]
            channels = [emu.create_channel(emu.guild, f"table-{n}") for n in range(args.members)]
            done = await asyncio.gather(*(
                clients.page_sign_in(emu, stack.http, stack.front, m, c, random.Random(seed))
                for m, c, seed in zip(members, channels, range(args.members), strict=True)
            ))  # fmt: skip
            stop.set()
            await flow
            signed = [d for d in done if d[0] is not None]
            refusals = Counter(d[3] for d in done if d[0] is None)
            rows.append(f"| {rate:g} a second | {len(signed)} of {len(done)} | "
                        f"{sorted(d[1] for d in signed)} | "
                        f"{max((d[2] for d in signed), default=0):.1f} s | "
                        f"{counts(refusals)} | {counts(tally)} | {load()} |")  # fmt: skip
    return rows


# --- 3. dripping requests -------------------------------------------------------------------


async def served(stack: Stack, wave: int, size: int) -> tuple[int, Counter[str], list[float]]:
    """``size`` members open the Activity in a channel and sign in as the page does (its
    six tries and waits), then ask for its games: how many got both, what the others
    got last, and the seconds each took."""
    emu = stack.emu
    channel = emu.create_channel(emu.guild, f"wave-{wave}")

    async def one(n: int) -> tuple[str, float]:
        member = emu.create_user(f"w{wave}-{n}")
        began = time.monotonic()
        session, _, _, refused = await clients.page_sign_in(
            emu, stack.http, stack.front, member, channel, random.Random(n)
        )
        if session is None:
            return f"sign-in {refused}", time.monotonic() - began
        signed = {"Authorization": f"Bearer {session}"}
        async with stack.http.get(f"{stack.front}/api/games", headers=signed) as res:
            await res.read()
        took = time.monotonic() - began
        return ("ok" if res.status == 200 else f"games {res.status}"), took

    results = await asyncio.gather(*(one(n) for n in range(size)))
    outcome = Counter(what for what, _ in results)
    return outcome.pop("ok", 0), outcome, [t for _, t in results]


async def drip(args: argparse.Namespace, workdir: Path) -> list[str]:
    rows = ["| wave | connections held then (opened so far) | members served | what the others "
            "got | slowest member | load |", "|---|---|---|---|---|---|"]  # fmt: skip
    async with stack_for(args, workdir) as stack:
        # a member before the attack, as a running service has had: the sign-in's
        # Discord bucket is known (with it unknown, ttt lets one call at a time through)
        await served(stack, -1, 1)
        posts = clients.Drippers(stack.proxy, clients.drip_head("POST", "/api/session"),
                                 args.drip_posts, args.drip_every)  # fmt: skip
        lives = clients.Drippers(stack.proxy, clients.drip_head("GET", "/api/live"),
                                 args.drip_lives, args.drip_every)  # fmt: skip
        began = time.monotonic()
        posts.start()
        lives.start()

        async def wave(n: int) -> str:
            await asyncio.sleep((n + 1) * args.wave_every)
            at = time.monotonic() - began
            held = f"{posts.held} + {lives.held} ({posts.opened} + {lives.opened})"
            ok, others, took = await served(stack, n, args.members)
            return (f"| at {at:.0f} s | {held} | {ok} of {args.members} | {counts(others)} "
                    f"| {max(took):.1f} s | {load()} |")  # fmt: skip

        waves = int(args.drip_seconds // args.wave_every)
        rows += await asyncio.gather(*(wave(n) for n in range(waves)))
        await posts.stop()
        await lives.stop()
        rows.append(f"\nthe server ended the dripping POSTs: {counts(posts.ended)}; the "
                    f"GETs: {counts(lives.ended)}; longest held "
                    f"{max(posts.lifetimes + lives.lifetimes, default=0):.0f} s; "
                    f"{time.monotonic() - began:.0f} s in all")  # fmt: skip
    return rows


# --- 4. frames on live sockets --------------------------------------------------------------


async def frames(args: argparse.Namespace, workdir: Path) -> list[str]:
    rows = ["| frames | the bot's CPU, 3 sockets open idle | while they flood | frames "
            "sent | sockets closed (code, after) | /api/config meanwhile, max | load |",
            "|---|---|---|---|---|---|---|"]  # fmt: skip
    async with stack_for(args, workdir) as stack:
        emu = stack.emu
        member = emu.create_user("flooder")
        session, *_ = await clients.page_sign_in(emu, stack.http, stack.front, member,
                                                 emu.create_channel(emu.guild, "flood"),
                                                 random.Random(1))  # fmt: skip
        assert session is not None, "the flooding member could not sign in"
        sockets = [clients.RawSocket() for _ in range(3)]
        for sock in sockets:
            await sock.open(stack.proxy, session)
        cpu, wall = bots_cpu(stack), time.monotonic()
        await asyncio.sleep(3)
        idle = (bots_cpu(stack) - cpu) / (time.monotonic() - wall)
        probes: list[float] = []

        async def probe(until: float) -> None:
            while time.monotonic() < until:
                began = time.monotonic()
                async with stack.http.get(f"{stack.front}/api/config") as res:
                    await res.read()
                probes.append(time.monotonic() - began)
                await asyncio.sleep(0.5)

        cpu, wall = bots_cpu(stack), time.monotonic()
        await asyncio.gather(*(s.flood(args.flood_seconds) for s in sockets),
                             probe(wall + args.flood_seconds))  # fmt: skip
        busy = (bots_cpu(stack) - cpu) / (time.monotonic() - wall)
        sent = sum(s.frames_sent for s in sockets)
        closed = "; ".join(
            f"{s.close_code or 'no close frame'} after {s.closed_after:.2f} s"
            if s.closed_after is not None else "open" for s in sockets
        )  # fmt: skip
        rate = sent / args.flood_seconds
        rows.append(f"| one member, 3 sockets, {args.flood_seconds:g} s | {100 * idle:.0f} % | "
                    f"{100 * busy:.0f} % of a core | {sent:,} ({rate:,.0f} a second) | "
                    f"{closed} | {ms(probes, 1.0)} | {load()} |")  # fmt: skip
    return rows


def bots_cpu(stack: Stack) -> float:
    """The bot processes' CPU seconds so far (their engine workers apart)."""
    return sum(clients.cpu_seconds(pid) for pid in stack.pids)


async def bench(args: argparse.Namespace) -> None:
    # a late or failed interaction is what the figures count: not a warning each
    logging.getLogger("discord_emulator").setLevel(logging.ERROR)
    for line in machine():
        print(line, flush=True)
    kind = "the bot on SQLite" if args.processes == 1 else "gateway-less, on PostgreSQL"
    front = ("no nginx: straight to the process" if args.direct else
             f"behind nginx on {args.nginx_conf or 'deploy/nginx.conf'}")  # fmt: skip
    print(f"{args.processes} bot process(es) ({kind}), {front}", flush=True)
    runs: dict[str, Callable[[argparse.Namespace, Path], Awaitable[list[str]]]] = {
        "bombs": bombs, "junk": junk, "drip": drip, "frames": frames}  # fmt: skip
    for attack in args.attacks:
        print(f"\n## {attack}\n", flush=True)
        began = time.monotonic()
        with tempfile.TemporaryDirectory() as tmp:
            try:
                for line in await runs[attack](args, Path(tmp)):
                    print(line, flush=True)
            except Exception as exc:  # one attack's failure leaves the others' figures
                print(f"the {attack} attack failed: {type(exc).__name__}: {exc}", flush=True)
        print(f"({attack}: {time.monotonic() - began:.0f} s)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = parser.add_argument
    add("--attacks", default=",".join(ATTACKS), help=f"comma-separated, of {', '.join(ATTACKS)}")
    add("--interactions", type=int, default=12, help="signed /ttt start per bombs round")
    add("--bomb-clients", type=int, default=2, help="clients posting 250 KB bombs")
    add("--big-clients", type=int, default=3, help="clients posting 1 MB bombs")
    add("--junk-rates", default="20,60", help="junk sign-ins a second, one run each")
    add("--junk-lead", type=float, default=10.0,
        help="seconds of junk before the members come (the burst of the budget spent)")  # fmt: skip
    add("--members", type=int, default=10, help="members signing in (junk, drip waves)")
    add("--drip-posts", type=int, default=200, help="dripping POST /api/session")
    add("--drip-lives", type=int, default=1000, help="dripping GET /api/live")
    add("--drip-every", type=float, default=4.0, help="seconds between dripped bytes")
    add("--drip-seconds", type=float, default=30.0, help="how long the drip attack lasts")
    add("--wave-every", type=float, default=7.0, help="seconds between waves of members")
    add("--flood-seconds", type=float, default=10.0, help="seconds the sockets flood")
    add("--processes", type=int, default=1,
        help="bot processes behind nginx: 1, the bot on SQLite; more, gateway-less ones "
             "on PostgreSQL (as compose.http.yaml)")  # fmt: skip
    add("--direct", action="store_true", help="one process alone, every request to it: no nginx")
    add("--nginx-conf", type=Path, default=None,
        help="an nginx.conf to run instead of deploy/nginx.conf (`git show REV:deploy/"
             "nginx.conf > old.conf` for an earlier one's figures)")  # fmt: skip
    args = parser.parse_args()
    args.attacks = [a for a in args.attacks.split(",") if a]
    args.junk_rates = [float(r) for r in args.junk_rates.split(",") if r]
    if unknown := set(args.attacks) - set(ATTACKS):
        parser.error(f"unknown attack(s): {', '.join(sorted(unknown))}")
    asyncio.run(bench(args))


if __name__ == "__main__":
    main()
