"""A digest hour: 5,000 members who chose a daily digest at the same hour, sent by the
real reminder sender through the Discord emulator.

    python bench/digest.py                          # SQLite, then PostgreSQL
    python bench/digest.py --backend sqlite --members 1000

Each member has four running correspondence games (3×3, one or three days a move): two
waiting for their move (one as X with no move yet, one as O after X's first) and two
waiting for their opponent's. The games are stored through the repository, as
bench/correspondence.py stores its own; each member's choice is made through the core
(``Reminders.choose(member, "digest", hour=…)``) an hour before that hour. Then the real
bot (``running_bot`` from the tests' harness: discord.py's client, the bot's cogs, its
``ReminderSender``) starts against the emulator in this process, the games' clock is
moved to the hour (it runs on in real time from there) and the sender is woken. What
counts is what the emulator received: every member's DM channel holds exactly one
message, and it links the member's two waiting games and neither of the other two.

Four runs, each on a database of its own:

- **capacity**: the 5,000 with ``TTT_DM_PER_MINUTE`` far above any real setting and the
  emulator's bucket on opening a DM (50 a second by default, standing for Discord's
  undocumented one, which discord.py's client waits out from the headers) widened, so
  the sender goes as fast as it can: DMs a second, the process's CPU a DM (the bot and the
  emulator share this process, so it is the two together: an upper bound for the bot),
  and the outbox's work a DM (``Reminders.next``: the digest rows claimed by the hundred,
  one row claimed ``sending``, the member's games read; ``Reminders.sent``: the mark),
  wall time on the shared event loop;
- **the outbox alone**: the same digests claimed, read and marked through the core, one
  after another, with no Discord and nothing else on the event loop;
- **pacing**: a few hundred members at a moderate rate (600 a minute): the gaps between
  the DMs as the emulator created them (none shorter than the interval, no second holding
  more than its share);
- what the default rate (120 a minute) makes of 5,000: arithmetic, printed.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import datetime as dt
import itertools
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

from bot.core.models import DAY  # noqa: E402
from bot.core.opponent import BotOpponent  # noqa: E402
from bot.core.policies import PolicyBook  # noqa: E402
from bot.core.policy import ServerPolicy  # noqa: E402
from bot.core.repository import Repository  # noqa: E402
from bot.core.rules import new_game  # noqa: E402
from bot.core.wiring import build_core  # noqa: E402
from bot.discord_ui.reminder_sender import DM_PER_MINUTE  # noqa: E402
from bot.storage import PostgresRepository, SqliteRepository  # noqa: E402

from bot_harness import running_bot, settings_for  # noqa: E402
from discord_emulator import DiscordEmulator, default_spec_path  # noqa: E402

HOUR_OF_DIGEST = 9
DIGEST_AT = 1_800_000_000.0 - 1_800_000_000.0 % DAY + DAY + HOUR_OF_DIGEST * 3600.0
"""9:00 UTC of a day in 2027: the members' digest hour, where the games' clock is moved."""
FLAT_OUT = 1_000_000
"""``TTT_DM_PER_MINUTE`` for the capacity run: an interval of 60 µs, so the sender goes
at its own speed."""
WAIT_MESSAGE = 600.0
"""Seconds the bench waits for the DMs before it gives up (a safety net)."""


class MovedClock:
    """The games' clock: an hour before the digest until :meth:`move`, then the digest's
    hour, running on in real time (the digests are claimed by the minute on it)."""

    def __init__(self) -> None:
        self.at, self.since = DIGEST_AT - 3600.0, None

    def move(self, at: float) -> None:
        self.at, self.since = at, time.monotonic()

    def __call__(self) -> float:
        return self.at + (0.0 if self.since is None else time.monotonic() - self.since)


def game_for(index: int, x: int, o: int, plies: int, guild: int, channel: int,
             rng: random.Random):  # fmt: skip
    """A running 3×3 game between ``x`` and ``o`` after ``plies`` moves, its deadline
    within its pace after the digest's hour."""
    pace = rng.choice((1, 3))
    deadline = DIGEST_AT + rng.uniform(600.0, pace * DAY - 600.0)
    game = new_game(guild_id=guild, channel_id=channel, size=3, player_x=x, player_o=o,
                    now=deadline - pace * DAY - 60.0, days_per_move=pace)  # fmt: skip
    return game.with_changes(moves=(4,)[:plies], turn_deadline=deadline,
                             updated_at=deadline - pace * DAY,
                             message_id=10**15 + index)  # fmt: skip


async def fill(repo: Repository, members: list[int], guild: int, channel: int
               ) -> dict[int, tuple[set[int], set[int]]]:  # fmt: skip
    """Every member's four games, stored; each member's choice of a digest at 9:00 UTC.
    Returns each member's (message ids of the games waiting for them, of the others)."""
    rng, n = random.Random(1), len(members)
    shown: dict[int, tuple[set[int], set[int]]] = {m: (set(), set()) for m in members}
    for i, member in enumerate(members):
        for k, (x, o, plies) in enumerate(((member, members[(i + 1) % n], 0),
                                           (members[(i + 2) % n], member, 1))):  # fmt: skip
            game = await repo.create_game(game_for(2 * i + k, x, o, plies, guild, channel, rng))
            waiting = x if plies == 0 else o
            for player in (x, o):
                shown[player][0 if player == waiting else 1].add(game.message_id or 0)
    core = build_core(repo, PolicyBook(repo, ServerPolicy()), BotOpponent(think_time=1.0),
                      bot_user_id=1, clock=MovedClock(), rng=random.Random(1))  # fmt: skip
    for member in members:
        await core.reminders.choose(member, "digest", hour=HOUR_OF_DIGEST)
    return shown


def spread(seconds: list[float]) -> str:
    ordered = sorted(seconds)
    return (f"median {statistics.median(ordered) * 1e3:.2f} ms "
            f"(p90 {ordered[int(len(ordered) * 0.9)] * 1e3:.2f})")  # fmt: skip


def timed(method: Callable[..., Awaitable[Any]], into: list[float]) -> Callable[..., Any]:
    async def wrapper(*args: Any) -> Any:
        began = time.perf_counter()
        try:
            return await method(*args)
        finally:
            into.append(time.perf_counter() - began)

    return wrapper


def created_at(message: dict[str, Any]) -> float:
    return dt.datetime.fromisoformat(message["timestamp"]).timestamp()


@contextlib.asynccontextmanager
async def database(backend: str, folder: Path, name: str) -> AsyncIterator[str | None]:
    """A fresh PostgreSQL database's URL, or None (SQLite, a file in ``folder``)."""
    if backend == "sqlite":
        yield None
        return
    from pg_server import start_server

    server, why = start_server(folder)
    if server is None:
        raise RuntimeError(f"no PostgreSQL server could be started ({why})")
    try:
        yield server.dsn(server.create_database())
    finally:
        server.stop()


async def digest_hour(backend: str, folder: Path, name: str, members: int,
                      per_minute: int) -> list[str]:  # fmt: skip
    """One digest hour of ``members`` at ``per_minute``: what went, how fast, how."""
    spec = default_spec_path()
    emu = DiscordEmulator(spec_path=spec if spec.is_file() else None, validate=spec.is_file())
    await emu.start()
    if per_minute >= FLAT_OUT:  # the sender's own speed, not the emulator's bucket's
        emu.rate_limits.dm.set(1_000_000, 1.0)
    sqlite = folder / f"{name}.sqlite3"
    lines = [f"-- {name}: {members:,} members, TTT_DM_PER_MINUTE={per_minute:,}, {backend}"]
    try:
        async with database(backend, folder, name) as url:
            users = [emu.create_user(f"m{i}") for i in range(members)]
            repo = PostgresRepository(url, 2) if url else SqliteRepository(sqlite)
            await repo.open()
            began = time.perf_counter()
            try:
                shown = await fill(repo, [u.id for u in users], emu.guild.id, emu.channel.id)
            finally:
                await repo.close()
            lines.append(f"filled: {2 * members:,} games and {members:,} choices in "
                         f"{time.perf_counter() - began:.1f} s")  # fmt: skip
            clock = MovedClock()
            settings = settings_for(emu, sqlite, dm_per_minute=per_minute, database_url=url)
            async with running_bot(emu, settings, game_clock=clock) as bot:
                nexts: list[float] = []
                marks: list[float] = []
                bot.reminders.next = timed(bot.reminders.next, nexts)  # type: ignore[method-assign]
                bot.reminders.sent = timed(bot.reminders.sent, marks)  # type: ignore[method-assign]
                starts: list[float] = []
                sender = bot.reminder_sender
                pace = sender._pace

                async def paced() -> None:  # the sender's turn to send: the time it read
                    await pace()  # (read again here, an OS preemption would shift it)
                    starts.append(sender._next_send - sender.interval)

                sender._pace = paced  # type: ignore[method-assign]
                seen = len(emu.requests)
                await asyncio.sleep(1.0)  # the bot's start-up passes settle
                cpu, wall = time.process_time(), time.perf_counter()
                clock.move(DIGEST_AT)
                bot.reminders.wake.set()
                posted, deadline = 0, wall + WAIT_MESSAGE
                while posted < members and time.perf_counter() < deadline:
                    await asyncio.sleep(0.02)
                    new, seen = emu.requests[seen:], len(emu.requests)
                    posted += sum(1 for r in new if r.method == "POST"
                                  and r.path.endswith("/messages"))  # fmt: skip
                took, cpu = time.perf_counter() - wall, time.process_time() - cpu
                await asyncio.sleep(0.5)  # any DM more (there should be none)
    finally:
        await emu.stop()

    dms = {u.id: emu.channel_messages(emu._dms[u.id]) if u.id in emu._dms else []
           for u in users}  # fmt: skip
    counts = [len(v) for v in dms.values()]
    right = sum(1 for u in users if len(dms[u.id]) == 1 and all(
        (f"/{mid}" in dms[u.id][0]["content"]) == (mid in shown[u.id][0])
        for mid in shown[u.id][0] | shown[u.id][1]))  # fmt: skip
    lines.append(f"DMs: {sum(counts):,} to {sum(1 for c in counts if c):,} members; exactly one: "
                 f"{counts.count(1):,}; none: {counts.count(0):,}; more than one: "
                 f"{sum(1 for c in counts if c > 1):,}; listing their 2 waiting games and "
                 f"neither of the 2 others: {right:,}")  # fmt: skip
    lines.append(
        f"sent in {took:.1f} s: {posted / took:.1f} DMs a second; process CPU "
        f"(bot and emulator) {cpu:.1f} s, {cpu / max(1, posted) * 1e3:.2f} ms a DM"
    )
    if nexts and marks:
        lines.append(f"outbox a DM (wall, on the shared loop): Reminders.next {spread(nexts)}, "
                     f"Reminders.sent {spread(marks)}")  # fmt: skip
    limit = emu.rate_limits.dm
    lines.append(f"DM channels opened: {limit.calls:,} calls, {limit.limited} answered 429 "
                 f"(bucket: {limit.limit:,} a second), {limit.early} made early; spec violations: "
                 f"{len(emu.violations)}")  # fmt: skip
    if per_minute < FLAT_OUT:
        created = sorted(created_at(m) for v in dms.values() for m in v)
        lines.extend(pacing(created, starts, per_minute))
    return lines


async def outbox_alone(backend: str, folder: Path, members: int) -> list[str]:
    """The outbox's work for a digest hour without Discord or an event loop shared with
    anything: the same fill, then ``Reminders.next`` and ``Reminders.sent`` one after
    another until nothing is due, as the sender calls them."""
    name = f"outbox-{backend}"
    async with database(backend, folder, name) as url:
        repo = PostgresRepository(url, 2) if url else SqliteRepository(folder / f"{name}.db")
        await repo.open()
        try:
            await fill(repo, [10**6 + i for i in range(members)], 1, 2)
            clock = MovedClock()
            core = build_core(repo, PolicyBook(repo, ServerPolicy()), BotOpponent(think_time=1.0),
                              bot_user_id=1, clock=clock, rng=random.Random(1))  # fmt: skip
            clock.move(DIGEST_AT)
            nexts, marks, games = [], [], 0
            cpu, wall = time.process_time(), time.perf_counter()
            while True:
                began = time.perf_counter()
                item = await core.reminders.next()
                nexts.append(time.perf_counter() - began)
                if item is None:
                    break
                games += len(item.games)
                began = time.perf_counter()
                await core.reminders.sent(item.reminder)
                marks.append(time.perf_counter() - began)
            took, cpu = time.perf_counter() - wall, time.process_time() - cpu
        finally:
            await repo.close()
    return [
        f"-- {name}: {members:,} digests claimed, read and marked, no Discord: "
        f"{len(marks):,} digests of {games:,} games in {took:.1f} s, CPU {cpu:.1f} s "
        f"({cpu / max(1, len(marks)) * 1e3:.2f} ms a digest); Reminders.next {spread(nexts)}, "
        f"Reminders.sent {spread(marks)}"
    ]


def most_within(times: list[float], window: float) -> int:
    return max(bisect.bisect_left(times, t + window) - i for i, t in enumerate(times))


def pacing(created: list[float], started: list[float], per_minute: int) -> list[str]:
    """The gaps between DMs as the emulator created them, and between the sender's turns
    to send (the times its ``_pace`` read, before the row is claimed): the pace is kept
    there, and what reaches Discord moves by the time each claim and request take."""
    interval = 60.0 / per_minute
    gaps = [b - a for a, b in itertools.pairwise(created)]
    starts = [b - a for a, b in itertools.pairwise(started)]
    short = sum(1 for g in gaps if g < interval)
    return [
        f"gaps between the sender's turns to send: min {min(starts) * 1e3:.1f} ms, median "
        f"{statistics.median(starts) * 1e3:.1f} ms (interval {interval * 1e3:.0f} ms); "
        f"shorter than the interval: {sum(1 for g in starts if g < interval - 1e-6)}",
        f"gaps between DMs as the emulator created them: min {min(gaps) * 1e3:.1f} ms, median "
        f"{statistics.median(gaps) * 1e3:.1f} ms, max {max(gaps) * 1e3:.1f} ms; shorter than "
        f"the interval: {short} (by {max((interval - g for g in gaps), default=0.0) * 1e3:.1f}"
        f" ms at most); most in any second: {most_within(created, 1.0)} (allowed "
        f"{per_minute / 60:.0f}), in any 10 seconds: {most_within(created, 10.0)} (allowed "
        f"{per_minute / 6:.0f})",
    ]


async def bench(args: argparse.Namespace) -> None:
    print(f"digest bench: {args.members:,} members at one digest hour, the real sender "
          "through the Discord emulator")  # fmt: skip
    print(
        f"machine: {platform.platform()}, Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start"
    )
    backends = ("sqlite", "postgres") if args.backend == "both" else (args.backend,)
    with tempfile.TemporaryDirectory() as tmp:
        for backend in backends:
            for line in await outbox_alone(backend, Path(tmp), args.members):
                print(line, flush=True)
            for line in await digest_hour(backend, Path(tmp), f"capacity-{backend}",
                                          args.members, FLAT_OUT):  # fmt: skip
                print(line, flush=True)
        for line in await digest_hour("sqlite", Path(tmp), "pacing", args.paced, 600):
            print(line, flush=True)
    minutes = args.members / DM_PER_MINUTE
    print(
        f"at the default TTT_DM_PER_MINUTE={DM_PER_MINUTE}: {args.members:,} DMs take "
        f"{minutes:.1f} minutes ({'within' if minutes <= 60 else 'past'} the hour)"
    )
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=5_000)
    parser.add_argument("--paced", type=int, default=300, help="members of the pacing run")
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both")
    asyncio.run(bench(parser.parse_args()))


if __name__ == "__main__":
    main()
