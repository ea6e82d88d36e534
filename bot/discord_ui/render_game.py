"""What a game or a challenge looks like in Discord: content text and button layout.

A legacy message holds five action rows, all of which a 5×5 board's squares fill; so a
5×5 game is a components-v2 message (IS_COMPONENTS_V2: a container holding the same text
as a text display and the same rows of buttons, with room for the action row). Smaller
boards stay legacy messages: their text stays the message content that every client,
notification and older library shows, and they already have a row free."""

from __future__ import annotations

from functools import cache
from types import ModuleType
from typing import Any, NamedTuple

import discord

from bot.core.models import Challenge, Game, GameUpdate
from bot.core.policy import Marks
from bot.core.review import reviewable
from bot.discord_ui import custom_ids
from bot.i18n import text
from engine import Board, UltimateBoard

CLASSIC = Marks()


class Unlistened(discord.ui.View):
    """Buttons to send that discord.py never listens to: every click is routed from its
    custom_id by :class:`~bot.discord_ui.router.ComponentRouter`, so a click works the
    same after a restart and no view object is kept per message."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    def is_finished(self) -> bool:
        return True


class UnlistenedLayout(discord.ui.LayoutView):
    """A components-v2 layout that discord.py never listens to, like :class:`Unlistened`
    (sending it sets the message's IS_COMPONENTS_V2 flag)."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    def is_finished(self) -> bool:
        return True


class Drawn(Unlistened):
    """Rows of buttons handed over as the payload Discord takes. A board's squares change
    on every click and nobody listens to them, so building a ``discord.ui.Button`` for
    each only for discord.py to encode it again cost ~20 µs a square on every click."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        super().__init__()
        self.rows = rows

    def to_components(self) -> list[dict[str, Any]]:
        return self.rows


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
    if isinstance(board, UltimateBoard):
        return render_ultimate().grid(game, render_ultimate().text_marks(marks))
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
        player, mark = player_name(game, mover, locale), marks.of(mover)
        if game.turn_deadline is None:  # an untimed turn: no ", <deadline>" to write
            return text("game.turn.untimed", locale, player=player, mark=mark)
        deadline = relative_time(game.turn_deadline)
        return text("game.turn", locale, player=player, mark=mark, deadline=deadline)
    outcome = game.ending
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


def render_ultimate() -> ModuleType:
    """The ultimate board's renderer, which builds on this module (imported when first
    used, so neither module needs the other to be loaded first)."""
    from bot.discord_ui import render_ultimate as module

    return module


class GameMessage(NamedTuple):
    """What a game message is sent or edited with: ``content`` is None for a layout,
    which an edit then sends as null, clearing a challenge's text (Discord refuses to
    set IS_COMPONENTS_V2 on a message that keeps content)."""

    content: str | None
    view: discord.ui.View | discord.ui.LayoutView


def uses_layout(game: Game) -> bool:
    """Whether the game's message is a components-v2 layout: when its squares fill every
    action row a legacy message may have."""
    return game.board.size >= MAX_ROWS


def game_message(update: GameUpdate, locale: object = None) -> GameMessage:
    """Content and buttons of a game message."""
    game, marks = update.game, update.marks
    if isinstance(game.board, UltimateBoard):
        return render_ultimate().game_message(update, locale)
    content = game_content(game, locale, marks)
    if uses_layout(game):
        layout = game_layout(game, content, locale, marks, hints=update.hints,
                             live=update.live_board)  # fmt: skip
        return GameMessage(None, layout)
    return GameMessage(content, game_view(game, locale, marks, hints=update.hints,
                                          live=update.live_board))  # fmt: skip


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
    return discord.ui.Button(custom_id=custom_ids.cell(game.id, game.ply, cell), style=style,
                             emoji=mark, label=None if mark else EMPTY_LABEL,
                             disabled=disabled, row=row)  # fmt: skip


def cell_payload(game: Game, cell: int, marks: Marks = CLASSIC) -> dict[str, Any]:
    """One square (see :func:`square_look`) as the payload :func:`cell_button`'s item
    encodes to, built directly."""
    style, mark, disabled = square_look(game, cell, marks)
    payload: dict[str, Any] = {"type": 2, "style": style.value, "disabled": disabled,
                               "custom_id": custom_ids.cell(game.id, game.ply, cell)}  # fmt: skip
    if mark:
        payload["emoji"] = dict(_emoji(mark))
    else:
        payload["label"] = EMPTY_LABEL
    return payload


def square_look(
    game: Game, cell: int, marks: Marks
) -> tuple[discord.ButtonStyle, str | None, bool]:
    """A square's style, mark and whether it is disabled: a taken one shows its mark and
    is disabled; while the bot thinks, and at the end, every square is disabled, and at
    the end the winning line is green."""
    board = game.board
    won = game.ending is not None and game.ending.reason == "line"
    mark = board[cell]
    green = won and isinstance(board, Board) and cell in (board.winning_line() or ())
    style = discord.ButtonStyle.success if green else discord.ButtonStyle.secondary
    return style, marks.of(mark) if mark else None, mark is not None or not open_to_moves(game)


def open_to_moves(game: Game) -> bool:
    """Whether a member may move on the board shown: it runs and the bot is not to move
    (the member's move shown while the bot thinks: no square to click until it replies)."""
    return game.running and game.bot_side != game.board.to_move


@cache
def _emoji(mark: str) -> dict[str, Any]:
    """A mark's emoji as discord.py encodes it (a server's custom emoji too)."""
    return discord.PartialEmoji.from_str(mark).to_dict()  # type: ignore[return-value]


class Action(NamedTuple):
    """A labelled button that acts on a game: as a discord.py item (:meth:`item`), or as
    the payload that item encodes to (:meth:`payload`), built directly for a drawn board."""

    custom_id: str
    label: str
    style: discord.ButtonStyle

    def item(self) -> discord.ui.Button[Any]:
        return button(self.custom_id, self.label, self.style)

    def payload(self) -> dict[str, Any]:
        return {"type": 2, "style": self.style.value, "disabled": False, "label": self.label,
                "custom_id": self.custom_id}  # fmt: skip


def actions(
    game: Game, locale: object = None, *, hints: bool = False, live: bool = False
) -> list[Action]:
    """The buttons that act on the game, in the order shown, for either layout: Resign
    while it runs (and Hint against the bot, where the server allows hints), Rematch
    (unless a moderator ended it) and Review after; and Live board where the Activity is
    served (``live``)."""
    Style = discord.ButtonStyle
    opens = (
        [Action(custom_ids.live(game.id), text("button.live", locale), Style.secondary)]
        if live else []
    )  # fmt: skip
    if game.running:
        resign = Action(custom_ids.resign(game.id), text("button.resign", locale), Style.danger)
        if not (hints and game.bot_side is not None):
            return [resign, *opens]
        label = text("button.hint", locale)
        return [resign, Action(custom_ids.hint(game.id, game.ply), label, Style.secondary),
                *opens]  # fmt: skip
    found = []
    if game.stopped_by is None:  # a game a moderator ended is not offered again
        label = text("button.rematch", locale)
        found.append(Action(custom_ids.rematch(game.id), label, Style.primary))
    if reviewable(game):
        found.append(
            Action(custom_ids.review(game.id), text("button.review", locale), Style.secondary)
        )
    return [*found, *opens]


def action_buttons(
    game: Game, locale: object = None, *, hints: bool = False, live: bool = False
) -> list[discord.ui.Button[Any]]:
    """:func:`actions` as discord.py items, for a layout."""
    return [action.item() for action in actions(game, locale, hints=hints, live=live)]


def button(custom_id: str, label: str, style: discord.ButtonStyle) -> discord.ui.Button[Any]:
    """A labelled button whose click the router answers (game, challenge, tournament)."""
    return discord.ui.Button(custom_id=custom_id, label=label, style=style)


def challenge_content(challenge: Challenge, locale: object = None) -> str:
    challenger, opponent = f"<@{challenge.challenger_id}>", f"<@{challenge.opponent_id}>"
    # a variant's own words: its choice label has parentheses of its own, within these
    board = text(f"challenge.board.{challenge.variant}" if challenge.variant != "classic"
                 else f"choice.size.{challenge.size}", locale)  # fmt: skip
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
    said = text(key, locale, challenger=challenger, opponent=opponent,
                deadline=relative_time(challenge.expires_at))  # fmt: skip
    if challenge.variant == "ultimate":  # the opponent learns which game before accepting
        said += "\n" + text("challenge.ultimate", locale)
    return said


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
