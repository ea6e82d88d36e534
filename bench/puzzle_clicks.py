"""A puzzle click's CPU beside a game click's on the same board, and how soon each answers.

    python bench/puzzle_clicks.py --members 6 --rounds 3

Starts the Discord emulator in this process and the real bot as a child process
(``python -m bot``, with its engine pool), as bench/bot_latency.py does. For each board
(3×3, 4×4, 5×5, ultimate) it runs three loads one after another, each on fresh members,
and counts the bot's CPU (its process and its engine workers, from /proc) over their
clicks: each round starts every member's puzzle or game, then plays their clicks in
steps, every member's next click at once, the CPU read around each step (so the
commands that start them, and a game's resignation, are left out):

- ``puzzle, solved``: members ask ``/ttt puzzle mode:training board:<board>`` and play the
  puzzle's solution (read from the set by the attempt's puzzle id): each click is the
  member's move and the defender's reply from the stored proof. Every 3×3 puzzle is a
  daily of the schedule's first three years, which training keeps for its day, so on
  3×3 the bench stores each member's open training attempt itself (unrated, as every
  3×3 attempt is: the row training would have written, as another process of the bot
  may) and the command resumes it; the clicks take the same path;
- ``puzzle, wrong``: the same, but each member's first move is a random wrong one (a
  legal move other than the solution), which the engine judges (in the pool past 3×3)
  and refutes: a puzzle's costliest click;
- ``game``: members ``/ttt start`` a game of that board against the bot at ``hard``,
  moving first, and click random legal squares: each click is the member's move and the
  bot's reply.

A click is one button press that plays a square (an ultimate free move's board choice
is a press of its own, counted with the loads' CPU, not as a click). The first answer's
latency is the emulator's, from the interaction to the bot's initial response; "shown"
is when the board the member's click produced is on the message (the edit after a
deferral, or the answer itself).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT), str(ROOT / "bench")]

from bot_latency import _stat_fields, wait_until_ready  # noqa: E402

from bot.discord_ui import custom_ids  # noqa: E402
from engine.puzzles import by_id, parse_board  # noqa: E402
from engine.puzzles import load as puzzle_set  # noqa: E402

from bot_harness import bot_process_env  # noqa: E402
from discord_emulator import DiscordEmulator, buttons, default_spec_path  # noqa: E402

BOARDS = {
    "3x3": {"size": 3},
    "4x4": {"size": 4},
    "5x5": {"size": 5},
    "ultimate": {"game": "ultimate"},
}
"""Each puzzle board, and the /ttt start options of a game on it."""
SETTLE = 0.5
"""Seconds left after the commands of a round before its clicks are measured."""
CELL_CLICKS = (custom_ids.PuzzleCellClick, custom_ids.CellClick)
BOARD_CLICKS = (custom_ids.PuzzleBoardClick, custom_ids.BoardClick)


@dataclass
class Load:
    name: str
    clicks: int = 0
    presses: int = 0
    """Every button press, board choices included."""
    cpu: float = 0.0
    first: list[float] = field(default_factory=list)
    """Seconds to each click's initial response."""
    shown: list[float] = field(default_factory=list)
    """Seconds to each click's board on the message."""
    deferred: int = 0
    unanswered: int = 0
    starts: list[float] = field(default_factory=list)
    """Seconds to each command's first answer."""

    def cpu_ms(self) -> float:
        return 1000 * self.cpu / max(1, self.clicks)


def tree_cpu_seconds(root: int) -> float:
    """CPU time of a process and every process under it (the bot and its engine
    workers), to the nanosecond: the sum of their threads' run time from
    ``/proc/<pid>/task/<tid>/schedstat``. ``/proc/<pid>/stat`` counts 10 ms ticks, as
    much as a few of the clicks of a step cost; a thread that ends between two readings
    takes its time with it (the bot's threads live as long as it does)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (fields := _stat_fields(int(entry))) is not None:
            children.setdefault(int(fields[1]), []).append(int(entry))
    nanoseconds, todo = 0, [root]
    while todo:
        pid = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue  # gone
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat", encoding="ascii") as stat:
                    nanoseconds += int(stat.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass
        todo.extend(children.get(pid, ()))
    return nanoseconds / 1e9


def enabled(message: dict[str, Any]) -> list[tuple[Any, str]]:
    """The message's enabled buttons, each with the click its custom_id stands for."""
    return [
        (custom_ids.parse(b["custom_id"]), b["custom_id"])
        for row in buttons(message) for b in row
        if "custom_id" in b and not b.get("disabled")
    ]  # fmt: skip


async def press(
    emu: DiscordEmulator, user: Any, message: dict[str, Any], custom_id: str, load: Load,
    cell: bool,
) -> dict[str, Any] | None:  # fmt: skip
    """Click; the message as the click left it (None: unanswered)."""
    began = time.perf_counter()
    res = await emu.click(user, message, custom_id)
    load.presses += 1
    if res.type is None:
        load.unanswered += 1
        return None
    if cell:
        load.clicks += 1
        load.first.append(res.latency or 0.0)
    if res.type in (5, 6):
        load.deferred += 1
        await res.wait_for_edit()
    if cell:
        load.shown.append(time.perf_counter() - began)
    return emu.message(message["id"])


async def play_cell(
    emu: DiscordEmulator, user: Any, message: dict[str, Any], cell: int, load: Load
) -> dict[str, Any] | None:
    """Play ``cell``: through its board's choice first when it is not shown (ultimate)."""
    for _ in range(2):
        shown = enabled(message)
        for click, cid in shown:
            if isinstance(click, CELL_CLICKS) and click.cell == cell:
                return await press(emu, user, message, cid, load, cell=True)
        choice = next(
            (
                cid
                for click, cid in shown
                if isinstance(click, BOARD_CLICKS) and click.board == cell // 9
            ),
            None,
        )
        if choice is None:
            raise AssertionError(f"cell {cell} cannot be played on the message shown")
        answered = await press(emu, user, message, choice, load, cell=False)
        if answered is None:
            return None
        message = answered
    raise AssertionError(f"cell {cell} not shown after its board was chosen")


def attempt_of(db: Path, attempt_id: int) -> tuple[str, tuple[int, ...]]:
    """An attempt's puzzle id and moves, read from the bot's database."""
    with sqlite3.connect(db) as conn:
        puzzle, moves = conn.execute(
            "SELECT puzzle_id, moves FROM puzzle_attempts WHERE id = ?", (attempt_id,)
        ).fetchone()
    return puzzle, tuple(int(m) for m in moves.split(",") if m)


def attempt_id(message: dict[str, Any]) -> int:
    return next(
        c.attempt_id
        for c, _ in enabled(message)
        if isinstance(c, custom_ids.PuzzleCellClick | custom_ids.PuzzleBoardClick)
    )


@dataclass
class Member:
    user: Any
    channel: Any
    rng: random.Random
    message: dict[str, Any] | None = None
    plan: list[int] = field(default_factory=list)
    """A puzzle's cells still to play (the member's moves)."""
    moves: int = 0
    """A game's moves played this round."""


def store_attempt(db: Path, m: Member, guild_id: int) -> None:
    """An open, unrated 3×3 training attempt for ``m`` at a puzzle they have not had yet,
    stored as the bot stores one (training keeps every 3×3 puzzle for its daily)."""
    with sqlite3.connect(db, timeout=10) as conn:
        tried = {row[0] for row in conn.execute(
            "SELECT puzzle_id FROM puzzle_attempts WHERE user_id = ?", (m.user.id,))}  # fmt: skip
        puzzle = m.rng.choice([p for p in puzzle_set() if p.kind == "3x3" and p.id not in tried])
        conn.execute(
            "INSERT INTO puzzle_attempts (user_id, puzzle_id, kind, mode, position, to_move, n,"
            " rated, started_at, guild_id, moves, ply, status)"
            " VALUES (?, ?, '3x3', 'training', ?, ?, ?, FALSE, ?, ?, '', 0, 'open')",
            (m.user.id, puzzle.id, puzzle.position, puzzle.to_move, puzzle.n, time.time(),
             guild_id),
        )  # fmt: skip


async def start_puzzle(emu: DiscordEmulator, m: Member, kind: str, db: Path, load: Load,
                       wrong: bool) -> None:  # fmt: skip
    if kind == "3x3":
        await asyncio.to_thread(store_attempt, db, m, int(emu.guild.id))
    res = await emu.invoke(m.user, "ttt puzzle", {"mode": "training", "board": kind},
                           channel=m.channel)  # fmt: skip
    if res.type is None:
        load.unanswered += 1
        return
    load.starts.append(res.latency or 0.0)
    if res.type == 5:
        await res.wait_for_edit()
    m.message = res.message
    assert m.message is not None
    puzzle = by_id(attempt_of(db, attempt_id(m.message))[0])
    m.plan = list(puzzle.line[::2])
    if wrong:  # a legal first move other than the only one that wins in time
        legal = parse_board(puzzle.kind, puzzle.position).legal_moves()
        m.plan = [m.rng.choice([c for c in legal if c != puzzle.first])]


async def puzzle_step(emu: DiscordEmulator, m: Member, load: Load) -> None:
    assert m.message is not None
    m.message = await play_cell(emu, m.user, m.message, m.plan.pop(0), load)
    if m.message is None or any(
        isinstance(c, custom_ids.RetryClick) for c, _ in enabled(m.message)
    ):
        m.plan = []  # over: solved, failed, or unanswered


async def start_game(emu: DiscordEmulator, m: Member, kind: str, load: Load) -> None:
    options = {"difficulty": "hard", "first": "me", **BOARDS[kind]}
    res = await emu.invoke(m.user, "ttt start", options, channel=m.channel)
    if res.type is None:
        load.unanswered += 1
        return
    load.starts.append(res.latency or 0.0)
    m.message, m.moves = res.message, 0


def game_running(m: Member) -> bool:
    """Three of the member's moves a game (the puzzles' length), while it runs."""
    return (
        m.message is not None
        and m.moves < 3
        and any(
            isinstance(c, custom_ids.CellClick | custom_ids.BoardClick)
            for c, _ in enabled(m.message)
        )
    )


async def game_step(emu: DiscordEmulator, m: Member, load: Load) -> None:
    assert m.message is not None
    for _ in range(2):  # a square, or on an ultimate free move a board and then a square
        shown = enabled(m.message)
        cells = [cid for c, cid in shown if isinstance(c, custom_ids.CellClick)]
        if cells:
            m.message = await press(emu, m.user, m.message, m.rng.choice(cells), load, cell=True)
            m.moves += 1
            return
        boards = [cid for c, cid in shown
                  if isinstance(c, custom_ids.BoardClick) and c.board is not None]  # fmt: skip
        message = await press(emu, m.user, m.message, m.rng.choice(boards), load, cell=False)
        if message is None:
            m.message = None
            return
        m.message = message


async def resign(emu: DiscordEmulator, m: Member) -> None:
    button = next((cid for c, cid in enabled(m.message or {})
                   if isinstance(c, custom_ids.ResignClick)), None)  # fmt: skip
    if m.message is not None and button is not None:
        await emu.click(m.user, m.message, button)


async def run_load(
    emu: DiscordEmulator, pid: int, db: Path, kind: str, name: str, members: int, rounds: int,
    seed: int, warm: bool = False,
) -> Load:  # fmt: skip
    """One load on fresh members, each in a channel of their own. Each round starts every
    member's puzzle or game at once, then plays their clicks in steps, every member's
    next click at once; the bot's CPU is counted over the steps only (the commands that
    start them, and a game's resignation, are not clicks)."""
    load = Load(name)
    label = f"warm {name}" if warm else name  # the warm-up's members are its own
    team = [
        Member(emu.create_user(f"{kind}-{label}-{i}"),
               emu.create_channel(emu.guild, f"{kind}-{label}-{i}"),
               random.Random(f"{seed}:{kind}:{label}:{i}"))
        for i in range(members)
    ]  # fmt: skip
    game = name == "game"
    for _ in range(rounds):
        if game:
            await asyncio.gather(*(start_game(emu, m, kind, load) for m in team))
        else:
            await asyncio.gather(
                *(start_puzzle(emu, m, kind, db, load, name == "puzzle, wrong") for m in team)
            )
        # what a command leaves to do after its answer (a token kept, a message id
        # written) is the command's, not the first click's: let it finish first
        await asyncio.sleep(SETTLE)
        while playing := [m for m in team if (game_running(m) if game else m.plan)]:
            before = tree_cpu_seconds(pid)
            await asyncio.gather(
                *(game_step(emu, m, load) if game else puzzle_step(emu, m, load) for m in playing)
            )
            load.cpu += tree_cpu_seconds(pid) - before
        if game:
            await asyncio.gather(*(resign(emu, m) for m in team))
    return load


def ms(values: list[float], q: float) -> str:
    if not values:
        return "–"
    ordered = sorted(values)
    return f"{1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]:.0f}"


async def bench(members: int, rounds: int, seed: int, boards: list[str]) -> list[str]:
    spec = default_spec_path()
    emu = DiscordEmulator(spec_path=spec, validate=spec.is_file())
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        await emu.start()
        try:
            db = Path(tmp) / "ttt.sqlite3"
            env = bot_process_env(emu, db, TTT_LOG_LEVEL="WARNING")
            env.pop("TTT_WARM_WORKERS")  # the engine workers warm, as a deployed bot's
            proc = subprocess.Popen(
                [sys.executable, "-m", "bot"], env=env, cwd=tmp, stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, process_group=0,
            )  # fmt: skip
            try:
                await wait_until_ready(emu, proc)
                await asyncio.sleep(2.0)  # the workers' warm-up, left out of the figures
                for kind in boards:
                    for name in ("puzzle, solved", "puzzle, wrong", "game"):
                        # a warm-up round on members of its own, then the measured one
                        await run_load(emu, proc.pid, db, kind, name, 2, 1, seed, warm=True)
                        load = await run_load(emu, proc.pid, db, kind, name, members, rounds, seed)
                        lines.append(
                            f"| {kind} | {name} | {load.clicks} | {load.cpu_ms():.2f} | "
                            f"{ms(load.first, 0.5)} / {ms(load.first, 0.95)} / "
                            f"{ms(load.first, 1.0)} | {ms(load.shown, 0.5)} / "
                            f"{ms(load.shown, 0.95)} / {ms(load.shown, 1.0)} | {load.deferred} | "
                            f"{ms(load.starts, 0.5)} / {ms(load.starts, 1.0)} | "
                            f"{load.unanswered} |"
                        )
                        print(lines[-1], flush=True)
            finally:
                proc.terminate()
                await asyncio.to_thread(proc.wait, 10)
        finally:
            await emu.stop()
    problems = [f"violation: {v}" for v in emu.violations] + [
        f"error: {m} {p} -> {status} {body}" for m, p, status, body in emu.error_responses
    ]
    if problems:
        lines.append(f"{len(problems)} problems: " + "; ".join(problems[:5]))
    return lines


HEADER = (
    "| board | load | clicks | bot CPU ms a click | first answer ms p50 / p95 / max | "
    "board shown ms p50 / p95 / max | deferred | command's answer ms p50 / max | unanswered |\n"
    "|---|---|---|---|---|---|---|---|---|"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--members", type=int, default=6, help="members at once per load")
    parser.add_argument("--rounds", type=int, default=3, help="puzzles or games per member")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--boards", nargs="*", default=list(BOARDS), choices=list(BOARDS))
    args = parser.parse_args()
    print(
        f"machine: {platform.platform()}, {platform.machine()}, Python {platform.python_version()}"
    )
    print(f"{args.members} members at once, {args.rounds} puzzles or games each, seed {args.seed}")
    print(HEADER, flush=True)
    lines = asyncio.run(bench(args.members, args.rounds, args.seed, args.boards))
    for line in lines[len([x for x in lines if x.startswith("|")]) :]:
        print(line)


if __name__ == "__main__":
    main()
