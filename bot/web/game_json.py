"""A game as the page shows it: everything visible is made here, in the member's
language (the page holds no rule and no wording)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from bot.core.models import Game, GameUpdate
from bot.core.review import cell_name
from bot.i18n import text
from bot.web.ultimate_json import ultimate_json
from engine import Board

Person = tuple[str, str | None]
"""A member's name and avatar URL."""
Names = Callable[[int], Awaitable[Person]]

CUT = "\x00"
"""Around a name or a mark in a status line being cut into parts (no catalog text has it)."""


def plain(line: str) -> str:
    """A catalog text without Discord's markdown (the page styles it itself)."""
    return line.replace("**", "")


def bot_name(game: Game, locale: str) -> str:
    level = text(f"choice.difficulty.{game.difficulty}", locale)
    return text("bot.name", locale, difficulty=level)


async def game_json(update: GameUpdate, viewer: int, locale: str, names: Names) -> dict[str, Any]:
    game = update.game
    board = game.board
    players: dict[str, dict[str, Any]] = {}
    for mark in ("X", "O"):
        if game.bot_side == mark:
            players[mark] = {"id": None, "name": bot_name(game, locale), "avatar": None,
                             "bot": True}  # fmt: skip
        else:
            member = game.player(mark)
            name, avatar = await names(member)
            players[mark] = {"id": str(member), "name": name, "avatar": avatar, "bot": False}
    you = game.mark_of(viewer)
    to_move = board.to_move if game.running else None
    shown = (classic_json(board, locale, game.running) if isinstance(board, Board)
             else ultimate_json(board, locale, game.running))  # fmt: skip
    can_move = game.running and you is not None and to_move == you
    actions: list[str] = []
    if you is not None and game.running:
        actions.append("resign")
        if can_move and game.bot_side is not None and update.hints:
            actions.append("hint")
    elif you is not None:
        actions += ["rematch", "review"]
    return {
        "id": str(game.id), "ply": game.ply, "variant": game.variant, "size": board.size,
        "running": game.running,
        "status": status(game, locale, players), "players": players,
        "status_parts": status_parts(game, locale, players), "to_move": to_move,
        "you": you, "can_move": can_move, "deadline": game.turn_deadline if game.running
        else None, "last_move": game.moves[-1] if game.moves else None, "actions": actions,
        "hinted": game.hinted, "ended": None if game.running else status(game, locale, players),
    } | shown  # fmt: skip


def classic_json(board: Board, locale: str, running: bool) -> dict[str, Any]:
    """The Game fields of an N×N board: ``cells`` row-major, each named by its square, and
    its ``shape`` as the start form names it ("3×3, three in a row")."""
    line = set() if running else set(board.winning_line() or ())
    legal = set(board.legal_moves()) if running else set()
    empty = text("web.cell.empty", locale)
    cells = []
    for cell in range(board.cell_count):
        mark = board[cell]
        cells.append({"mark": mark, "win": cell in line, "legal": cell in legal,
                      "label": f"{cell_name(cell, board.size)}, {mark or empty}"})  # fmt: skip
    return {"cells": cells, "shape": text(f"choice.size.{board.size}", locale)}


def status(game: Game, locale: str, players: dict[str, dict[str, Any]]) -> str:
    """The status line of the chat board, with names for mentions, marks as letters (a
    system without a colour emoji font would show empty boxes) and no timestamp."""
    name = {mark: str(players[mark]["name"]) for mark in ("X", "O")}
    return _status(game, locale, name, {"X": "X", "O": "O"})


def status_parts(
    game: Game, locale: str, players: dict[str, dict[str, Any]]
) -> list[dict[str, str]]:
    """The status line in parts, ``{"text": …}``, ``{"name": …}`` and ``{"mark": "X"}``,
    so the page draws the marks as its board does and keeps each name whole."""
    name = {mark: f"{CUT}n{mark}{CUT}" for mark in ("X", "O")}
    line = _status(game, locale, name, MARK_CUT)
    return parts_of(line, {mark: str(players[mark]["name"]) for mark in ("X", "O")})


MARK_CUT = {mark: f"{CUT}m{mark}{CUT}" for mark in ("X", "O")}
"""The marks as a text is cut for :func:`parts_of` (passed as a catalog text's ``mark``)."""


def parts_of(line: str, names: dict[str, str] | None = None) -> list[dict[str, str]]:
    """A line with :data:`MARK_CUT` marks (and names as ``CUT n<mark> CUT``) in parts."""
    parts: list[dict[str, str]] = []
    for i, piece in enumerate(line.split(CUT)):
        if i % 2 == 0:
            if piece:
                parts.append({"text": piece})
        elif piece[0] == "n" and names is not None:
            parts.append({"name": names[piece[1]]})
        else:
            parts.append({"mark": piece[1]})
    return parts


def letters(line: str) -> str:
    """A line with :data:`MARK_CUT` marks as plain text: each mark its letter."""
    return "".join(piece[1:] if i % 2 else piece for i, piece in enumerate(line.split(CUT)))


def _status(game: Game, locale: str, name: dict[str, str], glyph: dict[str, str]) -> str:
    if game.running:
        mover = game.board.to_move
        if game.bot_side == mover:
            return plain(text("game.bot_turn", locale, player=name[mover]))
        return plain(text("web.turn", locale, player=name[mover], mark=glyph[mover]))
    ending = game.ending
    assert ending is not None
    if ending.reason == "abandoned":
        return plain(text("game.abandoned", locale))
    if ending.reason == "stopped":
        return plain(text("web.stopped", locale))
    if ending.winner is None:
        return plain(text("game.draw", locale))
    winner = ending.winner
    loser = "O" if winner == "X" else "X"
    key = {"resign": "game.resigned", "timeout": "game.timeout"}.get(ending.reason)
    if key is not None:
        return plain(text(key, locale, loser=name[loser], winner=name[winner]))
    won = (
        "ultimate.won"
        if game.variant == "ultimate"
        else "game.won"
        if game.k == 3
        else "game.won_k"
    )
    return plain(text(won, locale, player=name[winner], mark=glyph[winner], k=game.k))
