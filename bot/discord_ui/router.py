"""Every button click, routed from its custom_id to the controller that answers it.

discord.py listens to no view of ours (see ``render_common.Unlistened``): the custom_id
carries all a click needs, so routing here works the same for a message sent a second
ago or before a restart, and a click that is not ours, or whose button is no longer on
the message, still gets a private answer instead of 'This interaction failed'.
"""

from __future__ import annotations

from collections.abc import Iterable

import discord

from bot.core.refusals import Refusal
from bot.discord_ui import custom_ids
from bot.discord_ui.board_choice import BoardChoiceController
from bot.discord_ui.courtesy_controller import CourtesyController
from bot.discord_ui.custom_ids import (
    AcceptClick,
    BoardClick,
    CellClick,
    CourtesyClick,
    DeclineClick,
    ForgetClick,
    GamesPageClick,
    HintClick,
    JoinClick,
    LeaveClick,
    LiveClick,
    NotifyClick,
    OptionsClick,
    PrivateBoardClick,
    PuzzleBoardClick,
    PuzzleCellClick,
    PuzzleClick,
    ReadyClick,
    RematchClick,
    ReminderAcceptClick,
    ReminderBoardClick,
    ReminderCellClick,
    ReminderDeclineClick,
    ResignClick,
    RetryClick,
    ReviewClick,
    ShareClick,
)
from bot.discord_ui.game_controller import GameController
from bot.discord_ui.games_list_controller import GamesListController
from bot.discord_ui.notify_controller import NotifyController
from bot.discord_ui.puzzle_controller import PuzzleController
from bot.discord_ui.records_controller import RecordsController
from bot.discord_ui.reminder_clicks import ReminderClicks
from bot.discord_ui.responder import Responder
from bot.discord_ui.tournament_controller import TournamentController
from bot.discord_ui.update_answer import on_private_message


class ComponentRouter:
    def __init__(
        self, games: GameController, records: RecordsController, responder: Responder,
        tournaments: TournamentController, choices: BoardChoiceController,
        puzzles: PuzzleController, lists: GamesListController,
        courtesy: CourtesyController, notify: NotifyController, reminders: ReminderClicks,
    ) -> None:  # fmt: skip
        self.games = games
        self.lists = lists
        self.courtesy = courtesy
        self.notify = notify
        self.reminders = reminders
        self.puzzles = puzzles
        self.choices = choices
        self.records = records
        self.responder = responder
        self.tournaments = tournaments

    async def route(self, interaction: discord.Interaction) -> None:
        if interaction.type is not discord.InteractionType.component:
            return
        data: dict[str, object] = dict(interaction.data or {})
        raw = data.get("custom_id")
        click = custom_ids.parse(raw) if isinstance(raw, str) else None
        shown = click is not None and _still_shown(interaction, str(raw))
        if isinstance(click, CellClick) and not shown:
            await self.choices.on_unshown_cell(interaction, click)  # its own refusal
            return
        if isinstance(click, BoardClick) and not shown:
            await self.choices.on_unshown_board(interaction, click)  # its own refusal too
            return
        if isinstance(click, PuzzleClick) and _private(interaction):
            # Shown or not, the service answers: a click that has left its message (a
            # double click, an old message) is shown the attempt as it stands; one that
            # never was on it (another member's attempt, a forged square) is refused
            # privately. A public message never holds a puzzle's buttons: one forged onto
            # it (even one without buttons, which passes as shown) is refused below.
            await self._puzzle(interaction, click)
            return
        if click is None or not shown or isinstance(click, PuzzleClick):
            # Not a button of this version (an older message, a forged id), one that has
            # left the message since the member's client drew it, or a puzzle's on a
            # public message.
            async with self.responder.answering(interaction):
                raise Refusal("move.stale")
            return
        if on_private_message(interaction) and await self._from_list(interaction, click):
            return
        match click:
            case CellClick():
                await self.games.on_cell(interaction, click)
            case ResignClick(game_id):
                await self.games.on_resign_button(interaction, game_id)
            case RematchClick(game_id):
                await self.games.on_rematch(interaction, game_id)
            case AcceptClick():
                await self.games.on_accept(interaction, click)
            case DeclineClick():
                await self.games.on_decline(interaction, click)
            case HintClick():
                await self.games.on_hint(interaction, click)
            case ReviewClick(game_id):
                await self.records.on_review(interaction, game_id=game_id)
            case ForgetClick():
                await self.records.on_forget_answer(interaction, click)
            case JoinClick():
                await self.tournaments.on_join(interaction, click)
            case LeaveClick():
                await self.tournaments.on_leave(interaction, click)
            case ReadyClick():
                await self.tournaments.on_ready(interaction, click)
            case LiveClick():
                await self.games.on_live(interaction)
            case BoardClick():
                await self.choices.on_board(interaction, click)
            case ReminderCellClick():
                await self.reminders.on_cell(interaction, click)
            case ReminderAcceptClick():
                await self.reminders.on_accept(interaction, click)
            case ReminderDeclineClick():
                await self.reminders.on_decline(interaction, click)
            case ReminderBoardClick():
                await self.reminders.on_board(interaction, click)
            case NotifyClick():
                await self.notify.on_offer_answer(interaction, click)
            case OptionsClick(game_id):
                await self.courtesy.on_options(interaction, game_id)
            case CourtesyClick():
                await self.courtesy.on_courtesy(interaction, click)
            case GamesPageClick() | PrivateBoardClick():  # forged onto a public message
                async with self.responder.answering(interaction):
                    raise Refusal("move.stale")

    async def _from_list(self, interaction: discord.Interaction, click: object) -> bool:
        """A click on a private message of ``/ttt games``: its list's buttons, and a
        board's that only its own message can answer (a rematch or the live board would
        open where the list was asked, not where the game is); False for the others,
        which any board's handler answers."""
        match click:
            case GamesPageClick():
                await self.lists.on_page(interaction, click)
            case PrivateBoardClick():
                await self.lists.on_board(interaction, click)
            case AcceptClick():
                await self.lists.on_accept(interaction, click)
            case DeclineClick():
                await self.lists.on_decline(interaction, click)
            case RematchClick() | LiveClick():
                async with self.responder.answering(interaction):
                    raise Refusal("games.private_only")
            case _:
                return False
        return True

    async def _puzzle(self, interaction: discord.Interaction, click: PuzzleClick) -> None:
        match click:
            case PuzzleCellClick():
                await self.puzzles.on_cell(interaction, click)
            case PuzzleBoardClick():
                await self.puzzles.on_board(interaction, click)
            case RetryClick():
                await self.puzzles.on_retry(interaction, click)
            case ShareClick():
                await self.puzzles.on_share(interaction, click)


def _private(interaction: discord.Interaction) -> bool:
    """Whether the clicked message is ephemeral, as every puzzle's message is."""
    message = interaction.message
    return message is not None and message.flags.ephemeral


def _still_shown(interaction: discord.Interaction, custom_id: str) -> bool:
    """Whether the button is on the message as Discord has it now (ephemeral messages,
    which Discord may send without components, get the benefit of the doubt)."""
    message = interaction.message
    if message is None or not message.components:
        return True
    return _holds(message.components, custom_id)


def _holds(components: Iterable[object], custom_id: str) -> bool:
    """Whether a message's component tree has a button with ``custom_id``: in legacy
    action rows, or in a components-v2 message's containers, rows and section accessories.
    A plain walk that stops at the first match: every click asks it."""
    for component in components:
        if getattr(component, "custom_id", None) == custom_id:
            return True
        children = getattr(component, "children", None)
        if children and _holds(children, custom_id):
            return True
        accessory = getattr(component, "accessory", None)
        if accessory is not None and _holds((accessory,), custom_id):
            return True
    return False
