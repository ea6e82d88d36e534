"""Pure transitions of a stored game: no I/O, no clock of its own, no Discord."""

from __future__ import annotations

from bot.core.models import (
    DAY,
    PACES,
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
    days_per_move: int | None = None,
) -> Game:
    """A running game with no moves and no clock yet (see :func:`start_clock`); ``size``
    is a classic board's (an ultimate game's is always 9); ``days_per_move`` its pace
    (None: live).

    Raises:
        InvalidBoard: a size the classic boards do not have.
    """
    size, k = _shape(variant, size)
    return Game(
        id=0, guild_id=guild_id, channel_id=channel_id, message_id=message_id,
        size=size, k=k, player_x=player_x, player_o=player_o,
        bot_side=bot_side, difficulty=difficulty, moves=(), turn_deadline=None,
        created_at=now, updated_at=now, rematch_of=rematch_of, locale=locale, guest=guest,
        variant=variant, days_per_move=days_per_move,
    )  # fmt: skip


def check_pace(days_per_move: int | None, *, vs_bot: bool = False) -> None:
    """Whether a game may be played at this pace (None: live, always).

    Raises:
        Refusal: ``start.pace_bot`` against the bot (it answers at once: a pace of days
            would only let the member's own clock run), ``start.pace_unknown`` for days
            that are none of :data:`PACES`.
    """
    if days_per_move is None:
        return
    if vs_bot:
        raise Refusal("start.pace_bot")
    if days_per_move not in PACES:
        raise Refusal("start.pace_unknown", days=days_per_move)


def move_time(game: Game | Challenge, turn_timeout: float) -> float:
    """The seconds a move of ``game`` is given: its pace's days, else the server's
    ``turn_timeout``. A correspondence challenge waits as long for its answer."""
    return turn_timeout if game.days_per_move is None else game.days_per_move * DAY


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
    days_per_move: int | None = None,
) -> Challenge:
    """A pending challenge that expires ``timeout`` seconds from ``now`` (a correspondence
    challenge, ``days_per_move`` given: that many days from ``now``, at most a week).

    Raises:
        Refusal: a pace that is none of :data:`PACES`.
    """
    check_pace(days_per_move)
    size, k = _shape(variant, size)
    return Challenge(
        id=0, guild_id=guild_id, channel_id=channel_id, message_id=None,
        challenger_id=challenger_id, opponent_id=opponent_id, x_player=x_player,
        size=size, k=k, status="pending", created_at=now, rematch_of=rematch_of,
        expires_at=now + (timeout if days_per_move is None else days_per_move * DAY),
        locale=locale, guest=guest, variant=variant, days_per_move=days_per_move,
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
        days_per_move=challenge.days_per_move,
    )  # fmt: skip


def start_clock(game: Game, now: float, turn_timeout: float) -> Game:
    """Give the member to move ``turn_timeout`` seconds (a correspondence game: its pace's
    days); the bot's own turns have no clock."""
    return game.with_changes(turn_deadline=_deadline(game, game.board, now, turn_timeout))


def _deadline(game: Game, board: GameBoard, now: float, turn_timeout: float) -> float | None:
    """The turn deadline of ``game`` standing at ``board``: none while the bot is to move."""
    return None if game.bot_side == board.to_move else now + move_time(game, turn_timeout)


def lapsed_unplayed(game: Game) -> bool:
    """Whether ``game`` is (or, timed out, would be) a correspondence game cancelled for
    want of a first move: no result (``Ending("abandoned")``), nobody rated."""
    return game.days_per_move is not None and game.ply == 0


def late(game: Game, now: float) -> bool:
    """Whether the mover's time ran out (whether or not the timekeeper settled it yet):
    a move made now would come after the deadline, which stands."""
    return game.running and game.turn_deadline is not None and game.turn_deadline <= now


def timed_out(game: Game, now: float) -> Game:
    """The game ended by its mover's deadline: lost on time, or, for a correspondence
    game nobody moved in, cancelled without a result (nobody rated): a game a member
    accepted and never came back to is no win for the other."""
    if lapsed_unplayed(game):
        return ended(game, "abandoned", None, now)
    return ended(game, "timeout", game.board.to_move, now)


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
