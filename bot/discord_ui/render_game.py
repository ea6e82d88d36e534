"""What a game or a challenge looks like in Discord: content text and button layout."""

from __future__ import annotations

from typing import NamedTuple

import discord

from bot.core.models import Challenge, Game, GameUpdate
from bot.core.policy import Marks
from bot.core.review import reviewable
from bot.discord_ui import custom_ids
from bot.i18n import text

CLASSIC = Marks()


class Unlistened(discord.ui.View):
    """Buttons to send that discord.py never listens to: every click is routed from its
    custom_id by :class:`~bot.discord_ui.router.ComponentRouter`, so a click works the
    same after a restart and no view object is kept per message."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    def is_finished(self) -> bool:
        return True


EMPTY_LABEL = "\u200b"  # a button needs a label or an emoji; empty squares show neither
MAX_ROWS = 5  # Discord's limit of action rows per message


def message_link(guild_id: int | None, channel_id: int, message_id: int | None) -> str:
    if message_id is None:
        return f"<#{channel_id}>"
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}/{message_id}"


def relative_time(timestamp: float) -> str:
    """Discord renders ``<t:…:R>`` in each reader's own clock and language ("in 5 minutes")."""
    return f"<t:{int(timestamp)}:R>"


def server_locale(client: discord.Client, target: Game | Challenge) -> object:
    """The server's language as stored with a game or challenge, for messages shown
    without an interaction: this process may not run the shard of its server, and then
    has no cached guild to ask."""
    guild = client.get_guild(target.guild_id) if target.guild_id else None
    return target.locale or (guild.preferred_locale if guild else None)


def player_name(game: Game, mark: str, locale: object = None) -> str:
    if game.bot_side == mark:
        level = text(f"choice.difficulty.{game.difficulty}", locale)
        return text("bot.name", locale, difficulty=level)
    return f"<@{game.player(mark)}>"


def grid(game: Game, marks: Marks = CLASSIC) -> str:
    board = game.board
    rows = []
    for row in range(board.size):
        cells = range(row * board.size, (row + 1) * board.size)
        rows.append("".join(marks.of(board[c]) for c in cells))
    return "\n".join(rows)


def status_line(game: Game, locale: object = None, marks: Marks = CLASSIC) -> str:
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
            mark=marks.of(mover),
            deadline=deadline,
        )
    outcome = game.outcome
    assert outcome is not None  # not running
    if outcome.reason == "abandoned":
        return text("game.abandoned", locale)
    if outcome.reason == "stopped":
        return text("game.stopped", locale, moderator=f"<@{game.stopped_by}>")
    if outcome.winner is None:
        return text("game.draw", locale)
    winner = outcome.winner
    loser = "O" if winner == "X" else "X"
    ending = {"resign": "game.resigned", "timeout": "game.timeout"}.get(outcome.reason)
    if ending is not None:
        return text(
            ending,
            locale,
            loser=player_name(game, loser, locale),
            winner=player_name(game, winner, locale),
        )
    key = "game.won" if game.k == 3 else "game.won_k"
    return text(
        key, locale, player=player_name(game, winner, locale), mark=marks.of(winner), k=game.k
    )


class GameMessage(NamedTuple):
    content: str
    view: discord.ui.View


def game_message(update: GameUpdate, locale: object = None) -> GameMessage:
    """Content and buttons of a game message."""
    return GameMessage(
        game_content(update.game, locale, update.marks),
        game_view(update.game, locale, update.marks, hints=update.hints),
    )


def retired_message(update: GameUpdate, live_link: str, locale: object = None) -> GameMessage:
    """A board that was posted again: as it was, every button off, and a line pointing to
    the live one."""
    content, view = game_message(update, locale)
    for item in view.walk_children():
        if isinstance(item, discord.ui.Button):
            item.disabled = True
    return GameMessage(f"{content}\n{text('repost.moved', locale, link=live_link)}", view)


def turn_ping(game: Game, member_id: int, locale: object = None) -> str:
    """The short message that mentions the member to move and links the board."""
    link = message_link(game.guild_id, game.channel_id, game.message_id)
    return text("ping.turn", locale, player=f"<@{member_id}>", link=link)


def game_content(game: Game, locale: object = None, marks: Marks = CLASSIC) -> str:
    header = text("game.vs", locale, x=player_name(game, "X", locale), mark_x=marks.x,
                  o=player_name(game, "O", locale), mark_o=marks.o)  # fmt: skip
    content = f"{header}\n{grid(game, marks)}\n{status_line(game, locale, marks)}"
    return f"{content}\n{text('game.hinted', locale)}" if game.hinted else content


def game_view(
    game: Game, locale: object = None, marks: Marks = CLASSIC, *, hints: bool = False
) -> discord.ui.View:
    """The board as buttons, row-major: taken squares show their mark and are disabled; at
    the end every square is disabled and the winning line is green. A Resign button while
    the game runs (and Hint against the bot, where the server allows hints), Rematch
    (unless a moderator ended it) and Review buttons after, when a row is free for them."""
    board = game.board
    won = game.outcome is not None and game.outcome.reason == "line"
    winning = set(board.winning_line() or ()) if won else set()
    view = Unlistened()
    for cell in range(board.size * board.size):
        mark = board[cell]
        view.add_item(
            discord.ui.Button(
                custom_id=custom_ids.cell(game.id, game.ply, cell),
                style=discord.ButtonStyle.success if cell in winning
                else discord.ButtonStyle.secondary,
                emoji=marks.of(mark) if mark else None,
                label=None if mark else EMPTY_LABEL,
                disabled=mark is not None or not game.running,
                row=cell // board.size,
            )
        )  # fmt: skip
    if board.size < MAX_ROWS:
        Style, row = discord.ButtonStyle, board.size
        if game.running:
            label = text("button.resign", locale)
            view.add_item(_action(custom_ids.resign(game.id), label, Style.danger, row))
            if hints and game.bot_side is not None:
                label = text("button.hint", locale)
                view.add_item(
                    _action(custom_ids.hint(game.id, game.ply), label, Style.secondary, row)
                )
        else:
            if game.stopped_by is None:  # a game a moderator ended is not offered again
                label = text("button.rematch", locale)
                view.add_item(_action(custom_ids.rematch(game.id), label, Style.primary, row))
            if reviewable(game):
                label = text("button.review", locale)
                view.add_item(_action(custom_ids.review(game.id), label, Style.secondary, row))
    return view


def _action(
    custom_id: str, label: str, style: discord.ButtonStyle, row: int | None = None
) -> discord.ui.Button[discord.ui.View]:
    """One of the buttons that act on a game or challenge."""
    return discord.ui.Button(custom_id=custom_id, label=label, style=style, row=row)


def challenge_content(challenge: Challenge, locale: object = None) -> str:
    challenger, opponent = f"<@{challenge.challenger_id}>", f"<@{challenge.opponent_id}>"
    board = text(f"choice.size.{challenge.size}", locale)
    if challenge.opponent_id is None:  # open to anyone in the channel
        key = {"declined": "challenge.withdrawn", "expired": "challenge.open_expired"}.get(
            challenge.status, "challenge.open"
        )
        return text(key, locale, challenger=challenger, board=board,
                    deadline=relative_time(challenge.expires_at))  # fmt: skip
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
    """Accept and Decline while the challenge is pending (Withdraw, for the challenger of
    an open one); no buttons once it is closed."""
    if not challenge.pending:
        return None
    view = Unlistened()
    accept = text("button.accept", locale)
    decline = text("button.withdraw" if challenge.opponent_id is None else "button.decline",
                   locale)  # fmt: skip
    Style = discord.ButtonStyle
    view.add_item(_action(custom_ids.accept(challenge.id), accept, Style.success))
    view.add_item(_action(custom_ids.decline(challenge.id), decline, Style.danger))
    return view
