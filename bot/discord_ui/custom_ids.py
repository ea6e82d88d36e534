"""The one custom_id grammar. Buttons carry what a click needs to survive a restart.

    ttt:c:<game>:<ply>:<cell>   a board cell; <ply> is the number of moves on the board
                                the player saw, so a click on an older board is refused
    ttt:r:<game>                resign
    ttt:m:<game>                rematch
    ttt:a:<challenge>           accept a challenge
    ttt:d:<challenge>           decline a challenge
    ttt:v:<game>                review a finished game
    ttt:h:<game>:<ply>          a hint for the board the member saw (<ply> as for a cell)
    ttt:f:<user>:<yes|no>       confirm or cancel /ttt forget-me
    ttt:tj:<tournament>         join a tournament in sign-up
    ttt:tl:<tournament>         leave it
    ttt:tr:<match>              a player of a tournament match is ready to play
    ttt:l:<game>                open the game as a live board (the Activity)
    ttt:u:<game>:<ply>:<board>  ultimate, a free move: show small board <board>'s squares
                                (changes no game state; <ply> as for a cell)
    ttt:ub:<game>:<ply>         ultimate: back from a chosen board to the choice of boards
    ttt:p:<attempt>:<ply>:<cell>
                                a puzzle's square: the member plays <cell> on their
                                attempt as it stood at <ply> moves (an older <ply>, a
                                double click or an old message: shown again, not played)
    ttt:pu:<attempt>:<ply>:<board>
                                an ultimate puzzle's free move: show small board
                                <board>'s squares (changes no state, as ttt:u)
    ttt:pb:<attempt>:<ply>      an ultimate puzzle: back to the choice of boards
    ttt:pr:<attempt>            Retry a finished puzzle (a new, unrated attempt)
    ttt:ps:<attempt>            Share a finished puzzle's result line in the channel
    ttt:g:<user>:<page>         /ttt games: page <page> (from 0) of <user>'s list, read again
    ttt:gb:<game>               /ttt games: show the game's board privately, with its buttons
                                (where its own message cannot be reached or kept current)
    ttt:o:<game>                a correspondence game's Options: the player's private
                                choices (more time, a draw)
    ttt:k:<game>:<ply>:<t|o|a>  from those choices: give more time (t), offer a draw (o)
                                or accept one (a) in the game as it stood at <ply> moves
    ttt:rc:<game>:<ply>:<cell>  a board cell on a "your move" reminder in a DM: played as
                                ttt:c, and shown on the game's own message as well
    ttt:ra:<challenge>          accept a correspondence challenge from its reminder DM:
                                as ttt:a from /ttt games (the game starts on the
                                challenge's message), and the DM redrawn without buttons
    ttt:rd:<challenge>          decline it from the DM, likewise
    ttt:ru:<game>:<ply>:<board> ultimate, a free move on a reminder in a DM: show small
                                board <board>'s squares there (as ttt:u, on the DM)
    ttt:rb:<game>:<ply>         back from it to the choice of boards (as ttt:ub, on the DM)
    ttt:n:<user>                turn on every-move reminders (the first correspondence
                                game's private offer)

:func:`parse` turns a custom_id back into one of the click values of
:mod:`bot.discord_ui.clicks` (the router's input); the builders are the only way ids are
written, by the renderer and the tests alike. Ids are numbers, so every custom_id stays
far below Discord's 100 characters.
"""

from __future__ import annotations

import re
from typing import cast

from bot.core.courtesy import CourtesyAction
from bot.discord_ui.clicks import (
    AcceptClick,
    BoardClick,
    CellClick,
    Click,
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
from bot.discord_ui.clicks import (
    PuzzleClick as PuzzleClick,  # re-exported: the router names it from here
)

_ID = "[0-9]{1,19}"
_GRAMMAR: tuple[tuple[re.Pattern[str], type[Click]], ...] = (
    (re.compile(rf"ttt:c:({_ID}):([0-9]{{1,3}}):([0-9]{{1,3}})"), CellClick),
    (re.compile(rf"ttt:r:({_ID})"), ResignClick),
    (re.compile(rf"ttt:m:({_ID})"), RematchClick),
    (re.compile(rf"ttt:a:({_ID})"), AcceptClick),
    (re.compile(rf"ttt:d:({_ID})"), DeclineClick),
    (re.compile(rf"ttt:v:({_ID})"), ReviewClick),
    (re.compile(rf"ttt:h:({_ID}):([0-9]{{1,3}})"), HintClick),
    (re.compile(rf"ttt:tj:({_ID})"), JoinClick),
    (re.compile(rf"ttt:tl:({_ID})"), LeaveClick),
    (re.compile(rf"ttt:tr:({_ID})"), ReadyClick),
    (re.compile(rf"ttt:l:({_ID})"), LiveClick),
    (re.compile(rf"ttt:u:({_ID}):([0-9]{{1,3}}):([0-8])"), BoardClick),
    (re.compile(rf"ttt:ub:({_ID}):([0-9]{{1,3}})"), BoardClick),
    (re.compile(rf"ttt:p:({_ID}):([0-9]{{1,3}}):([0-9]{{1,3}})"), PuzzleCellClick),
    (re.compile(rf"ttt:pu:({_ID}):([0-9]{{1,3}}):([0-8])"), PuzzleBoardClick),
    (re.compile(rf"ttt:pb:({_ID}):([0-9]{{1,3}})"), PuzzleBoardClick),
    (re.compile(rf"ttt:pr:({_ID})"), RetryClick),
    (re.compile(rf"ttt:ps:({_ID})"), ShareClick),
    (re.compile(rf"ttt:g:({_ID}):([0-9]{{1,3}})"), GamesPageClick),
    (re.compile(rf"ttt:gb:({_ID})"), PrivateBoardClick),
    (re.compile(rf"ttt:o:({_ID})"), OptionsClick),
    (re.compile(rf"ttt:rc:({_ID}):([0-9]{{1,3}}):([0-9]{{1,3}})"), ReminderCellClick),
    (re.compile(rf"ttt:ra:({_ID})"), ReminderAcceptClick),
    (re.compile(rf"ttt:rd:({_ID})"), ReminderDeclineClick),
    (re.compile(rf"ttt:ru:({_ID}):([0-9]{{1,3}}):([0-8])"), ReminderBoardClick),
    (re.compile(rf"ttt:rb:({_ID}):([0-9]{{1,3}})"), ReminderBoardClick),
    (re.compile(rf"ttt:n:({_ID})"), NotifyClick),
)
_FORGET = re.compile(r"ttt:f:([0-9]{1,20}):(yes|no)")
_COURTESY = re.compile(rf"ttt:k:({_ID}):([0-9]{{1,3}}):([toa])")
_ACTIONS = {"t": "time", "o": "offer", "a": "accept"}


def parse(custom_id: str) -> Click | None:
    """The click a custom_id stands for; None if it is not one of ours (an old version's
    button, or a forged id)."""
    for pattern, kind in _GRAMMAR:
        match = pattern.fullmatch(custom_id)
        if match:
            return kind(*(int(group) for group in match.groups()))  # type: ignore[arg-type]
    match = _FORGET.fullmatch(custom_id)
    if match:
        return ForgetClick(int(match[1]), match[2] == "yes")
    match = _COURTESY.fullmatch(custom_id)
    if match:
        return CourtesyClick(int(match[1]), int(match[2]), cast(CourtesyAction, _ACTIONS[match[3]]))
    return None


def cell(game_id: int, ply: int, cell_index: int) -> str:
    return f"ttt:c:{game_id}:{ply}:{cell_index}"


def resign(game_id: int) -> str:
    return f"ttt:r:{game_id}"


def rematch(game_id: int) -> str:
    return f"ttt:m:{game_id}"


def accept(challenge_id: int) -> str:
    return f"ttt:a:{challenge_id}"


def decline(challenge_id: int) -> str:
    return f"ttt:d:{challenge_id}"


def review(game_id: int) -> str:
    return f"ttt:v:{game_id}"


def hint(game_id: int, ply: int) -> str:
    return f"ttt:h:{game_id}:{ply}"


def forget(user_id: int, confirmed: bool) -> str:
    return f"ttt:f:{user_id}:{'yes' if confirmed else 'no'}"


def join(tournament_id: int) -> str:
    return f"ttt:tj:{tournament_id}"


def leave(tournament_id: int) -> str:
    return f"ttt:tl:{tournament_id}"


def ready(match_id: int) -> str:
    return f"ttt:tr:{match_id}"


def live(game_id: int) -> str:
    return f"ttt:l:{game_id}"


def board(game_id: int, ply: int, board_index: int) -> str:
    return f"ttt:u:{game_id}:{ply}:{board_index}"


def back(game_id: int, ply: int) -> str:
    return f"ttt:ub:{game_id}:{ply}"


def puzzle_cell(attempt_id: int, ply: int, cell_index: int) -> str:
    return f"ttt:p:{attempt_id}:{ply}:{cell_index}"


def puzzle_board(attempt_id: int, ply: int, board_index: int) -> str:
    return f"ttt:pu:{attempt_id}:{ply}:{board_index}"


def puzzle_back(attempt_id: int, ply: int) -> str:
    return f"ttt:pb:{attempt_id}:{ply}"


def retry(attempt_id: int) -> str:
    return f"ttt:pr:{attempt_id}"


def share(attempt_id: int) -> str:
    return f"ttt:ps:{attempt_id}"


def games_page(user_id: int, page: int) -> str:
    return f"ttt:g:{user_id}:{page}"


def private_board(game_id: int) -> str:
    return f"ttt:gb:{game_id}"


def options(game_id: int) -> str:
    return f"ttt:o:{game_id}"


def courtesy(game_id: int, ply: int, action: CourtesyAction) -> str:
    """``action``: ``time``, ``offer`` or ``accept``."""
    return f"ttt:k:{game_id}:{ply}:{action[0]}"


def reminder_cell(game_id: int, ply: int, cell_index: int) -> str:
    return f"ttt:rc:{game_id}:{ply}:{cell_index}"


def reminder_accept(challenge_id: int) -> str:
    return f"ttt:ra:{challenge_id}"


def reminder_decline(challenge_id: int) -> str:
    return f"ttt:rd:{challenge_id}"


def reminder_board(game_id: int, ply: int, board_index: int) -> str:
    return f"ttt:ru:{game_id}:{ply}:{board_index}"


def reminder_back(game_id: int, ply: int) -> str:
    return f"ttt:rb:{game_id}:{ply}"


def notify_every(user_id: int) -> str:
    return f"ttt:n:{user_id}"
