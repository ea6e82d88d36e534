"""A game as the page shows it: everything visible is made here, in the member's
language (the page holds no rule and no wording)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from bot.core.courtesy import DRAW_FROM_PLY, agreed_draw, choices_of, standing_offer, time_given
from bot.core.models import Game, GameUpdate, other
from bot.core.rules import lapsed_unplayed
from bot.i18n import text
from bot.web.boards import board_of
from bot.web.page_text import CUT, MARK_CUT, parts_of, plain

Person = tuple[str, str | None]
"""A member's name and avatar URL."""
Names = Callable[[int], Awaitable[Person]]


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
    shown = board_of(game.variant).board_json(board, locale, game.running)
    can_move = game.running and you is not None and to_move == you
    actions: list[str] = []
    if you is not None and game.running:
        actions.append("resign")
        courtesy = choices_of(game, viewer)  # a correspondence game's, made in the chat too
        if courtesy is not None:
            may_give_time, offer = courtesy
            actions += ["more_time"] if may_give_time else []
            if offer == "accept" or (offer == "offer" and game.ply >= DRAW_FROM_PLY):
                actions.append(f"{offer}_draw")
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
        "days_per_move": game.days_per_move, "pace": pace(game, locale, players),
    } | shown  # fmt: skip


def pace(game: Game, locale: str, players: dict[str, dict[str, Any]] | None = None) -> str | None:
    """A correspondence game's pace as the board's message says it, and its courtesy
    notes (more time given, a draw offered: made in chat); None for a live one."""
    if game.days_per_move is None:
        return None
    said = [text("game.pace", locale, pace=text(f"choice.pace.{game.days_per_move}", locale))]
    if players is not None and game.running:
        mover = game.board.to_move
        if time_given(game):
            said.append(text("courtesy.time_note", locale, giver=players[other(mover)]["name"],
                             player=players[mover]["name"], days=game.days_per_move))  # fmt: skip
        offer = standing_offer(game)
        if offer is not None:
            mark = "X" if offer == game.player_x else "O"
            said.append(text("courtesy.offer_note", locale, player=players[mark]["name"]))
    return plain(" ".join(said))


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


def _status(game: Game, locale: str, name: dict[str, str], glyph: dict[str, str]) -> str:
    if game.running:
        mover = game.board.to_move
        if game.bot_side == mover:
            return plain(text("game.bot_turn", locale, player=name[mover]))
        return plain(text("web.turn", locale, player=name[mover], mark=glyph[mover]))
    ending = game.ending
    assert ending is not None
    if ending.reason == "abandoned":
        return plain(text("game.no_first_move" if lapsed_unplayed(game) else "game.abandoned",
                          locale))  # fmt: skip
    if ending.reason == "stopped":
        return plain(text("web.stopped", locale))
    if ending.winner is None:
        if agreed_draw(game) and game.draw_offer_by is not None:
            offerer = "X" if game.draw_offer_by == game.player_x else "O"
            return plain(text("game.draw_agreed", locale, offerer=name[offerer],
                              accepter=name[other(offerer)]))  # fmt: skip
        return plain(text("game.draw", locale))
    winner = ending.winner
    loser = "O" if winner == "X" else "X"
    key = {"resign": "game.resigned", "timeout": "game.timeout"}.get(ending.reason)
    if key is not None:
        return plain(text(key, locale, loser=name[loser], winner=name[winner]))
    won = board_of(game.variant).won_key(game.k)
    return plain(text(won, locale, player=name[winner], mark=glyph[winner], k=game.k))
