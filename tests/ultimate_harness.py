"""Playing ultimate tic-tac-toe through the emulator as a member does: reading the board
message's buttons with the bot's own custom_id grammar, and clicking a square (on a free
move, its board first)."""

from __future__ import annotations

from typing import Any

from bot.discord_ui import custom_ids
from engine import UltimateBoard

from discord_emulator import DiscordEmulator, buttons

DRAW = (11, 23, 48, 27, 4, 38, 26, 72, 7, 69, 62, 80, 79, 63, 3, 31, 37, 15, 61, 71, 73, 9, 8,
        76, 44, 70, 43, 35, 10, 12, 60, 20, 21, 5, 53, 19, 45, 1, 51, 39, 40, 0, 6, 18)  # fmt: skip
"""A legal game (cells numbered board by board) that ends drawn after 44 moves: every
small board decided, no line of them. Found by random playouts (seed 2733), shortest of
20,000; checked legal by the engine in the test that plays it."""


def clicks(message: dict[str, Any]) -> list[tuple[Any, dict[str, Any]]]:
    """Every button of a message, parsed with the bot's grammar, with the button."""
    return [(custom_ids.parse(b["custom_id"]), b) for row in buttons(message) for b in row]


def squares(message: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """The square buttons shown, by cell."""
    return {c.cell: b for c, b in clicks(message) if isinstance(c, custom_ids.CellClick)}


def boards(message: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """The small boards' buttons shown (a free move, or the end), by board."""
    return {
        c.board: b
        for c, b in clicks(message)
        if isinstance(c, custom_ids.BoardClick) and c.board is not None
    }


def game_id(message: dict[str, Any]) -> int:
    return next(c.game_id for c, _ in clicks(message) if hasattr(c, "game_id"))


def ply(message: dict[str, Any]) -> int:
    """The moves on the board the message shows (its squares' and boards' ids carry it)."""
    kinds = custom_ids.CellClick | custom_ids.BoardClick
    return max(c.ply for c, _ in clicks(message) if isinstance(c, kinds))


def button_id(message: dict[str, Any], kind: type) -> str:
    return next(b["custom_id"] for c, b in clicks(message) if isinstance(c, kind))


async def play(emu: DiscordEmulator, user: Any, message: dict[str, Any], cell: int) -> Any:
    """``cell`` played as a member plays it: its square when the message shows it, else
    (a free move) its small board, then the square. The last click's result."""
    current = emu.message(message["id"])
    if cell not in squares(current):
        res = await emu.click(user, current, boards(current)[cell // 9]["custom_id"])
        assert res.type == 7 and not res.ephemeral, res.content
        current = res.message
    return await emu.click(user, current, squares(current)[cell]["custom_id"])


async def wait_for_ply(emu: DiscordEmulator, message: dict[str, Any], moves: int) -> Any:
    """``message`` once its board shows ``moves`` moves (the bot's reply may be edited in)."""
    return await emu.wait_for_message(
        lambda m: m["id"] == message["id"] and ply(m) >= moves, include_existing=True
    )


def replay(moves: tuple[int, ...]) -> UltimateBoard:
    board = UltimateBoard.new()
    for cell in moves:
        board = board.play(cell)
    return board
