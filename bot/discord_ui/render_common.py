"""What every board's message in Discord is made of, whichever game it shows: buttons that
discord.py never listens to, the players' names, the status line, the action buttons.
The variants' renderers (:mod:`~bot.discord_ui.render_classic`,
:mod:`~bot.discord_ui.render_ultimate`) build on this module, and neither on the other."""

from __future__ import annotations

from functools import cache
from typing import Any, NamedTuple

import discord

from bot.core.courtesy import agreed_draw, standing_offer, time_given
from bot.core.models import Challenge, Game, other
from bot.core.policy import Marks
from bot.core.review import reviewable
from bot.core.rules import lapsed_unplayed
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


def message_link(guild_id: int | None, channel_id: int, message_id: int | None) -> str:
    if message_id is None:
        return f"<#{channel_id}>"
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}/{message_id}"


def relative_time(timestamp: float) -> str:
    """Discord renders ``<t:…:R>`` in each reader's own clock and language ("in 5 minutes")."""
    return f"<t:{int(timestamp)}:R>"


def player_name(game: Game, mark: str, locale: object = None) -> str:
    if game.bot_side == mark:
        level = text(f"choice.difficulty.{game.difficulty}", locale)
        return text("bot.name", locale, difficulty=level)
    return f"<@{game.player(mark)}>"


def pace_line(days_per_move: int | None, locale: object = None) -> str | None:
    """What a correspondence game's (or challenge's) message says of its pace; None live."""
    if days_per_move is None:
        return None
    return text("game.pace", locale, pace=text(f"choice.pace.{days_per_move}", locale))


def status_line(game: Game, locale: object = None, marks: Marks = CLASSIC) -> str:
    """Whose move and until when (``<t:…:R>``), or how it ended; a correspondence game's
    pace on a line of its own, and what its players did for courtesy (more time given,
    a draw offered) while it runs."""
    lines = [_status_line(game, locale, marks), pace_line(game.days_per_move, locale),
             *courtesy_lines(game, locale)]  # fmt: skip
    return "\n".join(line for line in lines if line)


def courtesy_lines(game: Game, locale: object = None) -> list[str]:
    """More time given in this move ("@A gave @B one more day"), a draw offer standing."""
    if not game.running or game.days_per_move is None:
        return []
    said = []
    if time_given(game):
        mover = game.board.to_move
        said.append(text("courtesy.time_note", locale, giver=player_name(game, other(mover)),
                         player=player_name(game, mover), days=game.days_per_move))  # fmt: skip
    offer = standing_offer(game)
    if offer is not None:
        said.append(text("courtesy.offer_note", locale, player=f"<@{offer}>"))
    return said


def _status_line(game: Game, locale: object, marks: Marks) -> str:
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
        return text("game.no_first_move" if lapsed_unplayed(game) else "game.abandoned", locale)
    if outcome.reason == "stopped":
        return text("game.stopped", locale, moderator=f"<@{game.stopped_by}>")
    if outcome.winner is None:
        if agreed_draw(game) and game.draw_offer_by is not None:
            offerer = game.draw_offer_by
            accepter = game.player_o if offerer == game.player_x else game.player_x
            return text("game.draw_agreed", locale, offerer=f"<@{offerer}>",
                        accepter=f"<@{accepter}>")  # fmt: skip
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
    """What a game message is sent or edited with: ``content`` is None for a layout,
    which an edit then sends as null, clearing a challenge's text (Discord refuses to
    set IS_COMPONENTS_V2 on a message that keeps content)."""

    content: str | None
    view: discord.ui.View | discord.ui.LayoutView


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
    while it runs (and Hint against the bot, where the server allows hints; Options in a
    correspondence game, always between members), Rematch
    (unless a moderator ended it) and Review after; and Live board where the Activity is
    served (``live``)."""
    Style = discord.ButtonStyle
    opens = (
        [Action(custom_ids.live(game.id), text("button.live", locale), Style.secondary)]
        if live else []
    )  # fmt: skip
    if game.running:
        resign = Action(custom_ids.resign(game.id), text("button.resign", locale), Style.danger)
        if game.days_per_move is not None:  # more time and a draw, asked for privately
            label = text("button.options", locale)
            return [resign, Action(custom_ids.options(game.id), label, Style.secondary), *opens]
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


def open_to_moves(game: Game) -> bool:
    """Whether a member may move on the board shown: it runs and the bot is not to move
    (the member's move shown while the bot thinks: no square to click until it replies)."""
    return game.running and game.bot_side != game.board.to_move


def square_item(
    custom_id: str, style: discord.ButtonStyle, mark: str | None, disabled: bool,
    row: int | None = None,
) -> discord.ui.Button[Any]:  # fmt: skip
    """A board's square as a discord.py item, for a layout: its mark as the emoji, or an
    empty label (a game's square or a puzzle's, on any board)."""
    return discord.ui.Button(custom_id=custom_id, style=style, emoji=mark,
                             label=None if mark else EMPTY_LABEL, disabled=disabled,
                             row=row)  # fmt: skip


def square_payload(
    custom_id: str, style: discord.ButtonStyle, mark: str | None, disabled: bool
) -> dict[str, Any]:
    """:func:`square_item` as the payload that item encodes to, built directly."""
    payload: dict[str, Any] = {"type": 2, "style": style.value, "disabled": disabled,
                               "custom_id": custom_id}  # fmt: skip
    if mark:
        payload["emoji"] = dict(_emoji(mark))
    else:
        payload["label"] = EMPTY_LABEL
    return payload


@cache
def _emoji(mark: str) -> dict[str, Any]:
    """A mark's emoji as discord.py encodes it (a server's custom emoji too)."""
    return discord.PartialEmoji.from_str(mark).to_dict()  # type: ignore[return-value]


def challenge_mentions(challenge: Challenge) -> discord.AllowedMentions:
    """A named challenge pings the member named; an open one pings nobody."""
    named = [discord.Object(challenge.opponent_id)] if challenge.opponent_id else []
    return discord.AllowedMentions(users=named, everyone=False, roles=False)
