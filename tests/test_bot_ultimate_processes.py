"""Ultimate as the other boards hold up: a game against the bot on PostgreSQL, its process
killed (SIGKILL) mid-game, goes on in a new process on the same message; a click on
the board from before the kill is refused privately and changes nothing."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from ultimate_harness import game_id, ply, replay, squares, wait_for_ply
from ultimate_harness import play as play_cell

from bot.storage import PostgresRepository

from bot_harness import bot_process, bot_process_env
from discord_emulator import DiscordEmulator

pytestmark = pytest.mark.postgres


async def stored_moves(dsn: str, game: int) -> tuple[int, ...]:
    repo = PostgresRepository(dsn, pool_size=1)
    await repo.open()
    try:
        stored = await repo.get_game(game)
        assert stored is not None and stored.variant == "ultimate"
        return stored.moves
    finally:
        await repo.close()


async def test_an_ultimate_game_on_postgresql_goes_on_after_a_sigkill(
    emulator: DiscordEmulator, pg_database: str, tmp_path: Path
) -> None:
    env = bot_process_env(emulator, tmp_path / "unused.sqlite3", TTT_DATABASE_URL=pg_database,
                          TTT_ENGINE_WORKERS="1", TTT_TURN_TIMEOUT="300")  # fmt: skip
    alice = emulator.create_user("alice")
    async with bot_process(emulator, env, tmp_path, ready=1) as first:
        res = await emulator.invoke(alice, "ttt start", {"difficulty": "hard", "first": "me",
                                                         "game": "ultimate"})  # fmt: skip
        assert res.type == 4, res.content
        message = res.message
        res = await play_cell(emulator, alice, message, 40)  # a free move: board, then square
        assert res.type == 7 and not res.ephemeral, res.content
        before_kill = await wait_for_ply(emulator, message, 2)  # the bot's reply
        game = game_id(before_kill)
        moves = await stored_moves(pg_database, game)
        assert moves[0] == 40 and len(moves) == 2
        assert await first.kill() == -signal.SIGKILL

    async with bot_process(emulator, env, tmp_path, ready=2):
        shown = emulator.message(message["id"])  # what alice still sees
        assert ply(shown) == 2
        board = replay(moves)
        cell = min(squares(shown))
        assert cell in board.legal_moves()
        res = await play_cell(emulator, alice, shown, cell)
        assert res.type == 7 and not res.ephemeral, res.content
        after = await wait_for_ply(emulator, message, 4)
        assert after["id"] == message["id"]
        moves_after = await stored_moves(pg_database, game)
        assert moves_after[:3] == (*moves, cell) and len(moves_after) == 4
        replay(moves_after)  # every stored move legal
        # a square on the board from before the kill, now out of date: refused privately
        stale = next(c for c in squares(before_kill) if c != cell)
        refused = await emulator.click(alice, before_kill, squares(before_kill)[stale]["custom_id"],
                                       force=True)  # fmt: skip
        assert refused.ephemeral
        assert await stored_moves(pg_database, game) == moves_after
        assert ply(emulator.message(message["id"])) == 4
