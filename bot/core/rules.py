"""Pure transitions of a stored game: no I/O, no clock of its own, no Discord."""

from __future__ import annotations

from bot.core.models import (
    Challenge,
    Ending,
    EndReason,
    Game,
    GameBoard,
    Mark,
    Variant,
    XChoice,
)
from bot.core.refusals import Refusal
from bot.core.variants import variant_of


def new_game(
    *,
    guild_id: int | None,
    channel_id: int,
    size: int,
    player_x: int,
    player_o: int,
    now: float,
    bot_side: Mark | None = None,
    difficulty: str | None = None,
    message_id: int | None = None,
    rematch_of: int | None = None,
    locale: str | None = None,
    guest: bool = False,
    variant: Variant = "classic",
) -> Game:
    """A running game with no moves and no clock yet (see :func:`start_clock`); ``size``
    is a classic board's (an ultimate game's is always 9).

    Raises:
        InvalidBoard: a size the classic boards do not have.
    """
    size, k = _shape(variant, size)
    return Game(
        id=0, guild_id=guild_id, channel_id=channel_id, message_id=message_id,
        size=size, k=k, player_x=player_x, player_o=player_o,
        bot_side=bot_side, difficulty=difficulty, moves=(), turn_deadline=None,
        created_at=now, updated_at=now, rematch_of=rematch_of, locale=locale, guest=guest,
        variant=variant,
    )  # fmt: skip


def _shape(variant: Variant, size: int) -> tuple[int, int]:
    """The ``size`` and ``k`` stored for a game of ``variant``."""
    return variant_of(variant).shape(size)


def new_challenge(
    *,
    guild_id: int | None,
    channel_id: int,
    challenger_id: int,
    opponent_id: int | None,
    x_player: XChoice,
    size: int,
    now: float,
    timeout: float,
    rematch_of: int | None = None,
    locale: str | None = None,
    guest: bool = False,
    variant: Variant = "classic",
) -> Challenge:
    """A pending challenge that expires ``timeout`` seconds from ``now``."""
    size, k = _shape(variant, size)
    return Challenge(
        id=0, guild_id=guild_id, channel_id=channel_id, message_id=None,
        challenger_id=challenger_id, opponent_id=opponent_id, x_player=x_player,
        size=size, k=k, status="pending", expires_at=now + timeout,
        created_at=now, rematch_of=rematch_of, locale=locale, guest=guest, variant=variant,
    )  # fmt: skip


def accepted_game(
    challenge: Challenge, *, accepted_by: int, challenger_x: bool, now: float,
    message_id: int | None,
) -> Game:  # fmt: skip
    """The game an accepted challenge starts (its clock not yet running): against the
    member named, or whoever accepted an open challenge."""
    challenger, opponent = challenge.challenger_id, challenge.opponent_id or accepted_by
    return new_game(
        guild_id=challenge.guild_id, channel_id=challenge.channel_id, size=challenge.size,
        now=now, player_x=challenger if challenger_x else opponent,
        player_o=opponent if challenger_x else challenger,
        message_id=message_id or challenge.message_id, rematch_of=challenge.rematch_of,
        locale=challenge.locale, guest=challenge.guest, variant=challenge.variant,
    )  # fmt: skip


def start_clock(game: Game, now: float, turn_timeout: float) -> Game:
    """Give the member to move ``turn_timeout`` seconds; the bot's own turns have no clock."""
    return game.with_changes(turn_deadline=_deadline(game, game.board, now, turn_timeout))


def _deadline(game: Game, board: GameBoard, now: float, turn_timeout: float) -> float | None:
    """The turn deadline of ``game`` standing at ``board``: none while the bot is to move."""
    return None if game.bot_side == board.to_move else now + turn_timeout


def advance(game: Game, cell: int, now: float, turn_timeout: float) -> Game:
    """The game after the side to move plays ``cell``: finished on a line or a full board,
    else with the next mover's clock started. One copy of the game: a click makes two
    (the member's move and the bot's), and each copy sets every field.

    Raises:
        IllegalMove: the cell is taken or off the board, or the game is over.
    """
    board = game.board.play(cell)
    result = board.outcome()
    if result is None:
        deadline = _deadline(game, board, now, turn_timeout)
        return game.with_move(cell, board, updated_at=now, turn_deadline=deadline)
    ending = Ending("draw") if result == "draw" else Ending("line", result)
    return game.with_move(cell, board, **_finished(ending, now))


def finish(game: Game, ending: Ending, now: float) -> Game:
    return game.with_changes(**_finished(ending, now))


def _finished(ending: Ending, now: float) -> dict[str, object]:
    return {"ending": ending, "turn_deadline": None, "updated_at": now, "finished_at": now}


def stopped(game: Game, moderator_id: int, now: float) -> Game:
    """The game ended by a moderator: no winner, no result, nobody rated."""
    return finish(game, Ending("stopped"), now).with_changes(stopped_by=moderator_id)


def ended(game: Game, reason: EndReason, loser: Mark | None, now: float) -> Game:
    """The game ended without a line: resigned or timed out by ``loser``, or abandoned."""
    winner: Mark | None = None if loser is None else ("O" if loser == "X" else "X")
    return finish(game, Ending(reason, winner), now)


def illegal_move(game: Game, cell: int) -> Refusal:
    """Why ``game``'s board refused ``cell``: taken (or off the board), or, in ultimate, an
    empty square outside the small board the mover is sent to (or in a decided one)."""
    return variant_of(game.variant).illegal_move(game.board, cell)
