"""What a "your move" reminder DM looks like: who it is against, the deadline as
``<t:…:R>``, a jump link to the game's message, and the board as the game's own message
draws it (:mod:`bot.discord_ui.render_game`), its squares turned into reminder cells
(``ttt:rc``) that play the move from the DM. A digest lists the games waiting, one line
each, then the challenges waiting for an answer. A correspondence challenge's DM says
who challenges, the board, the pace, when it lapses and where, with Accept and Decline
(``ttt:ra``, ``ttt:rd``).

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

from bot.core.models import Challenge, Game, GameUpdate
from bot.core.reminders.service import ToSend
from bot.discord_ui import custom_ids, render_game
from bot.discord_ui.custom_ids import BoardClick, CellClick, Click
from bot.discord_ui.render_common import (
    Drawn,
    Unlistened,
    UnlistenedLayout,
    button,
    message_link,
    relative_time,
)
from bot.discord_ui.render_games_list import board_name, pace_name
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
    """The language of a reminder: the member's, as they chose reminders in; else (chosen
    before it was kept) its game's (or challenge's) server's, as stored with it (a DM has
    no locale of its own)."""
    locales = [u.game.locale for u in item.games] + [c.locale for c in item.challenges]
    return item.locale or next((locale for locale in locales if locale), None)


def reminder_message(item: ToSend, locale: object = None) -> Shown:
    """The DM's content and buttons (see :data:`Shown`)."""
    member, kind = item.reminder.member_id, item.reminder.kind
    if kind == "digest":
        return digest(item, locale), None
    if kind == "challenge":
        (challenge,) = item.challenges
        return challenge_message(challenge, locale)
    (update,) = item.games
    return reminder_board(update, headline(kind, update.game, member, locale), locale)


def challenge_link(challenge: Challenge) -> str:
    return message_link(challenge.guild_id, challenge.channel_id, challenge.message_id)


def challenge_message(challenge: Challenge, locale: object = None) -> tuple[str, discord.ui.View]:
    """A correspondence challenge's DM: who challenges, the board, the pace, when it
    lapses, a jump link, and Accept / Decline (answered as from ``/ttt games``)."""
    said = text("reminder.challenge", locale, challenger=f"<@{challenge.challenger_id}>",
                board=board_name(challenge.variant, challenge.size, locale),
                pace=pace_name(challenge.days_per_move, locale),
                deadline=relative_time(challenge.expires_at),
                link=challenge_link(challenge))  # fmt: skip
    view = Unlistened()
    Style = discord.ButtonStyle
    view.add_item(button(custom_ids.reminder_accept(challenge.id), text("button.accept", locale),
                         Style.success))  # fmt: skip
    view.add_item(button(custom_ids.reminder_decline(challenge.id),
                         text("button.decline", locale), Style.danger))  # fmt: skip
    return said, view


def digest(item: ToSend, locale: object = None) -> str:
    """The games waiting, soonest deadline first, then the challenges waiting for an
    answer, soonest to lapse first, one line each, as many as a message holds (a member
    may play many): the rest counted at the end."""
    member, games, challenges = item.reminder.member_id, item.games, item.challenges
    entries: list[tuple[str | None, str]] = []
    for shown, update in enumerate(games):
        game = update.game
        header = text("reminder.digest", locale, count=len(games)) if shown == 0 else None
        entries.append((header, text("reminder.digest_line", locale,
                                     opponent=opponent_of(game, member),
                                     deadline=relative_time(game.turn_deadline or 0.0),
                                     link=jump_link(game))))  # fmt: skip
    for shown, challenge in enumerate(challenges):
        header = (text("reminder.digest_challenges", locale, count=len(challenges))
                  if shown == 0 else None)  # fmt: skip
        entries.append((header, text("reminder.digest_challenge", locale,
                                     challenger=f"<@{challenge.challenger_id}>",
                                     pace=pace_name(challenge.days_per_move, locale),
                                     deadline=relative_time(challenge.expires_at),
                                     link=challenge_link(challenge))))  # fmt: skip
    lines: list[str] = []
    used = -1
    for shown, (header, line) in enumerate(entries):
        left = len(entries) - shown - 1
        said = line if header is None else f"{header}\n{line}"
        more = 1 + len(text("reminder.digest_more", locale, count=left)) if left else 0
        if used + 1 + len(said) + more > MESSAGE_LIMIT:
            lines.append(text("reminder.digest_more", locale, count=left + 1))
            break
        lines.append(said)
        used += 1 + len(said)
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
    for square in row["components"]:
        custom_id = _reminder_id(custom_ids.parse(str(square.get("custom_id", ""))))
        if custom_id is not None:
            kept.append(square | {"custom_id": custom_id})
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
