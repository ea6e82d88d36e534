"""The one custom_id grammar. Buttons carry what a click needs to survive a restart.

    ttt:c:<game>:<ply>:<cell>   a board cell; <ply> is the number of moves on the board
                                the player saw, so a click on an older board is refused
    ttt:r:<game>                resign
    ttt:m:<game>                rematch
    ttt:a:<challenge>           accept a challenge
    ttt:d:<challenge>           decline a challenge
    ttt:v:<game>                review a finished game
    ttt:f:<user>:<yes|no>       confirm or cancel /ttt forget-me

The templates are the DynamicItem regexes; ids are numbers, so every custom_id stays far
below Discord's 100-character limit.
"""

from __future__ import annotations

PREFIX = "ttt"

CELL_TEMPLATE = r"ttt:c:(?P<game>[0-9]{1,19}):(?P<ply>[0-9]{1,3}):(?P<cell>[0-9]{1,3})"
RESIGN_TEMPLATE = r"ttt:r:(?P<game>[0-9]{1,19})"
REMATCH_TEMPLATE = r"ttt:m:(?P<game>[0-9]{1,19})"
ACCEPT_TEMPLATE = r"ttt:a:(?P<challenge>[0-9]{1,19})"
DECLINE_TEMPLATE = r"ttt:d:(?P<challenge>[0-9]{1,19})"
REVIEW_TEMPLATE = r"ttt:v:(?P<game>[0-9]{1,19})"
FORGET_TEMPLATE = r"ttt:f:(?P<user>[0-9]{1,20}):(?P<answer>yes|no)"


def is_ours(custom_id: str) -> bool:
    return custom_id.startswith(f"{PREFIX}:")


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


def forget(user_id: int, confirmed: bool) -> str:
    return f"ttt:f:{user_id}:{'yes' if confirmed else 'no'}"
