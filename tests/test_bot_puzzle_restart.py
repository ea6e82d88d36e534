"""A puzzle survives SIGKILL: ``python -m bot`` is killed mid-puzzle (no chance to clean
up) and started again on the same database, and the member's next click on the private
message they still see goes on from where the puzzle stood, counted once."""

from __future__ import annotations

import contextlib
import signal
import sqlite3
from pathlib import Path
from typing import Any

from bot.discord_ui import custom_ids
from engine.puzzles import by_id

from bot_harness import bot_process, bot_process_env
from discord_emulator import DiscordEmulator, buttons, text_of


def square(message: dict[str, Any], cell: int) -> str:
    """The custom_id of the square ``cell`` on a puzzle's message."""
    (found,) = [
        b["custom_id"] for row in buttons(message) for b in row
        if isinstance(c := custom_ids.parse(b["custom_id"]), custom_ids.PuzzleCellClick)
        and c.cell == cell
    ]  # fmt: skip
    return found


async def play(emulator: DiscordEmulator, user: Any, message: dict[str, Any], cell: int) -> dict:
    """Click a square; the message as the answer left it (deferred on a busy machine, a
    fresh process's first click may be: then as its edit left it)."""
    res = await emulator.click(user, message, square(message, cell))
    if res.type == 6:
        await res.wait_for_edit()
    assert res.type in (6, 7), res.content
    return emulator.message(message["id"])


def stored(database: Path) -> list[tuple[Any, ...]]:
    """Every attempt as the database holds it: puzzle, moves, status, rated."""
    with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as conn:
        return conn.execute(
            "SELECT puzzle_id, moves, status, rated FROM puzzle_attempts ORDER BY id"
        ).fetchall()


def tried(database: Path, user_id: int) -> tuple[int, int] | None:
    with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as conn:
        row = conn.execute(
            "SELECT solved, tried FROM puzzle_players WHERE user_id = ?", (user_id,)
        ).fetchone()
    return None if row is None else (row[0], row[1])


async def test_a_puzzle_goes_on_from_its_old_message_after_sigkill(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    database = tmp_path / "ttt.sqlite3"
    env = bot_process_env(emulator, database)
    alice = emulator.create_user("alice")
    async with bot_process(emulator, env, tmp_path, ready=1) as first:
        res = await emulator.invoke(alice, "ttt puzzle", {"mode": "training", "board": "4x4"})
        assert res.type == 4 and res.ephemeral, res.content
        message = res.message
        [(puzzle_id, moves, status, rated)] = stored(database)
        puzzle = by_id(puzzle_id)
        assert (moves, status, rated) == ("", "open", 1) and puzzle.n >= 3
        message = await play(emulator, alice, message, puzzle.line[0])
        assert text_of(message).splitlines()[-1].endswith(f"win in {puzzle.n - 1}.")
        assert await first.kill() == -signal.SIGKILL
    played = f"{puzzle.line[0]},{puzzle.line[1]}"
    assert stored(database) == [(puzzle_id, played, "open", 1)]
    async with bot_process(emulator, env, tmp_path, ready=2):
        # the message the member still sees, from before the kill: its squares go on
        for step in range(1, puzzle.n):
            message = await play(emulator, alice, message, puzzle.line[2 * step])
        said = text_of(message).splitlines()
        assert f"✅ **Solved**: ❌ wins in {puzzle.n}/{puzzle.n}." in said or (
            f"✅ **Solved**: ⭕ wins in {puzzle.n}/{puzzle.n}." in said
        ), said
        line = ",".join(str(c) for c in puzzle.line)
        assert stored(database) == [(puzzle_id, line, "solved", 1)]
        assert tried(database, alice.id) == (1, 1)  # counted once, across the kill
