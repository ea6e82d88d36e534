"""The values a custom_id parses into (:func:`bot.discord_ui.custom_ids.parse`): one
per kind of button, each what its handler needs. The grammar that writes and reads
them is :mod:`bot.discord_ui.custom_ids`, which names them too."""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.courtesy import CourtesyAction


@dataclass(frozen=True, slots=True)
class CellClick:
    game_id: int
    ply: int
    cell: int


@dataclass(frozen=True, slots=True)
class ReminderCellClick:
    """A cell on a reminder DM's board: the move is played as on the game's message."""

    game_id: int
    ply: int
    cell: int


@dataclass(frozen=True, slots=True)
class ReminderAcceptClick:
    """Accept on a challenge's reminder DM: answered as Accept from ``/ttt games``."""

    challenge_id: int


@dataclass(frozen=True, slots=True)
class ReminderDeclineClick:
    """Decline on a challenge's reminder DM."""

    challenge_id: int


@dataclass(frozen=True, slots=True)
class ReminderBoardClick:
    """Ultimate, a free move on a reminder DM: look into small board ``board`` there
    (None: back to the choice of boards), as :class:`BoardClick` on the game's message."""

    game_id: int
    ply: int
    board: int | None = None


@dataclass(frozen=True, slots=True)
class NotifyClick:
    """Every-move reminders turned on from the offer; ``user_id`` is whose offer it is."""

    user_id: int


@dataclass(frozen=True, slots=True)
class ResignClick:
    game_id: int


@dataclass(frozen=True, slots=True)
class RematchClick:
    game_id: int


@dataclass(frozen=True, slots=True)
class AcceptClick:
    challenge_id: int


@dataclass(frozen=True, slots=True)
class DeclineClick:
    challenge_id: int


@dataclass(frozen=True, slots=True)
class ReviewClick:
    game_id: int


@dataclass(frozen=True, slots=True)
class HintClick:
    game_id: int
    ply: int


@dataclass(frozen=True, slots=True)
class ForgetClick:
    user_id: int
    confirmed: bool


@dataclass(frozen=True, slots=True)
class JoinClick:
    tournament_id: int


@dataclass(frozen=True, slots=True)
class LeaveClick:
    tournament_id: int


@dataclass(frozen=True, slots=True)
class ReadyClick:
    match_id: int


@dataclass(frozen=True, slots=True)
class LiveClick:
    game_id: int


@dataclass(frozen=True, slots=True)
class BoardClick:
    """Ultimate, a free move: the member to move looks into small board ``board``
    (None: back to the choice of boards)."""

    game_id: int
    ply: int
    board: int | None = None


@dataclass(frozen=True, slots=True)
class PuzzleCellClick:
    """A square of a puzzle attempt's board, as it stood at ``ply`` moves."""

    attempt_id: int
    ply: int
    cell: int


@dataclass(frozen=True, slots=True)
class PuzzleBoardClick:
    """An ultimate puzzle's free move: look into small board ``board`` (None: back)."""

    attempt_id: int
    ply: int
    board: int | None = None


@dataclass(frozen=True, slots=True)
class RetryClick:
    attempt_id: int


@dataclass(frozen=True, slots=True)
class ShareClick:
    attempt_id: int


@dataclass(frozen=True, slots=True)
class GamesPageClick:
    """A page of a member's ``/ttt games`` list (its owner's id: only they may turn it)."""

    user_id: int
    page: int


@dataclass(frozen=True, slots=True)
class PrivateBoardClick:
    """Show one of the member's games privately, from their ``/ttt games`` list."""

    game_id: int


@dataclass(frozen=True, slots=True)
class OptionsClick:
    """A correspondence game's Options button: the player's private choices."""

    game_id: int


@dataclass(frozen=True, slots=True)
class CourtesyClick:
    """A courtesy choice: ``action`` is the core's (``time``, ``offer``, ``accept``)."""

    game_id: int
    ply: int
    action: CourtesyAction


PuzzleClick = PuzzleCellClick | PuzzleBoardClick | RetryClick | ShareClick
"""The clicks on a puzzle's message, each answered by the puzzle controller."""

Click = (
    CellClick
    | ResignClick
    | RematchClick
    | AcceptClick
    | DeclineClick
    | ReviewClick
    | HintClick
    | ForgetClick
    | JoinClick
    | LeaveClick
    | ReadyClick
    | LiveClick
    | BoardClick
    | PuzzleCellClick
    | PuzzleBoardClick
    | RetryClick
    | ShareClick
    | GamesPageClick
    | PrivateBoardClick
    | OptionsClick
    | CourtesyClick
    | ReminderCellClick
    | ReminderAcceptClick
    | ReminderDeclineClick
    | ReminderBoardClick
    | NotifyClick
)
