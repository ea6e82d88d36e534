"""What a "your move" reminder DM looks like: who it is against, the deadline as
``<t:…:R>``, a jump link to the game's message, and the board as the game's own message
draws it (:mod:`bot.discord_ui.render_game`), its squares turned into reminder cells
(``ttt:rc``) that play the move from the DM. A digest lists the games waiting, one line
each, then the challenges waiting for an answer. A correspondence challenge's DM says
who challenges, the board, the pace, when it lapses and where, with Accept and Decline
(``ttt:ra``, ``ttt:rd``). Boards drawn as a components-v2 layout (5×5) and boards
without squares to click (ultimate's choice of small boards) come as text with the link,
without buttons."""

from __future__ import annotations

from typing import Any

import discord

from bot.core.models import Challenge, Game, GameUpdate
from bot.core.reminders.service import ToSend
from bot.discord_ui import custom_ids, render_game
from bot.discord_ui.custom_ids import CellClick
from bot.discord_ui.render_common import Drawn, Unlistened, button, message_link, relative_time
from bot.discord_ui.render_games_list import board_name, pace_name
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
    """The language of a reminder: its game's (or challenge's) server's, as stored with it
    (a DM has no server, and the member's own language is known only in an interaction)."""
    locales = [u.game.locale for u in item.games] + [c.locale for c in item.challenges]
    return next((locale for locale in locales if locale), None)


def reminder_message(item: ToSend, locale: object = None) -> tuple[str, discord.ui.View | None]:
    """The DM's content and buttons (None: text only)."""
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
    for square in row["components"]:
        click = custom_ids.parse(str(square.get("custom_id", "")))
        if isinstance(click, CellClick):
            kept.append(square | {"custom_id": custom_ids.reminder_cell(*_cell(click))})
    return {"type": 1, "components": kept}


def _cell(click: CellClick) -> tuple[int, int, int]:
    return click.game_id, click.ply, click.cell
