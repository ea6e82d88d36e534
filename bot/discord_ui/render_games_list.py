"""``/ttt games`` in Discord: a member's list as one private embed a page, and the buttons
a link cannot stand for (a game's board shown privately, a challenge's Accept and
Decline), numbered as the lines they act on.

A page holds :data:`PAGE` entries: its text stays within an embed's 4,096 characters
(an entry takes at most about 330: a server's name is cut at :data:`NAME_CHARS`), and
its buttons within a message's 25 (two a challenge at most, and Previous and Next).
Another server's name and channel are shown here, to the member alone: the list is
ephemeral and never posted.
"""

from __future__ import annotations

from collections.abc import Callable
from math import ceil
from typing import NamedTuple

import discord

from bot.core.models import Challenge, Game, Variant
from bot.core.my_games import Listed
from bot.core.variants import variant_of
from bot.discord_ui import custom_ids
from bot.discord_ui.render_common import (
    Unlistened,
    button,
    message_link,
    player_name,
    relative_time,
)
from bot.i18n import text

PAGE = 10
NAME_CHARS = 40
GuildName = Callable[[int], str | None]
"""A server's name, where this process knows it (its cache); None elsewhere."""
_HEADERS = {"you": "games.you", "opponent": "games.opponent", "to_you": "games.challenges",
            "from_you": "games.challenges"}  # fmt: skip


class ListMessage(NamedTuple):
    content: str | None
    embed: discord.Embed | None
    view: discord.ui.View | None


def pages(entries: list[Listed]) -> int:
    return max(1, ceil(len(entries) / PAGE))


def board_name(variant: Variant, size: int, locale: object = None) -> str:
    """What is played, as the start command's choices name it."""
    sized = variant_of(variant).sized
    return text(f"choice.size.{size}" if sized else f"challenge.board.{variant}", locale)


def pace_name(days_per_move: int | None, locale: object = None) -> str:
    return text("games.live" if days_per_move is None else f"choice.pace.{days_per_move}", locale)


def needs_board(entry: Listed) -> bool:
    """Whether the entry gets a button showing its board privately: a game only a
    member's own install reaches (a DM or group DM between members, a server without
    ttt), whose message the bot can edit only within 15 minutes of a click on it, so a
    link would show a board days behind."""
    return entry.game is not None and entry.game.guest


def place(item: Game | Challenge, locale: object, guild_name: GuildName) -> str:
    """Where the entry is played, as the member (and only they) reads it."""
    if item.guild_id is None:
        return text("games.place.private" if item.guest else "games.place.dm", locale)
    channel = f"<#{item.channel_id}>"
    name = None if item.guest else guild_name(item.guild_id)
    if not name:
        return channel
    short = name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…"
    return text("games.place.server", locale, server=discord.utils.escape_markdown(short),
                channel=channel)  # fmt: skip


def entry_lines(number: int, entry: Listed, locale: object, guild_name: GuildName) -> str:
    item = entry.item
    board = board_name(item.variant, item.size, locale)
    pace = pace_name(item.days_per_move, locale)
    deadline = entry.deadline
    if isinstance(item, Game):
        opponent = (player_name(item, item.bot_side, locale) if item.bot_side is not None
                    else f"<@{entry.opponent_id}>")  # fmt: skip
        due = (text("games.due", locale, deadline=relative_time(deadline))
               if deadline is not None else text("games.untimed", locale))  # fmt: skip
        first = text("games.line.game", locale, number=number, board=board, opponent=opponent,
                     pace=pace, deadline=due)  # fmt: skip
    else:
        key = {"to_you": "games.line.to_you", "from_you": "games.line.from_you"}[entry.waiting]
        if entry.opponent_id is None:
            key = "games.line.open"
        first = text(key, locale, number=number, board=board, pace=pace,
                     opponent=f"<@{entry.opponent_id}>",
                     deadline=relative_time(item.expires_at))  # fmt: skip
    second = [place(item, locale, guild_name)]
    if item.message_id is not None:
        second.append(message_link(item.guild_id, item.channel_id, item.message_id))
    if needs_board(entry):
        second.append(text("games.board_below", locale, number=number))
    return f"{first}\n-# {' · '.join(second)}"


def games_list(
    entries: list[Listed], user_id: int, page: int, locale: object, guild_name: GuildName,
    note: str | None = None,
) -> ListMessage:  # fmt: skip
    """Page ``page`` (from 0; past the last, the last) of the member's list; ``note`` is
    said above it (what a click on the list just did)."""
    if not entries:
        none = text("games.none", locale)
        return ListMessage(none if note is None else f"{note}\n{none}", None, None)
    count = pages(entries)
    page = min(max(page, 0), count - 1)
    first = page * PAGE
    lines: list[str] = []
    view = Unlistened()
    header = None
    for number, entry in enumerate(entries[first : first + PAGE], start=first + 1):
        if _HEADERS[entry.waiting] != header:
            header = _HEADERS[entry.waiting]
            lines.append(("\n" if lines else "") + text(header, locale))
        lines.append(entry_lines(number, entry, locale, guild_name))
        _add_buttons(view, number, entry, locale)
    embed = discord.Embed(title=text("games.title", locale), description="\n".join(lines))
    embed.set_footer(text=text("games.page", locale, page=page + 1, pages=count))
    if count > 1:
        Style = discord.ButtonStyle
        back = button(custom_ids.games_page(user_id, max(page - 1, 0)),
                      text("button.games.previous", locale), Style.secondary)  # fmt: skip
        more = button(custom_ids.games_page(user_id, min(page + 1, count - 1)),
                      text("button.games.next", locale), Style.secondary)  # fmt: skip
        back.disabled, more.disabled = page == 0, page == count - 1
        view.add_item(back)
        view.add_item(more)
    return ListMessage(note, embed, view if view.children else None)


def _add_buttons(view: discord.ui.View, number: int, entry: Listed, locale: object) -> None:
    Style = discord.ButtonStyle
    if needs_board(entry) and entry.game is not None:
        label = text("button.games.board", locale, number=number)
        view.add_item(button(custom_ids.private_board(entry.game.id), label, Style.primary))
    challenge = entry.challenge
    if challenge is not None and entry.waiting == "to_you":
        view.add_item(button(custom_ids.accept(challenge.id),
                             text("button.games.accept", locale, number=number),
                             Style.success))  # fmt: skip
        view.add_item(button(custom_ids.decline(challenge.id),
                             text("button.games.decline", locale, number=number),
                             Style.danger))  # fmt: skip
