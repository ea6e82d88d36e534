"""Correspondence games at scale: 10,000 running games, their deadlines spread over a week.

    python bench/correspondence.py                      # SQLite, then PostgreSQL
    python bench/correspondence.py --backend sqlite --games 2000

On SQLite with one process, and on PostgreSQL with two processes sharing the database:

- **the timekeeper's sweep, hour by hour**: the games' clock moves an hour at a time
  across the week and each process runs the timekeeper's pass (``Deadlines.expire_due``:
  the due games claimed, each settled through ``GameService.time_out``, lost on time or,
  with no first move, cancelled). Printed: the time per sweep, the games settled per
  hour, and the count that proves each game was settled exactly once, across both
  processes (every game settled, none by both, none left running, the records' games
  twice the rated ones). Showing the endings on Discord is not in it: that is the
  publisher's, one edit a game, paced by Discord's rate limits;
- **memory per stored game**: the database's bytes per game (the SQLite file, or
  ``pg_database_size``, before and after the games), and the resident memory of a
  sweeping process over 10,000 games against one over none (its start-up pass reads
  every running game once, as the bot's does, to resume the bot's turns);
- **a correspondence click against a live click**: statements sent and time taken by
  ``GameService.play_turn`` on the filled database, for a member game of one day a move
  and for a live one, a move that goes on and a move that ends the game;
- **``/ttt games``**: the core's list (``MyGames.of``) for a member with 20 running games
  among the 10,000, p50 and p99 over 2,000 members drawn at random.

The games are stored through the repository (``create_game``), not played through
Discord: 3×3 member games between 1,000 members, each member in 20 (the most a member
may play at once), 10 % without a first move, the paces 1, 3 and 7 days, each game's
last move placed so that its deadline falls at a random second of the week.

To add a figure: write ``async def figure(filled: Filled) -> list[str]`` (the lines it
prints) and add it to :data:`FIGURES`: it runs on each backend's filled database, before
the sweeps settle the games, with the members and games in ``filled``. The digest to
5,000 members is bench/digest.py's: it needs more members than these games have, the
bot and the emulator running, and a database of its own (sending changes the outbox).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from bot.core.models import DAY, Game, GameUpdate
from bot.core.opponent import BotOpponent
from bot.core.policies import PolicyBook
from bot.core.policy import ServerPolicy
from bot.core.repository import Repository
from bot.core.rules import new_game
from bot.core.wiring import Core, build_core
from bot.storage import PostgresRepository, SqliteRepository

GUILD, BOT, FIRST_MEMBER = 1, 2, 1000
CHANNELS = 500
"""Channels the games are spread over (a correspondence game holds none)."""
WEEK_HOURS = 7 * 24
T0 = 1_800_000_000.0
"""The games' clock at the start of the week (the deadlines fall in the week after)."""
PACES = (1, 3, 7)
UNPLAYED = 0.10
"""Share of the games nobody moved in: cancelled, unrated, when their deadline passes."""


class Clock:
    """The games' time, moved by the bench."""

    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def open_repo(dsn: str | None, sqlite: Path, pool_size: int = 4) -> Repository:
    return PostgresRepository(dsn, pool_size) if dsn else SqliteRepository(sqlite)


def core_over(repo: Repository, clock: Clock) -> Core:
    return build_core(
        repo, PolicyBook(repo, ServerPolicy()), BotOpponent(think_time=1.0),
        bot_user_id=BOT, clock=clock, rng=random.Random(1),
    )  # fmt: skip


def rss_kb() -> tuple[int, int]:
    """(current, peak) resident set size of this process, in KB."""
    fields = {}
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


# --- the games ---------------------------------------------------------------------------


def pairs(members: int, games: int) -> list[tuple[int, int]]:
    """(X, O) for each game: member m plays X against m+1, m+2, ... in turn, so each
    member plays ``2 * games / members`` games, half of them as X."""
    rounds = -(-games // members)
    return [
        (FIRST_MEMBER + m, FIRST_MEMBER + (m + r + 1) % members)
        for r in range(rounds)
        for m in range(members)
    ][:games]


def running_game(index: int, x: int, o: int, rng: random.Random) -> Game:
    """A running correspondence game whose deadline falls in the week after T0."""
    pace = rng.choice(PACES)
    deadline = T0 + rng.uniform(1.0, WEEK_HOURS * 3600.0)
    last_move = deadline - pace * DAY
    plies = 0 if rng.random() < UNPLAYED else rng.randint(1, 4)  # 3×3: no line before 5
    moves = tuple(rng.sample(range(9), plies))
    created = last_move - plies * rng.uniform(600.0, pace * DAY)
    game = new_game(
        guild_id=GUILD, channel_id=10_000 + index % CHANNELS, size=3, player_x=x, player_o=o,
        now=created, days_per_move=pace,
    )  # fmt: skip
    return game.with_changes(
        moves=moves, turn_deadline=deadline, updated_at=last_move, message_id=10**9 + index
    )


@dataclass
class Filled:
    """A filled database, for the figures: its repository (open, before the sweeps),
    the games as stored and the members who play them."""

    name: str
    repo: Repository
    games: list[Game]
    members: list[int]
    rated_elsewhere: int = 0
    """Rated games a figure played to their end on this database besides ``games``."""


async def fill(repo: Repository, games: int, members: int, seed: int) -> list[Game]:
    rng = random.Random(seed)
    stored = []
    for i, (x, o) in enumerate(pairs(members, games)):
        stored.append(await repo.create_game(running_game(i, x, o, rng)))
    return stored


# --- a click's cost ----------------------------------------------------------------------

WIN_FOR_X = (0, 1, 3, 4, 6)
"""X takes the left column on its third move: four moves that go on, then an ending."""


async def watch_statements(repo: Repository) -> list[str]:
    """Every statement the repository sends from now on, as the driver sees it (SQLite's
    connection, or a PostgreSQL pool of one), as tests/test_core_click_cost.py does."""
    seen: list[str] = []
    if isinstance(repo, SqliteRepository):
        repo.conn.set_trace_callback(seen.append)
    else:
        assert isinstance(repo, PostgresRepository)
        async with repo.pool.connection(timeout=2.0) as conn:
            conn.add_query_logger(lambda record: seen.append(record.query))
    return seen


async def click_cost(filled: Filled, samples: int = 60) -> list[str]:
    """A member's click in a game of one day a move against one in a live game: the
    statements it sends and the time it takes, a move that goes on and one that ends."""
    repo, clock = filled.repo, Clock()
    core = core_over(repo, clock)
    statements = await watch_statements(repo)
    costs: dict[tuple[str, str], list[tuple[int, float]]] = {}
    base = FIRST_MEMBER + 100_000
    for i in range(samples + 1):  # the first pair warms the server's settings up: not counted
        for kind, days in (("live", None), ("1 day a move", 1)):
            x = base + 4 * i + (0 if days is None else 2)
            o = x + 1
            challenge = await core.lobby.challenge(
                guild_id=GUILD, channel_id=20_000 + 2 * i + (days or 0), user_id=x,
                opponent_id=o, first="me", days_per_move=days,
            )  # fmt: skip
            accepted = await core.lobby.accept(challenge.id, o, message_id=10**10 + x)
            game = accepted.game
            for ply, cell in enumerate(WIN_FOR_X):
                await asyncio.sleep(0)  # asyncpg tells its query loggers with call_soon
                statements.clear()
                began = time.perf_counter()
                update = await core.games.play_turn(  # on its board, as a click is
                    game.id, ply, cell, (x, o)[ply % 2], message_id=game.message_id
                )
                took = time.perf_counter() - began
                await asyncio.sleep(0)
                step = "goes on" if update.game.running else "ends the game"
                if i:
                    costs.setdefault((kind, step), []).append((len(statements), took))
                clock.now += 60.0
            filled.rated_elsewhere += 1
    lines = [f"{'click (GameService.play_turn)':<42}{'statements':>11}{'median':>10}{'p90':>10}"
             f"  ({samples} games each)"]  # fmt: skip
    for (kind, step), seen in sorted(costs.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        times = sorted(t for _, t in seen)
        shown = "/".join(str(n) for n in sorted({n for n, _ in seen}))
        lines.append(f"{kind + ', a move that ' + step:<42}{shown:>11}"
                     f"{statistics.median(times) * 1e3:>8.2f} ms"
                     f"{times[int(len(times) * 0.9)] * 1e3:>7.2f} ms")  # fmt: skip
    return lines


async def games_list(filled: Filled, samples: int = 2000) -> list[str]:
    """``/ttt games`` for a member with 20 running games among the 10,000: the core's
    list (``MyGames.of``: one store query, then its order) for members drawn at random,
    the first 100 calls (the database's cache warming) not counted."""
    core = core_over(filled.repo, Clock())
    rng = random.Random(5)
    times, sizes = [], set()
    for i in range(samples + 100):
        member = rng.choice(filled.members)
        began = time.perf_counter()
        entries = await core.my_games.of(member)
        took = time.perf_counter() - began
        if i >= 100:
            times.append(took)
            sizes.add(len(entries))
    times.sort()
    shown = "/".join(str(n) for n in sorted(sizes))
    return [
        f"/ttt games (MyGames.of), {samples} members' lists of {shown} games: "
        f"p50 {statistics.median(times) * 1e3:.2f} ms, "
        f"p99 {times[int(len(times) * 0.99)] * 1e3:.2f} ms, max {times[-1] * 1e3:.2f} ms"
    ]


FIGURES: list[Callable[[Filled], Awaitable[list[str]]]] = [click_cost, games_list]

"""What runs on each backend's filled database before the sweeps (see the docstring)."""


# --- the sweeping processes --------------------------------------------------------------


async def worker(dsn: str | None, sqlite: Path) -> None:
    """A process running the timekeeper's passes on the bench's word (one line on stdin
    each, its answer one JSON line on stdout): ``start`` (the start-up pass, as the bot's
    timekeeper makes it: every running game read once), ``sweep <now>``, ``rss``, ``quit``."""
    clock = Clock()
    repo = open_repo(dsn, sqlite)
    await repo.open()
    core = core_over(repo, clock)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    try:
        while line := (await reader.readline()).decode().split():
            answer: dict[str, Any] = {}
            if line[0] == "start":
                began = time.perf_counter()
                resumed = await core.deadlines.resume_bot_turns()
                answer = {"seconds": time.perf_counter() - began, "resumed": len(resumed)}
            elif line[0] == "sweep":  # passes until one finds nothing, as the timekeeper
                clock.now = float(line[1])  # makes them while a due deadline is stored
                began, ended, passes = time.perf_counter(), [], 0
                while changed := await core.deadlines.expire_due():
                    ended += [u.game.id for u in changed if isinstance(u, GameUpdate)]
                    passes += 1
                answer = {"seconds": time.perf_counter() - began, "settled": ended,
                          "passes": passes}  # fmt: skip
            elif line[0] == "rss":
                answer = dict(zip(("rss", "peak"), rss_kb(), strict=True))
            else:
                break
            print(json.dumps(answer), flush=True)
    finally:
        await repo.close()


class Sweeper:
    """One worker process (this file with ``--worker``)."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @classmethod
    async def start(cls, dsn: str | None, sqlite: Path) -> Sweeper:
        args = [sys.executable, __file__, "--worker", "--sqlite", str(sqlite)]
        proc = await asyncio.create_subprocess_exec(
            *args, *(["--dsn", dsn] if dsn else []),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            limit=1 << 24,  # a backlog's answer names 10,000 games: past asyncio's 64 KB
        )  # fmt: skip
        return cls(proc)

    async def ask(self, word: str) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(word.encode() + b"\n")
        await self.proc.stdin.drain()
        line = await self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the sweeping process ended (status {await self.proc.wait()})")
        return dict(json.loads(line))

    async def stop(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"quit\n")
        await self.proc.stdin.drain()
        await self.proc.wait()


async def ask_all(sweepers: list[Sweeper], word: str) -> list[dict[str, Any]]:
    """The same word to every process at once (on PostgreSQL, they sweep side by side)."""
    return list(await asyncio.gather(*(s.ask(word) for s in sweepers)))


async def idle_rss(dsn: str | None, sqlite: Path) -> int:
    """The peak resident memory (KB) of a sweeping process over an empty database, after
    its start-up pass and a sweep: the bench's baseline."""
    (sweeper,) = [await Sweeper.start(dsn, sqlite)]
    try:
        await sweeper.ask("start")
        await sweeper.ask(f"sweep {T0 + 3600}")
        return int((await sweeper.ask("rss"))["peak"])
    finally:
        await sweeper.stop()


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms"


def once(settled: list[list[int]], stored: list[Game]) -> str:
    """Whether every game of ``stored`` was settled, by one process only."""
    every = [game_id for mine in settled for game_id in mine]
    split = f" ({' + '.join(f'{len(m):,}' for m in settled)} by the {len(settled)} processes)"
    return (
        f"settled: {len(every):,} of {len(stored):,}{split if len(settled) > 1 else ''}; "
        f"settled twice: {len(every) - len(set(every))}; "
        f"never settled: {len({g.id for g in stored} - set(every))}"
    )


async def backlog(processes: int, dsn: str | None, sqlite: Path, stored: list[Game]) -> str:
    """``stored``, all due at once, as after a week down: the time the processes take to
    settle them from their start, passes of at most 100 claimed games each."""
    sweepers = [await Sweeper.start(dsn, sqlite) for _ in range(processes)]
    try:
        await ask_all(sweepers, "rss")  # started: the interpreter and the imports not counted
        began = time.perf_counter()
        await ask_all(sweepers, "start")
        answers = await ask_all(sweepers, f"sweep {T0 + (WEEK_HOURS + 1) * 3600}")
        took = time.perf_counter() - began
    finally:
        for sweeper in sweepers:
            await sweeper.stop()
    passes = sum(a["passes"] for a in answers)
    return (f"a week down, then started: {len(stored):,} games due at once, settled in "
            f"{took:.1f} s from the start-up pass on ({passes} passes); "
            + once([a["settled"] for a in answers], stored))  # fmt: skip


async def sweep_week(
    processes: int, dsn: str | None, sqlite: Path, stored: list[Game], baseline: int
) -> list[str]:
    """The week swept an hour at a time by ``processes`` processes side by side; the
    resident memory of each against ``baseline`` (KB, a process over no game)."""
    sweepers = [await Sweeper.start(dsn, sqlite) for _ in range(processes)]
    lines: list[str] = []
    try:
        starts = await ask_all(sweepers, "start")
        after_start = await ask_all(sweepers, "rss")
        per_hour: list[int] = []
        sweeps: list[float] = []
        settled: list[list[int]] = [[] for _ in sweepers]
        for hour in range(1, WEEK_HOURS + 2):  # an hour past the week: nothing more is due
            answers = await ask_all(sweepers, f"sweep {T0 + hour * 3600}")
            per_hour.append(sum(len(a["settled"]) for a in answers))
            sweeps.append(max(a["seconds"] for a in answers))
            for mine, answer in zip(settled, answers, strict=True):
                mine.extend(answer["settled"])
        after_week = await ask_all(sweepers, "rss")
    finally:
        for sweeper in sweepers:
            await sweeper.stop()

    every = [game_id for mine in settled for game_id in mine]
    busy = sorted(s for s, n in zip(sweeps, per_hour, strict=True) if n)
    lines.append(f"start-up pass (every running game read once): "
                 f"{', '.join(ms(s['seconds']) for s in starts)}")  # fmt: skip
    lines.append(
        f"sweeps: {len(sweeps)} (an hour each); games settled per hour: median "
        f"{statistics.median(per_hour):.0f}, max {max(per_hour)}"
    )
    lines.append(
        f"time per sweep (the slowest process's): median {ms(statistics.median(busy))}, "
        f"p90 {ms(busy[int(len(busy) * 0.9)])}, max {ms(busy[-1])}; "
        f"{ms(sum(sweeps) / max(1, len(every)))} per game settled"
    )
    lines.append(once(settled, stored))
    peaks = [b["peak"] for b in after_week]
    each = "; ".join(f"{a['rss']:,} after the start-up pass, {b['peak']:,} at the peak"
                     for a, b in zip(after_start, after_week, strict=True))  # fmt: skip
    lines.append(
        f"resident memory of a sweeping process, KB: {baseline:,} at its peak over no game; "
        f"over these games: {each}: {(max(peaks) - baseline) * 1024 / len(stored):,.0f} bytes "
        "per stored game at the most"
    )
    return lines


# --- one backend -------------------------------------------------------------------------


async def database_bytes(repo: Repository, sqlite: Path) -> int:
    if isinstance(repo, PostgresRepository):
        async with repo.pool.connection(timeout=5.0) as conn:  # a bench's look, not the bot's
            return int(await conn.fetchval("SELECT pg_database_size(current_database())"))
    return sum(p.stat().st_size for p in sqlite.parent.glob(sqlite.name + "*"))


async def records_count(repo: Repository, rated: int) -> str:
    rows = await repo.leaderboard(GUILD, 100_000)
    counted = sum(r.wins + r.losses + r.draws for r in rows)
    verdict = "once each" if counted == 2 * rated else "NOT once each"
    return f"records: {counted:,} member results for {rated:,} rated games ({verdict})"


async def backend(
    name: str, processes: int, dsns: tuple[str, str] | None, folder: Path, games: int,
    members: int, seed: int,
) -> list[str]:  # fmt: skip
    """The figures on one backend: SQLite (``dsns`` None) or PostgreSQL (the bench's
    database and an empty one, for the baseline)."""
    sqlite, empty = folder / f"{name}.sqlite3", folder / f"{name}-empty.sqlite3"
    dsn, empty_dsn = dsns or (None, None)
    lines = [f"== {name}: {processes} process{'es' if processes > 1 else ''}"]
    baseline = await idle_rss(empty_dsn, empty)

    repo = open_repo(dsn, sqlite, pool_size=1)
    await repo.open()  # migrated, then closed: SQLite's WAL checkpointed into the file
    await repo.close()
    repo = open_repo(dsn, sqlite, pool_size=1)
    await repo.open()
    before = await database_bytes(repo, sqlite)
    began = time.perf_counter()
    stored = await fill(repo, games, members, seed)
    filled_in = time.perf_counter() - began
    await repo.close()  # SQLite: its WAL checkpointed into the file
    repo = open_repo(dsn, sqlite, pool_size=1)
    await repo.open()
    grown = await database_bytes(repo, sqlite) - before
    lines.append(f"filled: {len(stored):,} running games in {filled_in:.1f} s "
                 "(create_game, one statement each)")  # fmt: skip
    lines.append(f"database: {grown / len(stored):,.0f} bytes per stored game "
                 f"({grown / 1e6:.1f} MB for {len(stored):,})")  # fmt: skip
    players = sorted({g.player_x for g in stored} | {g.player_o for g in stored})
    filled = Filled(name, repo, stored, players)
    try:
        for figure in FIGURES:
            lines.extend(await figure(filled))
    finally:
        await repo.close()

    lines.extend(await sweep_week(processes, dsn, sqlite, stored, baseline))
    repo = open_repo(dsn, sqlite, pool_size=1)
    await repo.open()
    try:
        ids = {g.id for g in stored}
        left = [g for g in await repo.running_games() if g.id in ids]
        lines.append(f"running after the week: {len(left)}")
        rated = sum(1 for g in stored if g.moves) + filled.rated_elsewhere
        lines.append(await records_count(repo, rated))
        after = await database_bytes(repo, sqlite) - before
        lines.append(f"database after the week (every game finished, the records written): "
                     f"{after / len(stored):,.0f} bytes per game")  # fmt: skip
        again = await fill(repo, games, members, seed + 1)
    finally:
        await repo.close()
    lines.append(await backlog(processes, dsn, sqlite, again))
    return lines


async def bench(args: argparse.Namespace) -> None:
    print(f"correspondence benchmark: {args.games:,} running games, {args.members:,} members, "
          f"deadlines over {WEEK_HOURS} hours")  # fmt: skip
    print(f"machine: {platform.platform()}, Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.backend in ("sqlite", "both"):
            for line in await backend("sqlite", 1, None, folder, args.games, args.members,
                                      args.seed):  # fmt: skip
                print(line, flush=True)
        if args.backend in ("postgres", "both"):
            from pg_server import start_server

            server, why = start_server(folder)
            if server is None:
                print(f"== postgres: not run: no PostgreSQL server could be started ({why})")
            else:
                try:
                    dsns = (server.dsn(server.create_database()),
                            server.dsn(server.create_database()))  # fmt: skip
                    lines = await backend("postgres", args.processes, dsns, folder, args.games,
                                          args.members, args.seed)  # fmt: skip
                    for line in lines:
                        print(line, flush=True)
                finally:
                    server.stop()
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--members", type=int, default=1_000)
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--processes", type=int, default=2, help="on PostgreSQL")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--sqlite", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--dsn", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        asyncio.run(worker(args.dsn, args.sqlite))
    else:
        asyncio.run(bench(args))


if __name__ == "__main__":
    main()
