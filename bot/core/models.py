"""Domain records: a game, how it ended, and a challenge. Immutable; change with ``replace``."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from bot.core.policy import Marks
from engine import Board, UltimateBoard
from engine.agents import start_board

Mark = Literal["X", "O"]
EndReason = Literal["line", "draw", "resign", "timeout", "abandoned", "stopped"]
ChallengeStatus = Literal["pending", "accepted", "declined", "expired"]
XChoice = Literal["challenger", "opponent", "random"]
Variant = Literal["classic", "ultimate"]
"""The game played: ``classic`` is an N×N board (``size``, ``k`` in a row); ``ultimate``
is nine 3×3 boards in a 3×3 grid (its ``size`` is 9 and its ``k`` 3, always)."""
VARIANTS: tuple[Variant, ...] = ("classic", "ultimate")
PACES = (1, 3, 7)
"""The days a move a correspondence game may give (lichess's choices, up to a week)."""
DAY = 86400.0
GameBoard = Board | UltimateBoard
"""A game's position, as :attr:`Game.board` builds it for its variant."""


DM_SCOPE = 0
"""Where the records of games played in direct messages with the bot are kept: ratings
and bot records are keyed by server, and a DM game has none (its ``guild_id`` is None).
0 cannot be a server's id (Discord's snowflakes carry a timestamp since 2015), and one
scope for every DM suits games that only the member and the bot see: each member's
records there are theirs alone."""


def other(mark: str) -> Mark:
    return "O" if mark == "X" else "X"


@dataclass(frozen=True, slots=True)
class Ending:
    """How a game ended: the reason, and the winning side (None for a draw or a game
    abandoned without a result)."""

    reason: EndReason
    winner: Mark | None = None

    def __post_init__(self) -> None:
        decided = self.reason in ("line", "resign", "timeout")
        if decided != (self.winner is not None):
            raise ValueError(f"a game ended by {self.reason!r} cannot have winner {self.winner!r}")

    @property
    def result(self) -> Literal["X", "O", "draw"] | None:
        """The winner, ``"draw"``, or None when the game was abandoned or stopped by a
        moderator (no result)."""
        if self.reason in ("abandoned", "stopped"):
            return None
        return self.winner or "draw"

    def score(self, mark: str) -> float | None:
        """1 for a win of ``mark``, 0.5 for a draw, 0 for a loss; None without a result."""
        result = self.result
        if result is None:
            return None
        return 0.5 if result == "draw" else float(result == mark)


@dataclass(frozen=True, slots=True)
class Game:
    id: int
    guild_id: int | None
    channel_id: int
    message_id: int | None
    size: int
    k: int
    player_x: int
    player_o: int
    bot_side: Mark | None
    difficulty: str | None
    moves: tuple[int, ...]
    turn_deadline: float | None
    created_at: float
    updated_at: float
    """When the game last moved or ended (its start before that): the turn in play began
    then. Courtesy (more time, a draw offer) leaves it."""
    ending: Ending | None = None
    """None while the game runs."""
    finished_at: float | None = None
    rematch_of: int | None = None
    locale: str | None = None
    """The server's language when the game started (Discord's guild_locale), for the
    messages a process shows without an interaction, possibly for another shard's server."""
    hinted: bool = False
    """A hint was shown in it: it does not count towards the best records."""
    ping_message_id: int | None = None
    """The message that mentions the player to move (a server's turn ping), deleted when
    the turn passes."""
    stopped_by: int | None = None
    """The moderator who ended it (``Ending("stopped")``)."""
    guest: bool = False
    """Started where only a member's own install of ttt reaches (a DM between members,
    a group DM, a server that did not add the bot): its messages can only be shown
    through interaction tokens, and it counts in the players' personal records."""
    tournament_match_id: int | None = None
    """The tournament match it is a game of (rated like any member game)."""
    variant: Variant = "classic"
    """The game played; ultimate games have records and ratings of their own."""
    days_per_move: int | None = None
    """A correspondence game's pace (one of :data:`PACES`): each move is due this many
    days after the previous one. None: a live game, on its server's turn timeout."""
    extra_time_ply: int | None = None
    """The ply at which the waiting player last gave the mover one more pace period
    (correspondence games: once a move; the deadline stored already holds it)."""
    draw_offer_by: int | None = None
    """The member who last offered a draw (correspondence games), standing while the
    ply is below :attr:`draw_offer_until`; see :func:`bot.core.courtesy.standing_offer`."""
    draw_offer_until: int | None = None
    """The ply at which that offer lapses: the next move of the member it was made to."""
    remind: str = ""
    """The marks ("", "X", "O" or "XO") whose players take reminders of their moves in
    this correspondence game (every move, or deadline warnings), as stored: kept by
    storage as members choose, so a move that passes the turn to a player who chose
    none writes nothing for reminders (see :mod:`bot.storage.outbox_rows`). A lowercase
    mark ("x", "o"): that player chose reminders but Discord does not deliver their DMs
    (50007): they are mentioned in the game's channel each turn instead."""

    def mentioned_instead(self, mark: Mark) -> bool:
        """Whether the player of ``mark`` is mentioned in the channel at each turn in
        place of the DMs that do not reach them (see :attr:`remind`)."""
        return mark.lower() in self.remind

    _board: GameBoard | None = field(default=None, init=False, repr=False, compare=False)
    """The position, built from the moves on first use and kept with this value (a
    click reads it several times; a new value builds its own)."""

    @property
    def board(self) -> GameBoard:
        board = self._board
        if board is None:
            board = start_board(self.variant, self.size, self.k)
            for cell in self.moves:
                board = board.play(cell)
            object.__setattr__(self, "_board", board)
        return board

    @property
    def ply(self) -> int:
        return len(self.moves)

    @property
    def running(self) -> bool:
        return self.ending is None

    @property
    def settings_guild(self) -> int | None:
        """The server whose settings apply: None in DMs and for a guest, where no
        server's install does."""
        return None if self.guest else self.guild_id

    @property
    def records_scope(self) -> int:
        """The key of the records this game counts in: its server, or :data:`DM_SCOPE`
        (direct messages, and every game of a guest)."""
        return DM_SCOPE if self.guild_id is None or self.guest else self.guild_id

    def player(self, mark: str) -> int:
        return self.player_x if mark == "X" else self.player_o

    def mark_of(self, user_id: int) -> Mark | None:
        """The side a user plays; in a bot game the bot's side is never a member's."""
        if user_id == self.player_x and self.bot_side != "X":
            return "X"
        if user_id == self.player_o and self.bot_side != "O":
            return "O"
        return None

    def score_of(self, user_id: int) -> float | None:
        """1 for a win, 0.5 a draw, 0 a loss; None if the member did not play in it, it
        still runs, or it was abandoned."""
        mark = self.mark_of(user_id)
        if mark is None or self.ending is None:
            return None
        return self.ending.score(mark)

    def with_changes(self, **changes: object) -> Game:
        """A copy with ``changes``; it keeps the built board unless the moves change."""
        changed: Game = replace(self, **changes)  # type: ignore[arg-type]
        if "moves" not in changes and self._board is not None:
            object.__setattr__(changed, "_board", self._board)
        return changed

    def with_move(self, cell: int, played: GameBoard | None = None, **changes: object) -> Game:
        """A copy with ``cell`` played (and ``changes``), its board built from this one's,
        or ``played``: this board after ``cell``, when the caller played it already (to
        decide the changes from it, in the one copy).

        Raises:
            IllegalMove: the cell is taken or off the board, or the game is over.
        """
        board = self.board.play(cell) if played is None else played
        changed = self.with_changes(moves=(*self.moves, cell), **changes)
        object.__setattr__(changed, "_board", board)
        return changed


@dataclass(frozen=True, slots=True)
class Challenge:
    id: int
    guild_id: int | None
    channel_id: int
    message_id: int | None
    challenger_id: int
    opponent_id: int | None
    """None for an open challenge: anyone in the channel but the challenger may accept."""
    x_player: XChoice
    size: int
    k: int
    status: ChallengeStatus
    expires_at: float
    created_at: float
    game_id: int | None = None
    rematch_of: int | None = None
    locale: str | None = None
    guest: bool = False
    """As :attr:`Game.guest`: shown only through interaction tokens."""
    variant: Variant = "classic"
    days_per_move: int | None = None
    """As :attr:`Game.days_per_move`; a correspondence challenge waits that long."""

    @property
    def settings_guild(self) -> int | None:
        """As :attr:`Game.settings_guild`."""
        return None if self.guest else self.guild_id

    @property
    def pending(self) -> bool:
        return self.status == "pending"

    def with_changes(self, **changes: object) -> Challenge:
        return replace(self, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class GameUpdate:
    """A game as the service decided it, with what the interface needs to show it: the
    marks the game's server chose. Controllers render this and ask nothing more."""

    game: Game
    marks: Marks = field(default_factory=Marks)
    hints: bool = False
    """The server lets members ask for hints (a Hint button in games against the bot)."""
    live_board: bool = False
    """The Activity is served: a Live board button opens the game as a live page."""
    focus: int | None = None
    """Ultimate, a free move: the small board whose squares the member to move chose to
    see (a view of the board only: no game state)."""
