"""Whether a member may make a move, or look into a small board, on the position they
clicked: the checks every board shares, and the ultimate board's own (the small board to
play; why a square is refused is :func:`bot.core.rules.illegal_move`'s). Pure: a refusal
says why, and nothing is changed.

The game's variant (:func:`bot.core.variants.variant_of`) says which small boards a mover
may choose from: the service never asks which game it runs.
"""

from __future__ import annotations

from bot.core import rules
from bot.core.models import Game, Mark
from bot.core.refusals import Refusal
from bot.core.variants import variant_of


def check_turn(game: Game, ply: int, user_id: int, *, not_player: str = "move.not_player") -> Mark:
    """The side ``user_id`` plays, if it is theirs to move on the board they saw.

    Raises:
        Refusal: not a player (``not_player``, the key that says so), the bot to move
            (whatever board was clicked: the member waits for its reply), a board that
            has changed since (``ply``), not their turn.
    """
    mark = game.mark_of(user_id)
    if mark is None:
        raise Refusal(not_player)
    if game.running and game.bot_side == game.board.to_move:
        raise Refusal("move.not_your_turn", game=game, mark=game.board.to_move)
    if ply != game.ply:  # the board this click was made on has changed since
        raise Refusal("move.stale")
    if game.board.to_move != mark:
        raise Refusal("move.not_your_turn", game=game, mark=game.board.to_move)
    return mark


def refusal_of(game: Game, ply: int, cell: int, user_id: int) -> Refusal:
    """Why a move on ``cell`` that the board's message does not offer (a forged click) is
    refused: the move's own reason where it has one (a square outside the small board to
    play, say), else ``move.stale`` (nothing is played that the board did not offer)."""
    try:
        check_turn(game, ply, user_id)
    except Refusal as refusal:
        return refusal
    if cell not in game.board.legal_moves():
        return rules.illegal_move(game, cell)
    return Refusal("move.stale")


def check_board_choice(game: Game, ply: int, board: int | None, user_id: int) -> None:
    """Whether ``user_id`` may look into small board ``board`` (None: back to the choice)
    before their free move in an ultimate game.

    Raises:
        Refusal: not their move (see :func:`check_turn`); not an ultimate game; not a
            free move (a board is forced: a board to choose is never shown then, so the
            click is forged, and the refusal names that board); a board already decided.
    """
    check_turn(game, ply, user_id)
    variant = variant_of(game.variant)
    choices = variant.board_choice(game.board)
    if choices is None:
        raise variant.no_board_choice(game.board)
    if board is not None and board not in choices:
        raise Refusal("move.elsewhere_any")


def board_choice_refusal(game: Game, ply: int, board: int | None, user_id: int) -> Refusal:
    """Why a look into ``board`` that the board's message does not offer is refused: the
    choice's own reason where it has one (see :func:`check_board_choice`), else
    ``move.stale`` (a choice the message offered once, since replaced)."""
    try:
        check_board_choice(game, ply, board, user_id)
    except Refusal as refusal:
        return refusal
    return Refusal("move.stale")
