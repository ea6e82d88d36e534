"""What a game or a challenge looks like in Discord: content text and button layout."""

from __future__ import annotations

import discord

from bot import custom_ids
from bot.components import (
    AcceptButton,
    CellButton,
    DeclineButton,
    RematchButton,
    ResignButton,
    ReviewButton,
)
from bot.models import Challenge, Game
from bot.review import reviewable
from bot.texts import text

MARK_EMOJI = {"X": "❌", "O": "⭕"}
EMPTY_EMOJI = "⬜"
EMPTY_LABEL = "\u200b"  # a button needs a label or an emoji; empty squares show neither
MAX_ROWS = 5  # Discord's limit of action rows per message


def message_link(guild_id: int | None, channel_id: int, message_id: int | None) -> str:
    if message_id is None:
        return f"<#{channel_id}>"
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}/{message_id}"


def relative_time(timestamp: float) -> str:
    """Discord renders ``<t:…:R>`` in each reader's own clock and language ("in 5 minutes")."""
    return f"<t:{int(timestamp)}:R>"


def player_name(game: Game, mark: str, locale: object = None) -> str:
    if game.bot_side == mark:
        level = text(f"choice.difficulty.{game.difficulty}", locale)
        return text("bot.name", locale, difficulty=level)
    return f"<@{game.player(mark)}>"


def grid(game: Game) -> str:
    board = game.board
    rows = []
    for row in range(board.size):
        cells = range(row * board.size, (row + 1) * board.size)
        rows.append("".join(MARK_EMOJI.get(board[c] or "", EMPTY_EMOJI) for c in cells))
    return "\n".join(rows)


def status_line(game: Game, locale: object = None) -> str:
    board = game.board
    if game.running:
        mover = board.to_move
        if game.bot_side == mover:
            return text("game.bot_turn", locale, player=player_name(game, mover, locale))
        deadline = relative_time(game.turn_deadline) if game.turn_deadline else ""
        return text(
            "game.turn",
            locale,
            player=player_name(game, mover, locale),
            mark=MARK_EMOJI[mover],
            deadline=deadline,
        )
    if game.end_reason == "abandoned":
        return text("game.abandoned", locale)
    if game.result == "draw":
        return text("game.draw", locale)
    winner = game.result or "X"
    loser = "O" if winner == "X" else "X"
    if game.end_reason == "resign":
        return text(
            "game.resigned",
            locale,
            loser=player_name(game, loser, locale),
            winner=player_name(game, winner, locale),
        )
    if game.end_reason == "timeout":
        return text(
            "game.timeout",
            locale,
            loser=player_name(game, loser, locale),
            winner=player_name(game, winner, locale),
        )
    key = "game.won" if game.k == 3 else "game.won_k"
    return text(
        key, locale, player=player_name(game, winner, locale), mark=MARK_EMOJI[winner], k=game.k
    )


def game_content(game: Game, locale: object = None) -> str:
    header = text(
        "game.vs", locale, x=player_name(game, "X", locale), o=player_name(game, "O", locale)
    )
    return f"{header}\n{grid(game)}\n{status_line(game, locale)}"


def game_view(game: Game, locale: object = None) -> discord.ui.View:
    """The board as buttons, row-major: taken squares show their mark and are disabled; at
    the end every square is disabled and the winning line is green. A Resign button while
    the game runs, Rematch and Review buttons after, when a row is free for them."""
    board = game.board
    winning = set(board.winning_line() or ()) if game.end_reason == "line" else set()
    view = discord.ui.View(timeout=None)
    for cell in range(board.size * board.size):
        mark = board[cell]
        button = discord.ui.Button(
            custom_id=custom_ids.cell(game.id, game.ply, cell),
            style=discord.ButtonStyle.success if cell in winning else discord.ButtonStyle.secondary,
            emoji=MARK_EMOJI[mark] if mark else None,
            label=None if mark else EMPTY_LABEL,
            disabled=mark is not None or not game.running,
            row=cell // board.size,
        )
        view.add_item(CellButton(game.id, game.ply, cell, button))
    if board.size < MAX_ROWS:
        if game.running:
            view.add_item(
                ResignButton(
                    game.id,
                    discord.ui.Button(
                        custom_id=custom_ids.resign(game.id),
                        label=text("button.resign", locale),
                        style=discord.ButtonStyle.danger,
                        row=board.size,
                    ),
                )
            )
        else:
            view.add_item(
                RematchButton(
                    game.id,
                    discord.ui.Button(
                        custom_id=custom_ids.rematch(game.id),
                        label=text("button.rematch", locale),
                        style=discord.ButtonStyle.primary,
                        row=board.size,
                    ),
                )
            )
            if reviewable(game):
                view.add_item(
                    ReviewButton(
                        game.id,
                        discord.ui.Button(
                            custom_id=custom_ids.review(game.id),
                            label=text("button.review", locale),
                            style=discord.ButtonStyle.secondary,
                            row=board.size,
                        ),
                    )
                )
    return view


def challenge_content(challenge: Challenge, locale: object = None) -> str:
    challenger, opponent = f"<@{challenge.challenger_id}>", f"<@{challenge.opponent_id}>"
    if challenge.status == "declined":
        return text("challenge.declined", locale, challenger=challenger, opponent=opponent)
    if challenge.status == "expired":
        return text("challenge.expired", locale, challenger=challenger, opponent=opponent)
    key = "challenge.rematch" if challenge.rematch_of else "challenge.content"
    return text(
        key,
        locale,
        challenger=challenger,
        opponent=opponent,
        deadline=relative_time(challenge.expires_at),
    )


def challenge_view(challenge: Challenge, locale: object = None) -> discord.ui.View | None:
    """Accept and Decline while the challenge is pending; no buttons once it is closed."""
    if challenge.status != "pending":
        return None
    view = discord.ui.View(timeout=None)
    view.add_item(
        AcceptButton(
            challenge.id,
            discord.ui.Button(
                custom_id=custom_ids.accept(challenge.id),
                label=text("button.accept", locale),
                style=discord.ButtonStyle.success,
            ),
        )
    )
    view.add_item(
        DeclineButton(
            challenge.id,
            discord.ui.Button(
                custom_id=custom_ids.decline(challenge.id),
                label=text("button.decline", locale),
                style=discord.ButtonStyle.danger,
            ),
        )
    )
    return view
