"""What a "your move" reminder DM looks like: who it is against, the deadline as
``<t:…:R>``, a jump link to the game's message, and the board as the game's own message
draws it (:mod:`bot.discord_ui.render_game`), its squares turned into reminder cells
(``ttt:rc``) that play the move from the DM. A digest lists the games waiting, one line
each. Boards drawn as a components-v2 layout (5×5) and boards without squares to click
(ultimate's choice of small boards) come as text with the link, without buttons."""

from __future__ import annotations

from typing import Any

import discord

from bot.core.models import Game, GameUpdate
from bot.core.reminders.service import ToSend
from bot.discord_ui import custom_ids, render_game
from bot.discord_ui.custom_ids import CellClick
from bot.discord_ui.render_common import Drawn, message_link, relative_time
from bot.i18n import text

MESSAGE_LIMIT = 2000
"""Characters a message's content may hold."""


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


def reminder_message(item: ToSend, locale: object = None) -> tuple[str, discord.ui.View | None]:
    """The DM's content and buttons (None: text only)."""
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
    update: GameUpdate, said: str, locale: object = None
) -> tuple[str, discord.ui.View | None]:
    """``said`` above the game's board, its squares playable from the DM where the
    game's message draws them as a legacy message's buttons."""
    content, view = render_game.game_message(update, locale)
    if content is None or not isinstance(view, Drawn):  # a layout: the text grid alone
        return f"{said}\n{render_game.grid(update.game, update.marks)}", None
    rows = [row for row in (_reminder_row(row) for row in view.rows) if row["components"]]
    return f"{said}\n{content}", Drawn(rows) if rows else None


def _reminder_row(row: dict[str, Any]) -> dict[str, Any]:
    """A row of the board's buttons with its squares as reminder cells (and without the
    actions: resigning, hints and the live board stay on the game's own message)."""
    kept = []
    for button in row["components"]:
        click = custom_ids.parse(str(button.get("custom_id", "")))
        if isinstance(click, CellClick):
            kept.append(button | {"custom_id": custom_ids.reminder_cell(*_cell(click))})
    return {"type": 1, "components": kept}


def _cell(click: CellClick) -> tuple[int, int, int]:
    return click.game_id, click.ply, click.cell
