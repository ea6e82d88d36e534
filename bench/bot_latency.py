"""Click-to-response latency of the bot with many games at once, through the local emulator.

    python bench/bot_latency.py --games 50 --moves-per-game 4

Starts the Discord emulator in this process (request bodies validated against Discord's
OpenAPI spec when it is present) and the real bot as a child process (``python -m bot``),
so each has a core of its own, as the bot and Discord would. Every game has its own
member and channel (one game per channel); all games run at once, against the bot at
``hard`` with the member moving first. Each member thinks for ``--think`` seconds on
average (uniform between half and one and a half times that; 0 clicks as fast as the
answers come), then clicks a legal empty square on the latest board, until the game ends
or it made ``--moves-per-game`` moves. Latency is the emulator's time from dispatching
INTERACTION_CREATE (or POSTing the interaction, for ``ttt-http``) to the arrival of the
bot's initial response (its callback, or the HTTP response), for every click.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

import discord  # noqa: E402

from engine import Board  # noqa: E402

from bot_harness import bot_process_env, cell_buttons, free_port  # noqa: E402
from discord_emulator import DiscordEmulator, default_spec_path  # noqa: E402
from pg_server import PgServer, start_server  # noqa: E402

MARKS = {"❌": "X", "⭕": "O"}


def board_of(message: dict) -> Board:
    return Board.from_string(
        "".join(MARKS.get((b.get("emoji") or {}).get("name"), ".") for b in cell_buttons(message))
    )


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    start_latencies: list[float] = field(default_factory=list)
    member_moves: int = 0
    bot_replies: int = 0
    deferred: int = 0
    unanswered: int = 0
    refused: int = 0
    finished_games: int = 0
    rss: tuple[int, int, int] | None = None
    """(baseline, largest sampled, kernel's peak) RSS of the bot in KB."""
    problems: list[str] = field(default_factory=list)
    """The emulator's spec violations and error responses, as lines."""

    def trim(self, mark: tuple[int, int, int, int, int]) -> None:
        """Keep only what came after :meth:`mark` (the warm-up left out of the figures;
        what went wrong during it is kept)."""
        clicks, starts, moves, replies, finished = mark
        del self.latencies[:clicks], self.start_latencies[:starts]
        self.member_moves -= moves
        self.bot_replies -= replies
        self.finished_games -= finished

    def mark(self) -> tuple[int, int, int, int, int]:
        return (len(self.latencies), len(self.start_latencies), self.member_moves,
                self.bot_replies, self.finished_games)  # fmt: skip


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of a non-empty list."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


async def bot_replied(emu: DiscordEmulator, message_id: str, mark: str) -> dict:
    """The message once the bot's reply is on it: on a big board the member's move may be
    shown first and the reply edited in when the search ends."""
    for _ in range(400):
        message = emu.message(message_id)
        board = board_of(message)
        if board.is_over() or board.to_move == mark:
            return message
        await asyncio.sleep(0.025)
    return emu.message(message_id)


async def play(
    emu: DiscordEmulator,
    user,
    message: dict,
    moves: int,
    rng: random.Random,
    tally: Tally,
    think: float,
    until: float | None = None,
) -> dict:
    for _ in range(moves):
        board = board_of(message)
        if board.is_over() or (until is not None and time.perf_counter() > until):
            break
        await asyncio.sleep(rng.uniform(0.5, 1.5) * think)
        cell = rng.choice(board.legal_moves())
        res = await emu.click(user, message, cell_buttons(message)[cell]["custom_id"])
        if res.type is None:
            tally.unanswered += 1
            return message
        tally.latencies.append(res.latency)
        if res.type in (5, 6):
            tally.deferred += 1
            await res.wait_for_edit(timeout=10)
        if res.ephemeral:
            tally.refused += 1
            return message
        message = await bot_replied(emu, message["id"], board.to_move)
        after = board_of(message)
        tally.member_moves += 1
        tally.bot_replies += after.move_count - board.move_count - 1
    if board_of(message).is_over():
        tally.finished_games += 1
    return message


async def slot(
    emu: DiscordEmulator, user, channel, rng: random.Random, tally: Tally, think: float,
    until: float, options: Callable[[random.Random], dict] | None = None,
) -> None:  # fmt: skip
    """One channel kept busy until ``until``: a game, then another, and so on; each
    started with ``options(rng)`` (default: hard, the member first)."""
    while time.perf_counter() < until:
        await asyncio.sleep(rng.uniform(0.5, 1.5) * think)
        chosen = options(rng) if options else {"difficulty": "hard", "first": "me"}
        res = await emu.invoke(user, "ttt start", chosen, channel=channel)
        if res.type is None:
            tally.unanswered += 1
            return
        tally.start_latencies.append(res.latency)
        if res.ephemeral:
            tally.refused += 1
            return
        await play(emu, user, res.message, 1000, rng, tally, think, until)


def rss_kb(pid: int) -> tuple[int, int]:
    """(current, peak) resident set size of a process, in KB, from /proc."""
    fields = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


async def wait_until_ready(emu: DiscordEmulator, proc: subprocess.Popen[bytes]) -> None:
    for _ in range(300):
        if proc.poll() is not None:
            raise SystemExit(
                f"the bot exited with {proc.returncode}: "
                f"{proc.stderr.read().decode() if proc.stderr else ''}"
            )
        if emu.ready_count >= 1 and emu.sync_count >= 1:
            return
        await asyncio.sleep(0.05)
    raise SystemExit("the bot did not get ready within 15 s")


BOTS = ("minimal", "ttt", "ttt-http", "ttt-http-unclaimed")
"""The bots a run can measure, in the order they run: the minimal discord.py bot
(bench/minimal_bot.py) first, as the yardstick, then ttt over the gateway, then ttt
with no gateway connection (TTT_GATEWAY=off), every interaction POSTed to it, signed
(and claimed, so that a replay is refused: bot/web/replays.py), then the same without
the claim (bench/unclaimed_bot.py), to show what the claim costs."""
DEFAULT_BOTS = ("minimal", "ttt")


def bot_command(kind: str) -> list[str]:
    if kind == "minimal":
        return [sys.executable, str(ROOT / "bench" / "minimal_bot.py")]
    if kind == "ttt-http-unclaimed":
        return [sys.executable, str(ROOT / "bench" / "unclaimed_bot.py")]
    return [sys.executable, "-m", "bot"]


def over_http(kind: str) -> bool:
    return kind.startswith("ttt-http")


async def serving_http(emu: DiscordEmulator, proc: subprocess.Popen[bytes], url: str) -> None:
    """Until the gateway-less bot synced its commands and answers a signed PING."""
    body = b'{"type": 1}'
    for _ in range(300):
        if proc.poll() is not None:
            raise SystemExit(f"the bot exited with {proc.returncode}: "
                             f"{proc.stderr.read().decode() if proc.stderr else ''}")  # fmt: skip
        if emu.sync_count >= 1:
            try:
                status, _ = await emu.http_mode.post_raw(body, emu.http_mode.headers(body))
            except OSError:
                status = 0
            if status == 200:
                return
        await asyncio.sleep(0.05)
    raise SystemExit(f"the bot did not serve {url} within 15 s")


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name; None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rpartition(")")[2].split()
    except OSError:
        return None


def tree_cpu_seconds(root: int) -> float:
    """CPU time (user + system) of a process and every process under it, living or
    reaped: the bot with its engine workers, the database server with its backends."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (fields := _stat_fields(int(entry))) is not None:
            children.setdefault(int(fields[1]), []).append(int(entry))
    ticks, todo = 0, [root]
    while todo:
        pid = todo.pop()
        fields = _stat_fields(pid)
        if fields is not None:  # utime stime cutime cstime: fields 14-17 of stat(5)
            ticks += sum(int(x) for x in fields[11:15])
            todo.extend(children.get(pid, ()))
    return ticks / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of the process itself, without its children."""
    fields = _stat_fields(pid)
    if fields is None:
        raise ProcessLookupError(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def postmaster_pid(data_dir: Path) -> int:
    return int((data_dir / "postmaster.pid").read_text().split()[0])


@dataclass
class Run:
    """One bot's figures under the load."""

    bot: str
    tally: Tally
    wall: float
    cpu: float
    """CPU seconds of the bot's process tree while the load ran."""
    db_cpu: float | None = None
    """CPU seconds of the PostgreSQL server (all its processes) meanwhile."""
    db_transactions: int | None = None
    """Transactions the server committed or rolled back meanwhile (each statement outside
    a transaction is one)."""

    @property
    def interactions(self) -> int:
        return len(self.tally.latencies) + len(self.tally.start_latencies)

    @property
    def moves_per_second(self) -> float:
        return (self.tally.member_moves + self.tally.bot_replies) / self.wall

    def cpu_ms(self, with_database: bool = False) -> float:
        """CPU per interaction answered, in ms (with the database server's, if asked)."""
        cpu = self.cpu + ((self.db_cpu or 0.0) if with_database else 0.0)
        return 1000 * cpu / max(1, self.interactions)


async def measure(
    kind: str, games: int, moves: int, seed: int, validate: bool, think: float,
    duration: float | None, dsn: str | None = None, pg_data: Path | None = None,
    warmup: float = 0.0, web: bool = False,
) -> Run:  # fmt: skip
    """Run the load against one bot (``kind`` in :data:`BOTS`) in a process of its own,
    with a fresh emulator; ``dsn`` makes ttt use that PostgreSQL database instead of a
    SQLite file, ``pg_data`` its server's data folder (to count its CPU). With a
    ``duration``, the load runs ``warmup`` seconds more first, left out of the figures:
    what a fresh process pays once (its database connections, the server's backends
    for them, the first statements' plans) is not what each interaction costs. ``web``
    serves ttt's live board too (TTT_WEB_PORT and DISCORD_CLIENT_SECRET), with no page
    open: what the Activity adds to a click nobody watches on a page."""
    spec = default_spec_path()
    emu = DiscordEmulator(spec_path=spec, validate=validate and spec.is_file())
    tally = Tally()
    rng = random.Random(seed)
    db_cpu: float | None = None
    db_transactions: int | None = None
    with tempfile.TemporaryDirectory() as tmp:
        await emu.start()
        try:
            extra = {"TTT_LOG_LEVEL": "WARNING"}
            if dsn is not None:
                extra["TTT_DATABASE_URL"] = dsn
            if web and kind != "minimal":
                extra |= {"DISCORD_CLIENT_SECRET": emu.client_secret}
            port = free_port()
            if (web and kind != "minimal") or over_http(kind):
                extra["TTT_WEB_PORT"] = str(port)
            if over_http(kind):
                extra |= {"TTT_GATEWAY": "off", "DISCORD_PUBLIC_KEY": emu.public_key}
            env = bot_process_env(emu, Path(tmp) / "ttt.sqlite3", **extra)
            proc = subprocess.Popen(
                bot_command(kind), env=env, cwd=tmp, stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, process_group=0,
            )  # fmt: skip
            try:
                if over_http(kind):
                    emu.use_http(f"http://127.0.0.1:{port}/interactions")
                    await serving_http(emu, proc, f"http://127.0.0.1:{port}/interactions")
                else:
                    await wait_until_ready(emu, proc)
                players = [emu.create_user(f"player{i}") for i in range(games)]
                channels = [emu.create_channel(emu.guild, f"game-{i}") for i in range(games)]
                await asyncio.sleep(0.5)
                baseline = rss_kb(proc.pid)[0]
                postmaster = postmaster_pid(pg_data) if pg_data is not None else None
                xacts_before = await transactions(dsn) if dsn is not None else 0
                began = time.perf_counter()
                if duration is not None:
                    until = began + warmup + duration
                    samples: list[int] = []

                    async def sample() -> None:
                        while True:
                            samples.append(rss_kb(proc.pid)[0])
                            await asyncio.sleep(0.5)

                    load = asyncio.gather(
                        *(
                            slot(emu, p, c, random.Random(rng.random()), tally, think, until)
                            for p, c in zip(players, channels, strict=True)
                        )
                    )
                    await asyncio.sleep(warmup)
                    warm = tally.mark()
                    db_before = tree_cpu_seconds(postmaster) if postmaster else 0.0
                    cpu_before = tree_cpu_seconds(proc.pid)
                    began = time.perf_counter()
                    sampler = asyncio.create_task(sample())
                    await load
                    sampler.cancel()
                    tally.rss = (baseline, max(samples), rss_kb(proc.pid)[1])
                    everything = len(tally.latencies) + len(tally.start_latencies)
                    tally.trim(warm)
                else:
                    db_before = tree_cpu_seconds(postmaster) if postmaster else 0.0
                    cpu_before = tree_cpu_seconds(proc.pid)
                    starts = await asyncio.gather(
                        *(
                            emu.invoke(
                                p, "ttt start", {"difficulty": "hard", "first": "me"}, channel=c
                            )
                            for p, c in zip(players, channels, strict=True)
                        )
                    )
                    tally.start_latencies = [r.latency for r in starts if r.latency is not None]
                    tally.unanswered += sum(r.type is None for r in starts)
                    await asyncio.gather(
                        *(
                            play(emu, p, r.message, moves, random.Random(rng.random()), tally,
                                 think)
                            for p, r in zip(players, starts, strict=True)
                            if r.message is not None
                        )
                    )  # fmt: skip
                    everything = len(tally.latencies) + len(tally.start_latencies)
                wall = time.perf_counter() - began
                cpu = tree_cpu_seconds(proc.pid) - cpu_before
                if postmaster:
                    db_cpu = tree_cpu_seconds(postmaster) - db_before
                if dsn is not None:  # the statistics lag a second: counted over it all
                    xacts = await transactions(dsn) - xacts_before
                    db_transactions = round(xacts * run_share(tally, everything))
            finally:
                proc.terminate()
                await asyncio.to_thread(proc.wait, 10)
        finally:
            await emu.stop()
    problems = len(emu.violations) + len(emu.error_responses)
    tally.problems = [f"violation: {v}" for v in emu.violations] + [
        f"error: {m} {p} -> {status} {body}" for m, p, status, body in emu.error_responses
    ]
    assert problems == len(tally.problems)
    return Run(kind, tally, wall, cpu, db_cpu, db_transactions)


def run_share(tally: Tally, everything: int) -> float:
    """The share of the run's interactions that the figures count (after the warm-up)."""
    return (len(tally.latencies) + len(tally.start_latencies)) / max(1, everything)


async def transactions(dsn: str) -> int:
    """The database's committed and rolled-back transactions so far (the statistics
    reach the view within a second, so this waits that long first)."""
    import asyncpg  # the postgres extra: only with --database postgres

    await asyncio.sleep(1.1)
    conn = await asyncpg.connect(dsn)
    try:
        query = (
            "SELECT xact_commit + xact_rollback FROM pg_stat_database "
            "WHERE datname = current_database()"
        )
        return int(await conn.fetchval(query))
    finally:
        await conn.close()


def report(run: Run, games: int) -> list[str]:
    """One bot's figures, as lines."""
    tally, lines = run.tally, []
    if tally.start_latencies:
        s = [x * 1000 for x in tally.start_latencies]
        lines.append(
            f"  /ttt start:  {len(s)} commands, p50 {percentile(s, 50):.1f} ms, "
            f"p99 {percentile(s, 99):.1f} ms, max {max(s):.1f} ms"
        )
    ms = [x * 1000 for x in tally.latencies]
    if ms:
        lines.append(
            f"  clicks:      {len(ms)} clicks, p50 {percentile(ms, 50):.1f} ms, "
            f"p99 {percentile(ms, 99):.1f} ms, max {max(ms):.1f} ms"
        )
    total = tally.member_moves + tally.bot_replies
    lines.append(
        f"  moves:       {tally.member_moves} member + {tally.bot_replies} bot = {total} in "
        f"{run.wall:.2f} s = {run.moves_per_second:.0f} moves/s; "
        f"{tally.finished_games} games finished"
    )
    cpu = f"  CPU:         {run.cpu:.2f} s for {run.interactions} interactions = "
    cpu += f"{run.cpu_ms():.3f} ms per interaction (the bot's processes)"
    if run.db_cpu is not None:
        cpu += f"; PostgreSQL {run.db_cpu:.2f} s: {run.cpu_ms(True):.3f} ms with the server"
    lines.append(cpu)
    if run.db_transactions is not None:
        per = run.db_transactions / max(1, run.interactions)
        lines.append(
            f"  database:    {run.db_transactions} transactions, {per:.2f} per interaction"
        )
    lines.append(
        f"  problems:    {tally.unanswered} unanswered, {tally.deferred} deferred, "
        f"{tally.refused} refused, {len(tally.problems)} violations or error responses"
    )
    if tally.rss is not None:
        base, high, peak = tally.rss
        per_game = (high - base) / games
        lines.append(
            f"  memory:      RSS {base / 1024:.1f} MB idle, {high / 1024:.1f} MB with {games} "
            f"running games (peak {peak / 1024:.1f} MB): {per_game:.1f} KB per running game"
        )
    lines.extend(f"    {problem}" for problem in tally.problems[:20])
    return lines


def comparison(minimal: Run, others: list[Run]) -> list[str]:
    """Each figure beside the minimal bot's, with the ratio."""

    def p50(run: Run) -> float:
        return percentile([x * 1000 for x in run.tally.latencies], 50) if run.tally.latencies else 0

    rows = [
        ("CPU per interaction", lambda r: r.cpu_ms(), "ms"),
        ("moves/s", lambda r: r.moves_per_second, ""),
        ("click p50", p50, "ms"),
    ]
    lines = [f"{'':22}{'minimal':>12}" + "".join(f"{r.bot:>20}{'ratio':>8}" for r in others)]
    for label, figure, unit in rows:
        base = figure(minimal)
        line = f"{label:22}{base:>9.3f} {unit:2}"
        for run in others:
            value = figure(run)
            line += f"{value:>17.3f} {unit:2}{value / base if base else float('nan'):>7.2f}×"
        lines.append(line)
    return lines


async def one_round(
    args: tuple[int, int, int, bool, float, float | None], database: str,
    bots: tuple[str, ...], warmup: float, server: PgServer | None, web: bool = False,
) -> list[Run]:  # fmt: skip
    """Each bot once, in order, then ttt on PostgreSQL (a fresh database on ``server``)."""
    games = args[0]
    runs = []
    for kind in bots:
        runs.append(run := await measure(kind, *args, warmup=warmup, web=web))
        served = ", the live board served" if web else ""
        print(f"{run.bot}" + (f" (SQLite{served})" if kind != "minimal" else "") + ":")
        print("\n".join(report(run, games)))
    if database == "postgres":
        assert server is not None
        dsn = server.dsn(server.create_database())
        run = await measure("ttt", *args, dsn=dsn, pg_data=server.data_dir, warmup=warmup, web=web)
        run.bot = "ttt (PostgreSQL)"
        runs.append(run)
        print("ttt (PostgreSQL, its server on this machine):")
        print("\n".join(report(run, games)))
    if runs[0].bot == "minimal" and len(runs) > 1:
        print()
        print("\n".join(comparison(runs[0], runs[1:])))
    if database == "postgres" and "ttt" in bots:
        sqlite, postgres = runs[-2], runs[-1]
        print(
            f"bot + database server CPU per interaction: SQLite {sqlite.cpu_ms():.3f} ms, "
            f"PostgreSQL {postgres.cpu_ms(True):.3f} ms: "
            f"{postgres.cpu_ms(True) / sqlite.cpu_ms():.2f}×"
        )
    return runs


CLAIMS = 5000
"""Claims :func:`claim_costs` makes on each database."""


async def claim_costs(tmp: Path, server: PgServer | None) -> list[str]:
    """What one interaction's claim costs (``Store.claim_interaction``, what ttt-http
    does for each interaction before routing it, and ttt-http-unclaimed does not),
    measured alone: :data:`CLAIMS` claims one after another, on a SQLite file as the
    bot opens it (CPU of this process: SQLite runs in it) and, with a ``server``, on
    PostgreSQL (this process and the server). Each claim is a new interaction, made a
    millisecond after the last; the old ones are deleted once a minute, as the bot
    does (bot/web/replays.py), which a run this short never reaches but for the first."""
    from bot.storage import PostgresRepository, SqliteRepository
    from bot.web.replays import Replays, snowflake_at

    repos: list[tuple[str, Any, int | None]] = [
        ("SQLite", SqliteRepository(tmp / "claims.sqlite3"), None)
    ]
    if server is not None:
        dsn = server.dsn(server.create_database())
        repos.append(("PostgreSQL", PostgresRepository(dsn, 4), postmaster_pid(server.data_dir)))
    lines = []
    for name, repo, postmaster in repos:
        await repo.open()
        try:
            replays = Replays(repo.claim_interaction)
            first = snowflake_at(time.time())
            for n in range(200):  # warm: the connection, the statement's plan
                await replays.first(first + n)
            cpu, db_cpu = time.process_time(), tree_cpu_seconds(postmaster) if postmaster else 0.0
            began = time.perf_counter()
            for n in range(CLAIMS):
                assert await replays.first(first + ((n + 1) << 22))
            wall = time.perf_counter() - began
            cpu = time.process_time() - cpu
            line = (f"claim ({name}): {1e6 * wall / CLAIMS:.0f} µs a claim, "
                    f"{1e6 * cpu / CLAIMS:.0f} µs CPU here")  # fmt: skip
            if postmaster:
                server_cpu = tree_cpu_seconds(postmaster) - db_cpu
                line += f" + {1e6 * server_cpu / CLAIMS:.0f} µs the server's"
            assert not await replays.first(first)  # and a replay is told
            lines.append(line + f" ({CLAIMS} claims one after another)")
        finally:
            await repo.close()
    return lines


def medians(rounds: list[list[Run]]) -> list[str]:
    """The ratios of every round, and their median: one run's ratio moves by a tenth
    from one run to the next on a shared machine."""
    ratios: dict[str, list[float]] = {}
    extra: dict[str, list[float]] = {}
    """Differences, in ms."""
    for runs in rounds:
        by_bot = {run.bot: run for run in runs}
        if "minimal" in by_bot:
            for run in runs[1:]:
                ratios.setdefault(f"{run.bot} / minimal, CPU per interaction", []).append(
                    run.cpu_ms() / by_bot["minimal"].cpu_ms()
                )
                ratios.setdefault(f"{run.bot} / minimal, moves/s", []).append(
                    run.moves_per_second / by_bot["minimal"].moves_per_second
                )
        if "ttt" in by_bot and "ttt-http" in by_bot:
            ratios.setdefault("ttt-http / ttt, CPU per interaction", []).append(
                by_bot["ttt-http"].cpu_ms() / by_bot["ttt"].cpu_ms()
            )
        if "ttt-http" in by_bot and "ttt-http-unclaimed" in by_bot:
            claimed, unclaimed = by_bot["ttt-http"], by_bot["ttt-http-unclaimed"]
            ratios.setdefault("ttt-http / ttt-http-unclaimed, CPU per interaction", []).append(
                claimed.cpu_ms() / unclaimed.cpu_ms()
            )
            extra.setdefault("the claim, ttt-http - ttt-http-unclaimed, CPU per interaction",
                             []).append(claimed.cpu_ms() - unclaimed.cpu_ms())  # fmt: skip
        if "ttt" in by_bot and "ttt (PostgreSQL)" in by_bot:
            ratios.setdefault("PostgreSQL + its server / SQLite, CPU per interaction", []).append(
                by_bot["ttt (PostgreSQL)"].cpu_ms(True) / by_bot["ttt"].cpu_ms()
            )
    return [
        f"  {label}: median {statistics.median(values):.2f}× "
        f"({', '.join(f'{v:.2f}' for v in values)})"
        for label, values in ratios.items()
    ] + [
        f"  {label}: median {statistics.median(values):+.3f} ms "
        f"({', '.join(f'{v:+.3f}' for v in values)})"
        for label, values in extra.items()
    ]


async def bench(
    games: int, moves: int, seed: int, validate: bool, think: float, duration: float | None,
    database: str, bots: tuple[str, ...] = BOTS, warmup: float = 0.0, rounds: int = 1,
    web: bool = False,
) -> None:  # fmt: skip
    spec = default_spec_path()
    validate = validate and spec.is_file()
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(
        f"bot latency: {games} concurrent games vs hard, member first, "
        + (f"for {duration:g} s after {warmup:g} s of warm-up" if duration
           else f"up to {moves} moves each")
        + f", {think:g} s mean think time; each bot in its own process"
        + (f"; {rounds} rounds" if rounds > 1 else "")
        + ("; ttt serves the live board (no page open)" if web else "")
    )  # fmt: skip
    print(f"machine:     {platform.platform()}, {platform.machine()}, nproc {cpus}")
    print(f"software:    Python {platform.python_version()}, discord.py {discord.__version__}")
    if validate:
        state = f"ON ({spec})"
    else:
        state = "OFF (--no-validate)" if spec.is_file() else f"OFF (no spec at {spec})"
    print(f"validation:  {state}")
    print("latency:     from the emulator's INTERACTION_CREATE to the bot's initial response")
    args = (games, moves, seed, validate, think, duration)
    with tempfile.TemporaryDirectory() as tmp:
        server = None
        if database == "postgres":
            server, why = start_server(Path(tmp))
            if server is None:
                raise SystemExit(f"no PostgreSQL server could be started: {why}")
        try:
            if any(over_http(kind) for kind in bots):
                print("\n".join(await claim_costs(Path(tmp), server)))
            results = []
            for number in range(1, rounds + 1):
                if rounds > 1:
                    print(f"\n=== round {number} of {rounds}")
                results.append(await one_round(args, database, bots, warmup, server, web))
        finally:
            if server is not None:
                server.stop()
    if rounds > 1:
        print(f"\nratios, round by round ({rounds} rounds):")
        print("\n".join(medians(results)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50, help="concurrent games (default 50)")
    parser.add_argument("--moves-per-game", type=int, default=4, help="member moves per game")
    parser.add_argument("--seed", type=int, default=1, help="seed for the members' squares")
    parser.add_argument(
        "--duration",
        type=float,
        default=None,
        help="keep every channel playing game after game for this many seconds, and "
        "measure the bot's memory",
    )
    parser.add_argument(
        "--think",
        type=float,
        default=1.0,
        help="mean seconds a member takes per move (default 1; 0 = click at once)",
    )
    parser.add_argument(
        "--no-validate",
        action="store_true",
        help="skip the emulator's OpenAPI validation of request bodies (on when the spec "
        "exists): it costs the emulator about 20 ms a request",
    )
    parser.add_argument(
        "--database",
        choices=("sqlite", "postgres"),
        default="sqlite",
        help="postgres also runs ttt on a PostgreSQL server of its own (the test helper's: "
        "the pgserver wheel or the system's pg_ctl) and counts the server's CPU",
    )
    parser.add_argument(
        "--bots",
        default=",".join(DEFAULT_BOTS),
        help="which bots to run, comma-separated, in order: minimal, ttt (the gateway), "
        "ttt-http (no gateway, interactions POSTed to it, signed, each claimed once) and "
        "ttt-http-unclaimed (the same with no claim: what it costs); default minimal,ttt",
    )
    parser.add_argument(
        "--warmup",
        type=float,
        default=2.0,
        help="with --duration, seconds of load before the figures start (default 2)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="run every bot this many times, alternating, and print the median ratios",
    )
    parser.add_argument(
        "--web",
        action="store_true",
        help="ttt also serves the live board (TTT_WEB_PORT and DISCORD_CLIENT_SECRET set), "
        "with no page open",
    )
    args = parser.parse_args()
    bots = tuple(args.bots.split(","))
    if not set(bots) <= set(BOTS):
        parser.error(f"--bots takes {', '.join(BOTS)}")
    if args.games < 1 or args.moves_per_game < 1 or args.rounds < 1:
        parser.error("--games, --moves-per-game and --rounds must be at least 1")
    if args.warmup < 0:
        parser.error("--warmup cannot be negative")
    asyncio.run(
        bench(
            args.games,
            args.moves_per_game,
            args.seed,
            not args.no_validate,
            args.think,
            args.duration,
            args.database,
            bots,
            args.warmup if args.duration else 0.0,
            args.rounds,
            args.web,
        )
    )


if __name__ == "__main__":
    main()
