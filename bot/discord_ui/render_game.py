"""What a game or a challenge looks like in Discord: each game's message as its variant's
renderer draws it (:mod:`bot.discord_ui.renderers`), a board posted again, the turn ping,
and a challenge's content text and buttons."""

from __future__ import annotations

import discord

from bot.core.models import Challenge, Game, GameUpdate
from bot.core.policy import Marks
from bot.core.variants import variant_of
from bot.discord_ui import custom_ids
from bot.discord_ui.render_common import (
    CLASSIC,
    Drawn,
    GameMessage,
    Unlistened,
    button,
    message_link,
    pace_line,
    relative_time,
)
from bot.discord_ui.renderers import renderer_of
from bot.i18n import text


def server_locale(client: discord.Client, target: Game | Challenge) -> object:
    """The server's language as stored with a game or challenge, for messages shown
    without an interaction: this process may not run the shard of its server, and then
    has no cached guild to ask."""
    guild = client.get_guild(target.guild_id) if target.guild_id else None
    return target.locale or (guild.preferred_locale if guild else None)


def grid(game: Game, marks: Marks = CLASSIC) -> str:
    """The board as emoji, as its message's text shows it."""
    return renderer_of(game.variant).grid(game, marks)


def game_message(update: GameUpdate, locale: object = None) -> GameMessage:
    """Content and buttons of a game message, as the game's variant draws them."""
    return renderer_of(update.game.variant).game_message(update, locale)


def retired_message(update: GameUpdate, live_link: str, locale: object = None) -> GameMessage:
    """A board that was posted again: as it was, every button off, and a line pointing to
    the live one (a layout's own text display, after the board's, for a 5×5 game)."""
    content, view = game_message(update, locale)
    for item in view.walk_children():
        if isinstance(item, discord.ui.Button):
            item.disabled = True
    if isinstance(view, Drawn):
        for row in view.rows:
            for component in row["components"]:
                component["disabled"] = True
    moved = text("repost.moved", locale, link=live_link)
    if isinstance(view, discord.ui.LayoutView):
        (container,) = view.children
        assert isinstance(container, discord.ui.Container)
        container.add_item(discord.ui.TextDisplay(moved))
        return GameMessage(None, view)
    return GameMessage(f"{content}\n{moved}", view)


def turn_ping(game: Game, member_id: int, locale: object = None) -> str:
    """The short message that mentions the member to move and links the board."""
    link = message_link(game.guild_id, game.channel_id, game.message_id)
    return text("ping.turn", locale, player=f"<@{member_id}>", link=link)


def challenge_content(challenge: Challenge, locale: object = None) -> str:
    challenger, opponent = f"<@{challenge.challenger_id}>", f"<@{challenge.opponent_id}>"
    # a variant's own words: its choice label has parentheses of its own, within these
    board = text(f"choice.size.{challenge.size}" if variant_of(challenge.variant).sized
                 else f"challenge.board.{challenge.variant}", locale)  # fmt: skip
    if challenge.opponent_id is None:  # open to anyone in the channel
        key = {"declined": "challenge.withdrawn", "expired": "challenge.open_expired"}.get(
            challenge.status, "challenge.open"
        )
        said = text(key, locale, challenger=challenger, board=board,
                    deadline=relative_time(challenge.expires_at))  # fmt: skip
        return _with_pace(said, challenge, locale)
    if challenge.status == "declined":
        return text("challenge.declined", locale, challenger=challenger, opponent=opponent)
    if challenge.status == "expired":
        return text("challenge.expired", locale, challenger=challenger, opponent=opponent)
    key = "challenge.rematch" if challenge.rematch_of else "challenge.content"
    said = text(key, locale, challenger=challenger, opponent=opponent,
                deadline=relative_time(challenge.expires_at))  # fmt: skip
    note = renderer_of(challenge.variant).challenge_note(locale)
    if note is not None:  # the opponent learns which game before accepting
        said += "\n" + note
    return _with_pace(said, challenge, locale)


def _with_pace(said: str, challenge: Challenge, locale: object = None) -> str:
    """A pending correspondence challenge says its pace (the answer may take days)."""
    pace = pace_line(challenge.days_per_move, locale) if challenge.pending else None
    return said if pace is None else f"{said}\n{pace}"


def challenge_view(challenge: Challenge, locale: object = None) -> discord.ui.View | None:
    """Accept and Decline while the challenge is pending (Withdraw, for the challenger of
    an open one); no buttons once it is closed."""
    if not challenge.pending:
        return None
    view = Unlistened()
    accept = text("button.accept", locale)
    decline = text("button.withdraw" if challenge.opponent_id is None else "button.decline",
                   locale)  # fmt: skip
    Style = discord.ButtonStyle
    view.add_item(button(custom_ids.accept(challenge.id), accept, Style.success))
    view.add_item(button(custom_ids.decline(challenge.id), decline, Style.danger))
    return view
