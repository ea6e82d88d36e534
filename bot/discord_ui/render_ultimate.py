"""What an ultimate game looks like in Discord: the 81 squares as an emoji grid in the
text, and buttons for the one choice the member to move makes.

The message is a components-v2 layout (one container: the text, three rows of three
buttons, the action row), like a 5×5 board's. Its buttons are the squares of the small
board to play; on a free move, the nine small boards first (a click shows that board's
squares with a Back button, changing no game state: see ``BoardClick``), so every open
square is two clicks away at most.

The grid fits whatever marks a server chose: a custom emoji is written ``<:name:id>``
(up to 57 characters), and 81 of them exceed the 4,000 characters of text a message
holds; so the grid shows a custom mark as the classic one while the marks fit no more
(:func:`text_marks`), and the buttons keep the server's own.
"""

from __future__ import annotations

from typing import Any, cast

import discord

from bot.core.engine_advice import EngineHint
from bot.core.hints import Hint
from bot.core.models import Game, GameUpdate
from bot.core.policy import EMOJI_SETS, EMPTY_MARK, Marks, custom_emoji_id
from bot.core.records import Review
from bot.discord_ui import custom_ids
from bot.discord_ui.render_common import (
    CLASSIC,
    GameMessage,
    UnlistenedLayout,
    action_buttons,
    button,
    open_to_moves,
    player_name,
    square_item,
    status_line,
)  # fmt: skip
from bot.i18n import text
from engine import UltimateBoard
from engine.ultimate import from_rowcol, to_rowcol

ARROWS = ("↖️", "⬆️", "↗️", "⬅️", "⏺️", "➡️", "↙️", "⬇️", "↘️")
"""The small boards' buttons on a free move, by their place in the big grid."""
PLAYABLE = ("🟨", "🟧", "🟪")
"""An empty square of a board that may be played now: the first not among the marks."""
DECIDED = ("⬛", "🔳", "▪️")
"""An empty square of a small board that is won or full: it takes no more moves."""
WINNING = ("🟩", "🟢")
"""An empty square of a small board in the line that won the game."""
LIT = ("💡", "🔆")
"""The square a hint names."""
DRAWN_BOARD = "➖"
TEXT_LIMIT = 3600
"""Characters (UTF-16 units, as Discord counts) the board's text may take of the 4,000 a
components-v2 message holds: the rest is room for a line added to it (a board posted
again says where the live one is)."""


def _pick(choices: tuple[str, ...], marks: Marks) -> str:
    return next((c for c in choices if c not in (marks.x, marks.o, marks.empty)), choices[-1])


def _length(content: str) -> int:
    return len(content.encode("utf-16-le")) // 2


def square_name(cell: int) -> str:
    """A square of the 9×9 grid: columns A–I from the left, rows 1–9 from the top."""
    row, col = to_rowcol(cell)
    return f"{'ABCDEFGHI'[col]}{row + 1}"


def board_name(board: int, locale: object = None) -> str:
    return f"{ARROWS[board]} {text(f'ultimate.board.{board}', locale)}"


def ultimate(game: Game) -> UltimateBoard:
    """The game's board: :data:`~bot.discord_ui.renderers.RENDERERS` hands this module the
    ultimate games only."""
    return cast(UltimateBoard, game.board)


def grid(game: Game, marks: Marks = CLASSIC, focus: int | None = None,
         lit: frozenset[int] = frozenset()) -> str:  # fmt: skip
    """The 81 squares, small boards set apart (a space between them, an empty line between
    their rows); empty squares of the boards to play now (``focus``: the one chosen) in
    yellow, of decided boards in black, of the game's winning boards in green."""
    board = ultimate(game)
    return board_grid(board, marks, focus, lit, running=game.running,
                      ended=game.ending is not None)  # fmt: skip


def board_grid(
    board: UltimateBoard, marks: Marks = CLASSIC, focus: int | None = None,
    lit: frozenset[int] = frozenset(), *, running: bool = True, ended: bool = False,
) -> str:  # fmt: skip
    """:func:`grid` of a board (a game's, or a puzzle's position): the boards to play in
    yellow while ``running``, the winning boards in green once ``ended``."""
    playable = {focus} if focus is not None else set(board.playable_boards())
    statuses = board.board_statuses()
    winning = set(board.winning_boards() or ()) if ended else set()
    glyphs = {"lit": _pick(LIT, marks), "play": _pick(PLAYABLE, marks),
              "decided": _pick(DECIDED, marks), "won": _pick(WINNING, marks)}  # fmt: skip

    def glyph(cell: int) -> str:
        mark, small = board[cell], cell // 9
        if cell in lit:
            return glyphs["lit"]
        if mark is not None:
            return marks.of(mark)
        if small in winning:
            return glyphs["won"]
        if statuses[small] is not None:
            return glyphs["decided"]
        return glyphs["play"] if running and small in playable else marks.empty

    rows = []
    for row in range(9):
        thirds = ("".join(glyph(from_rowcol(row, c)) for c in range(t, t + 3)) for t in (0, 3, 6))
        rows.append(" ".join(thirds))
        if row in (2, 5):
            rows.append("")
    return "\n".join(rows)


def text_marks(marks: Marks) -> Marks:
    """The marks the grid can always hold: a server's custom emoji shown as the classic
    mark (its Unicode emoji stay)."""
    x, o = EMOJI_SETS["classic"]
    return Marks(
        marks.x if custom_emoji_id(marks.x) is None else x,
        marks.o if custom_emoji_id(marks.o) is None else o,
        marks.empty if custom_emoji_id(marks.empty) is None else EMPTY_MARK,
    )


def legend(game: Game, locale: object, marks: Marks, focus: int | None) -> list[str]:
    """Where the member to move may play, and the last move."""
    return board_legend(ultimate(game), locale, marks, focus, running=game.running)


def board_legend(
    board: UltimateBoard, locale: object, marks: Marks, focus: int | None, *, running: bool
) -> list[str]:
    """:func:`legend` of a board (a game's, or a puzzle's position)."""
    lines = []
    if running:
        mover, play = marks.of(board.to_move), _pick(PLAYABLE, marks)
        if board.forced_board is not None:
            lines.append(text("ultimate.forced", locale, lit=play, mark=mover,
                              board=board_name(board.forced_board, locale)))  # fmt: skip
        elif focus is not None:
            lines.append(text("ultimate.chosen", locale, lit=play, mark=mover,
                              board=board_name(focus, locale)))  # fmt: skip
        else:
            lines.append(free_move(board, locale, play, mover))
    last = board.last_move
    if last is not None:
        lines.append(text("ultimate.last", locale, mark=marks.of(board[last]),
                          square=square_in_board(last % 9, locale),
                          board=board_name(last // 9, locale)))  # fmt: skip
    return lines


def square_in_board(square: int, locale: object = None) -> str:
    """A square named by its place in its small board, as the boards are named: the grid
    has no coordinates to read, and that place is the board the move sends to."""
    return f"{ARROWS[square]} {text(f'ultimate.square.{square}', locale)}"


def free_move(board: UltimateBoard, locale: object, lit: str, mark: str) -> str:
    """The free move's line, saying why it is free: the board the last move sent it to
    is won or full (nothing to say before the first move)."""
    last = board.last_move
    if last is None:
        return text("ultimate.free", locale, lit=lit, mark=mark)
    sent = last % 9
    why = "full" if board.board_status(sent) == "draw" else "won"
    return text(f"ultimate.free.{why}", locale, lit=lit, mark=mark,
                board=board_name(sent, locale))  # fmt: skip


def content(game: Game, locale: object, marks: Marks, focus: int | None = None) -> str:
    """Header, grid, where to play and the last move, status; in marks that fit."""
    for shown in (marks, text_marks(marks), CLASSIC):
        header = text("game.vs", locale, x=player_name(game, "X", locale), mark_x=shown.x,
                      o=player_name(game, "O", locale), mark_o=shown.o)  # fmt: skip
        status = _status(game, locale, shown)
        lines = [header, grid(game, shown, focus), *legend(game, locale, shown, focus), status]
        if game.hinted:
            lines.append(text("game.hinted", locale))
        said = "\n".join(lines)
        if _length(said) <= TEXT_LIMIT:
            return said
    return said  # classic marks: about 700 characters, whatever the names


def _status(game: Game, locale: object, marks: Marks) -> str:
    """As the other boards' status line; a win says it took three boards in a row."""
    ending = game.ending
    if ending is None or ending.reason != "line" or ending.winner is None:
        return status_line(game, locale, marks)
    return text("ultimate.won", locale, player=player_name(game, ending.winner, locale),
                mark=marks.of(ending.winner))  # fmt: skip


def game_message(update: GameUpdate, locale: object = None) -> GameMessage:
    """An ultimate game's message: the layout described in the module's docstring."""
    game, marks = update.game, update.marks
    board = ultimate(game)
    focus = update.focus if game.running and board.forced_board is None else None
    if focus is not None and focus not in board.playable_boards():
        focus = None
    small = board.forced_board if focus is None else focus
    if game.running and small is not None:
        buttons = [square_button(game, small * 9 + s, marks) for s in range(9)]
    else:  # a free move (the bot's too, while it thinks), or the end: the small boards
        buttons = [board_button(game, b, marks) for b in range(9)]
    rows = [discord.ui.ActionRow[discord.ui.LayoutView](*buttons[r * 3 : r * 3 + 3])
            for r in range(3)]  # fmt: skip
    container = discord.ui.Container[discord.ui.LayoutView](
        discord.ui.TextDisplay(content(game, locale, marks, focus)), *rows
    )
    actions = action_buttons(game, locale, hints=update.hints, live=update.live_board)
    if focus is not None:
        back = button(custom_ids.back(game.id, game.ply), text("button.back", locale),
                      discord.ButtonStyle.secondary)  # fmt: skip
        back.emoji = "↩️"
        actions.append(back)
    if actions:
        container.add_item(discord.ui.ActionRow(*actions))
    layout = UnlistenedLayout()
    layout.add_item(container)
    return GameMessage(None, layout)


def square_button(game: Game, cell: int, marks: Marks) -> discord.ui.Button[Any]:
    """A square of the small board to play: a taken one shows its mark and is disabled
    (every one, while the bot thinks)."""
    mark = ultimate(game)[cell]
    return square_item(custom_ids.cell(game.id, game.ply, cell), discord.ButtonStyle.secondary,
                       marks.of(mark) if mark else None,
                       mark is not None or not open_to_moves(game))  # fmt: skip


def board_button(game: Game, small: int, marks: Marks) -> discord.ui.Button[Any]:
    """A small board, to choose on a free move (see :func:`small_board_button`); while
    the bot thinks and at the end every one is disabled, at the end the game's winning
    boards green."""
    board = ultimate(game)
    winning = game.ending is not None and small in (board.winning_boards() or ())
    return small_board_button(board, small, custom_ids.board(game.id, game.ply, small), marks,
                              playable=open_to_moves(game), winning=winning)  # fmt: skip


def small_board_button(
    board: UltimateBoard, small: int, custom_id: str, marks: Marks, *, playable: bool,
    winning: bool = False,
) -> discord.ui.Button[Any]:  # fmt: skip
    """A small board's button (a game's, or a puzzle's): its arrow while open, else who
    won it (➖: full without a line), disabled; all disabled unless ``playable``."""
    status = board.board_status(small)
    emoji = (
        ARROWS[small] if status is None else DRAWN_BOARD if status == "draw" else marks.of(status)
    )
    return discord.ui.Button(
        custom_id=custom_id,
        style=discord.ButtonStyle.success if winning else discord.ButtonStyle.secondary,
        emoji=emoji, disabled=status is not None or not playable,
    )  # fmt: skip


def hint_text(game: Game, hint: EngineHint, locale: object = None, marks: Marks = CLASSIC) -> str:
    """The private answer to a Hint click on ultimate: the engine's square on the grid,
    its estimate of the member's chances, and that it is a judgement, not a proof."""
    shown = text_marks(marks)
    lines = [text("hint.title", locale, mark=shown.of(hint.mark)),
             grid(game, shown, lit=frozenset({hint.cell}))]  # fmt: skip
    lines.append(text("ultimate.hint.square", locale, square=f"**{square_name(hint.cell)}**",
                      board=board_name(hint.cell // 9, locale),
                      percent=round(100 * hint.chances)))  # fmt: skip
    if hint.wins_game or hint.takes_board:
        lines.append(text("ultimate.hint.wins" if hint.wins_game else "ultimate.hint.takes",
                          locale))  # fmt: skip
    lines.append(text("ultimate.engine_note", locale))
    lines.append(text("hint.legend", locale, last="I", size=9))
    lines.append(text("hint.marked", locale))
    return "\n".join(lines)


def review_text(review: Review, locale: object = None, marks: Marks = CLASSIC) -> str:
    """An ultimate game's review: the moves after which the engine's estimate of their
    player's chances fell most (in the order played), with the move it preferred; and
    what that is worth."""
    game, shown = review.game, text_marks(marks)
    lines = [text("review.title", locale, x=player_name(game, "X", locale), mark_x=shown.x,
                  o=player_name(game, "O", locale), mark_o=shown.o)]  # fmt: skip
    for move in review.judged or ():
        lines.append(text(
            "ultimate.review.move", locale, number=move.ply + 1, mark=shown.of(move.player),
            square=square_name(move.move), preferred=square_name(move.preferred),
            before=round(100 * move.before), after=round(100 * move.after),
        ))  # fmt: skip
    if not review.judged:
        lines.append(text("ultimate.review.clean", locale))
    lines.append(text("ultimate.engine_note", locale))
    lines.append(text("hint.legend", locale, last="I", size=9))
    return "\n".join(lines)


class UltimateRenderer:
    """This module as ultimate's chat renderer (see
    :class:`~bot.discord_ui.renderers.ChatRenderer`)."""

    def grid(self, game: Game, marks: Marks) -> str:
        return grid(game, text_marks(marks))

    def game_message(self, update: GameUpdate, locale: object) -> GameMessage:
        return game_message(update, locale)

    def hint_text(self, game: Game, hint: Hint | EngineHint, locale: object, marks: Marks) -> str:
        assert isinstance(hint, EngineHint), hint  # ultimate's hints are the engine's
        return hint_text(game, hint, locale, marks)

    def review_text(self, review: Review, locale: object, marks: Marks) -> str:
        return review_text(review, locale, marks)

    def challenge_note(self, locale: object) -> str | None:
        return text("challenge.ultimate", locale)


RENDERER = UltimateRenderer()
