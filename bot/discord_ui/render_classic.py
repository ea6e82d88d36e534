"""What a classic game looks like in Discord: the N×N board as buttons, with its emoji grid
in the text.

A legacy message holds five action rows, all of which a 5×5 board's squares fill; so a
5×5 game is a components-v2 message (IS_COMPONENTS_V2: a container holding the same text
as a text display and the same rows of buttons, with room for the action row). Smaller
boards stay legacy messages: their text stays the message content that every client,
notification and older library shows, and they already have a row free."""

from __future__ import annotations

from typing import Any, cast

import discord

from bot.core.engine_advice import EngineHint
from bot.core.hints import Hint
from bot.core.models import Game, GameUpdate
from bot.core.policy import Marks
from bot.core.records import Review
from bot.discord_ui import custom_ids, render_hint, render_records
from bot.discord_ui.render_common import (
    CLASSIC,
    Drawn,
    GameMessage,
    UnlistenedLayout,
    action_buttons,
    actions,
    open_to_moves,
    player_name,
    square_item,
    square_payload,
    status_line,
)
from bot.i18n import text
from engine import Board

MAX_ROWS = 5  # Discord's limit of action rows per message


def classic(game: Game) -> Board:
    """The game's board: :data:`~bot.discord_ui.renderers.RENDERERS` hands this module the
    classic games only."""
    return cast(Board, game.board)


def grid(game: Game, marks: Marks = CLASSIC) -> str:
    return board_grid(classic(game), marks)


def board_grid(board: Board, marks: Marks = CLASSIC) -> str:
    """A board's squares as rows of emoji (a game's, or a puzzle's position)."""
    rows = []
    for row in range(board.size):
        cells = range(row * board.size, (row + 1) * board.size)
        rows.append("".join(marks.of(board[c]) for c in cells))
    return "\n".join(rows)


def uses_layout(game: Game) -> bool:
    """Whether the game's message is a components-v2 layout: when its squares fill every
    action row a legacy message may have."""
    return game.board.size >= MAX_ROWS


def game_message(update: GameUpdate, locale: object = None) -> GameMessage:
    """Content and buttons of a game message."""
    game, marks = update.game, update.marks
    content = game_content(game, locale, marks)
    if uses_layout(game):
        layout = game_layout(game, content, locale, marks, hints=update.hints,
                             live=update.live_board)  # fmt: skip
        return GameMessage(None, layout)
    return GameMessage(content, game_view(game, locale, marks, hints=update.hints,
                                          live=update.live_board))  # fmt: skip


def game_content(game: Game, locale: object = None, marks: Marks = CLASSIC) -> str:
    header = text("game.vs", locale, x=player_name(game, "X", locale), mark_x=marks.x,
                  o=player_name(game, "O", locale), mark_o=marks.o)  # fmt: skip
    content = f"{header}\n{grid(game, marks)}\n{status_line(game, locale, marks)}"
    return f"{content}\n{text('game.hinted', locale)}" if game.hinted else content


def game_view(
    game: Game, locale: object = None, marks: Marks = CLASSIC, *, hints: bool = False,
    live: bool = False,
) -> discord.ui.View:  # fmt: skip
    """The board as buttons, row-major, with the action buttons in the row below (a
    legacy message: boards smaller than 5×5)."""
    size = game.board.size
    squares = [cell_payload(game, cell, marks) for cell in range(size * size)]
    rows = [{"type": 1, "components": squares[r * size : (r + 1) * size]} for r in range(size)]
    acting = actions(game, locale, hints=hints, live=live)
    if acting:
        rows.append({"type": 1, "components": [action.payload() for action in acting]})
    return Drawn(rows)


def game_layout(
    game: Game, content: str, locale: object = None, marks: Marks = CLASSIC, *,
    hints: bool = False, live: bool = False,
) -> discord.ui.LayoutView:  # fmt: skip
    """The 5×5 board as a components-v2 message: one container with the text (header,
    emoji grid and status, for clients that show text only), the board's rows of buttons
    and the action row: 1 + 1 + 5 × 6 + 1 + actions, at most 38 of Discord's 40."""
    size = game.board.size
    rows = [
        discord.ui.ActionRow[discord.ui.LayoutView](
            *(cell_button(game, cell, marks) for cell in range(r * size, (r + 1) * size))
        )
        for r in range(size)
    ]
    container = discord.ui.Container[discord.ui.LayoutView](discord.ui.TextDisplay(content), *rows)
    actions = action_buttons(game, locale, hints=hints, live=live)
    if actions:
        container.add_item(discord.ui.ActionRow(*actions))
    layout = UnlistenedLayout()
    layout.add_item(container)
    return layout


def cell_button(
    game: Game, cell: int, marks: Marks = CLASSIC, row: int | None = None
) -> discord.ui.Button[Any]:
    """One square (see :func:`square_look`) as a discord.py item, for a layout."""
    style, mark, disabled = square_look(game, cell, marks)
    return square_item(custom_ids.cell(game.id, game.ply, cell), style, mark, disabled, row)


def cell_payload(game: Game, cell: int, marks: Marks = CLASSIC) -> dict[str, Any]:
    """One square (see :func:`square_look`) as the payload :func:`cell_button`'s item
    encodes to, built directly."""
    style, mark, disabled = square_look(game, cell, marks)
    return square_payload(custom_ids.cell(game.id, game.ply, cell), style, mark, disabled)


def square_look(
    game: Game, cell: int, marks: Marks
) -> tuple[discord.ButtonStyle, str | None, bool]:
    """A square's style, mark and whether it is disabled: a taken one shows its mark and
    is disabled; while the bot thinks, and at the end, every square is disabled, and at
    the end the winning line is green."""
    board = classic(game)
    won = game.ending is not None and game.ending.reason == "line"
    mark = board[cell]
    green = won and cell in (board.winning_line() or ())
    style = discord.ButtonStyle.success if green else discord.ButtonStyle.secondary
    return style, marks.of(mark) if mark else None, mark is not None or not open_to_moves(game)


class ClassicRenderer:
    """This module as the chat renderer of the classic boards (see
    :class:`~bot.discord_ui.renderers.ChatRenderer`)."""

    def grid(self, game: Game, marks: Marks) -> str:
        return grid(game, marks)

    def game_message(self, update: GameUpdate, locale: object) -> GameMessage:
        return game_message(update, locale)

    def hint_text(self, game: Game, hint: Hint | EngineHint, locale: object, marks: Marks) -> str:
        assert isinstance(hint, Hint), hint  # the classic variant's hints are exact
        return render_hint.hint_text(game, hint, locale, marks)

    def review_text(self, review: Review, locale: object, marks: Marks) -> str:
        return render_records.review_text(review, locale, marks)

    def challenge_note(self, locale: object) -> str | None:
        return None  # the board's size, in the challenge's line, says it all


RENDERER = ClassicRenderer()
