"""What a "your move" reminder DM looks like: who it is against, the deadline as
``<t:…:R>``, a jump link to the game's message, and the board as the game's own message
draws it (:mod:`bot.discord_ui.render_game`), its squares turned into reminder cells
(``ttt:rc``) that play the move from the DM. A digest lists the games waiting, one line
each.

Every board is playable from the DM. A 3×3 or 4×4 board is a legacy message: the text as
its content, the squares as its rows of buttons. A 5×5 or ultimate board is drawn, as on
the game's own message, as a components-v2 layout (Discord takes the IS_COMPONENTS_V2
flag on any message a bot creates, a DM's too): one container with the text (the
reminder's line above the board's) and the squares' rows. Ultimate's free move shows, as
the game's message does, the nine small boards (``ttt:ru``): one opens that board's
squares on the DM with a Back button (``ttt:rb``), through the same service call as on
the game's message, changing nothing stored. The actions that belong on the game's
message (Resign, Hint, Options, the live board) are left out."""

from __future__ import annotations

from typing import Any

import discord

from bot.core.models import Game, GameUpdate
from bot.core.reminders.service import ToSend
from bot.discord_ui import custom_ids, render_game
from bot.discord_ui.custom_ids import BoardClick, CellClick, Click
from bot.discord_ui.render_common import Drawn, UnlistenedLayout, message_link, relative_time
from bot.i18n import text

MESSAGE_LIMIT = 2000
"""Characters a message's content may hold."""

Shown = tuple[str | None, discord.ui.View | discord.ui.LayoutView | None]
"""A DM's content and buttons: content None for a layout (its text is in the layout),
buttons None for text alone."""


def opponent_of(game: Game, member_id: int) -> str:
    mark = game.mark_of(member_id)
    return f"<@{game.player('O' if mark == 'X' else 'X')}>"


def jump_link(game: Game) -> str:
    return message_link(game.guild_id, game.channel_id, game.message_id)


def headline(kind: str, game: Game, member_id: int, locale: object) -> str:
    deadline = relative_time(game.turn_deadline or 0.0)
    return text(f"reminder.{kind}", locale, opponent=opponent_of(game, member_id),
                deadline=deadline, link=jump_link(game))  # fmt: skip


def locale_of(item: ToSend) -> object:
    """The language of a reminder: its game's server's, as stored with the game (a DM
    has no server, and the member's own language is known only in an interaction)."""
    return next((u.game.locale for u in item.games if u.game.locale), None)


def reminder_message(item: ToSend, locale: object = None) -> Shown:
    """The DM's content and buttons (see :data:`Shown`)."""
    member, kind = item.reminder.member_id, item.reminder.kind
    if kind == "digest":
        return digest(item, locale), None
    (update,) = item.games
    return reminder_board(update, headline(kind, update.game, member, locale), locale)


def digest(item: ToSend, locale: object = None) -> str:
    """The games waiting, soonest deadline first, one line each, as many as a message
    holds (a member may play many): the rest counted at the end."""
    member, games = item.reminder.member_id, item.games
    lines = [text("reminder.digest", locale, count=len(games))]
    used = len(lines[0])
    for shown, update in enumerate(games):
        game, left = update.game, len(games) - shown - 1
        deadline = relative_time(game.turn_deadline or 0.0)
        line = text("reminder.digest_line", locale, opponent=opponent_of(game, member),
                    deadline=deadline, link=jump_link(game))  # fmt: skip
        more = 1 + len(text("reminder.digest_more", locale, count=left)) if left else 0
        if used + 1 + len(line) + more > MESSAGE_LIMIT:
            lines.append(text("reminder.digest_more", locale, count=left + 1))
            break
        lines.append(line)
        used += 1 + len(line)
    return "\n".join(lines)


def reminder_board(
    update: GameUpdate, said: str, locale: object = None, *, playable: bool = True
) -> Shown:
    """``said`` above the game's board, its squares (and ultimate's choice of small
    boards) playable from the DM unless not ``playable`` (the board alone, to read)."""
    content, view = render_game.game_message(update, locale)
    if isinstance(view, discord.ui.LayoutView):
        return None, _reminder_layout(view, said, playable)
    if content is None or not isinstance(view, Drawn):  # no board of ours: the text grid
        return f"{said}\n{render_game.grid(update.game, update.marks)}", None
    rows = [_reminder_row(row) for row in view.rows] if playable else []
    rows = [row for row in rows if row["components"]]
    return f"{said}\n{content}", Drawn(rows) if rows else None


def _reminder_row(row: dict[str, Any]) -> dict[str, Any]:
    """A row of a legacy board's buttons with its squares as reminder cells (and without
    the actions: resigning, hints and the live board stay on the game's own message)."""
    kept = []
    for button in row["components"]:
        custom_id = _reminder_id(custom_ids.parse(str(button.get("custom_id", ""))))
        if custom_id is not None:
            kept.append(button | {"custom_id": custom_id})
    return {"type": 1, "components": kept}


def _reminder_layout(
    view: discord.ui.LayoutView, said: str, playable: bool
) -> discord.ui.LayoutView:
    """The game's layout (one container: its text, its rows of buttons) with ``said``
    above the text and, while ``playable``, its squares and small boards as reminder
    clicks; the actions' buttons left out. ``said`` is a line or two: the board's text
    leaves 400 of the 4,000 characters a layout holds (``render_ultimate.TEXT_LIMIT``)."""
    (container,) = view.children
    assert isinstance(container, discord.ui.Container), container
    shown = discord.ui.Container[discord.ui.LayoutView]()
    for item in container.children:
        if isinstance(item, discord.ui.TextDisplay):
            shown.add_item(discord.ui.TextDisplay(f"{said}\n{item.content}"))
        elif isinstance(item, discord.ui.ActionRow) and playable:
            kept = [b for b in map(_reminder_button, item.children) if b is not None]
            if kept:
                shown.add_item(discord.ui.ActionRow[discord.ui.LayoutView](*kept))
    layout = UnlistenedLayout()
    layout.add_item(shown)
    return layout


def _reminder_button(item: object) -> discord.ui.Button[Any] | None:
    """A layout's button as the DM's (None: an action, left out)."""
    if not isinstance(item, discord.ui.Button):
        return None
    custom_id = _reminder_id(custom_ids.parse(item.custom_id or ""))
    if custom_id is None:
        return None
    return discord.ui.Button(custom_id=custom_id, style=item.style, emoji=item.emoji,
                             label=item.label, disabled=item.disabled)  # fmt: skip


def _reminder_id(click: Click | None) -> str | None:
    """A board's click as the reminder's: a square, a small board, Back; None else."""
    match click:
        case CellClick(game_id, ply, cell):
            return custom_ids.reminder_cell(game_id, ply, cell)
        case BoardClick(game_id, ply, None):
            return custom_ids.reminder_back(game_id, ply)
        case BoardClick(game_id, ply, int(board)):
            return custom_ids.reminder_board(game_id, ply, board)
    return None
