"""Puzzles as the bot keeps them: a member's attempt at a puzzle, what a move did, and
what the interfaces show. Values only: the service (:mod:`bot.core.puzzles.service`)
decides, the repository stores, the Discord and web interfaces render these.

A puzzle comes from the engine's shipped set (:mod:`engine.puzzles`, id like
``"5x5-3f9a0c12d4"``) or from a member's own finished game (id ``"own-<game>-<ply>"``:
the position before their move number ``ply`` of game ``game``, where they missed a
forced win). Either way an attempt carries the position and ``n`` itself, so it is
played and shown without looking the puzzle up again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Mode = Literal["daily", "training", "own"]
"""How the attempt was asked for: today's puzzle, training near the member's rating, or a
position from the member's own games."""
Status = Literal["open", "solved", "failed"]
Outcome = Literal["right", "solved", "wrong", "slow", "expired", "abandoned", "withdrawn"]
"""What the last move (or the clock) did: still winning (``right``), won within ``n``
(``solved``), gave the win up (``wrong``), still wins but not in time (``slow``), a
rated attempt left open past :data:`EXPIRY` seconds (``expired``, failed), a rated
attempt left open when the member retried another puzzle (``abandoned``, failed: no
longer made, such a Retry is refused; older attempts keep it), or an open attempt at a
puzzle the shipped set no longer holds (``withdrawn``: failed, unrated, counted
nowhere)."""
PuzzleKind = Literal["3x3", "4x4", "5x5", "ultimate"]

EXPIRY = 30 * 60.0
"""Seconds a rated attempt may stay open; past them it counts as failed (so a rating
cannot be farmed by looking the position up)."""


@dataclass(frozen=True, slots=True)
class Attempt:
    """One member's try at one puzzle, as stored. ``moves`` are the cells played from the
    puzzle's position: the solver's, the defender's reply, and so on (so ``len(moves)`` is
    the ply a click must name, as a game's cell click does)."""

    id: int
    user_id: int
    puzzle_id: str
    kind: PuzzleKind
    mode: Mode
    position: str
    """The puzzle's starting position (engine board string)."""
    to_move: str
    """``"X"`` or ``"O"``: the member's side."""
    n: int
    """The win is within ``n`` of the solver's own moves, the winning one included."""
    rated: bool
    """Whether finishing it moves the member's and the puzzle's ratings (the first
    attempt at a puzzle past 3×3 from the set; never Retry or an own-game puzzle)."""
    started_at: float
    guild_id: int | None
    """The server the attempt was started through (None: DMs, a user install outside a
    server that added ttt): the server leaderboard counts a rated attempt there."""
    daily: int | None = None
    """The daily number (#N) when ``mode == "daily"``, fixed when it started."""
    moves: tuple[int, ...] = ()
    status: Status = "open"
    outcome: Outcome | None = None
    finished_at: float | None = None
    rating_before: float | None = None
    rating_after: float | None = None
    """The member's puzzle rating around a rated attempt's end (None while open/unrated)."""
    retry_of: int | None = None
    """The attempt this one retries (unrated)."""
    shared: bool = False
    """Whether Share posted its line for this attempt (once each)."""

    @property
    def ply(self) -> int:
        return len(self.moves)

    @property
    def over(self) -> bool:
        return self.status != "open"


@dataclass(frozen=True, slots=True)
class PuzzleRating:
    """A Glicko-2 rating (``rating`` on the Glicko scale, 1500 the usual start)."""

    rating: float
    deviation: float
    volatility: float


@dataclass(frozen=True, slots=True)
class PuzzlePlayer:
    """A member's puzzle record: the same on every server."""

    user_id: int
    rating: PuzzleRating
    solved: int = 0
    tried: int = 0
    """First attempts finished (solved or failed), rated or not: a Retry counts in
    neither (it counts for the daily streak)."""
    streak: int = 0
    """Consecutive UTC days, up to today (or up to yesterday while today's daily is not
    solved yet), on which that day's daily was solved."""
    best_streak: int = 0
    rated_at: float | None = None
    """When the member's last rated attempt ended (None: never): the time away their
    deviation grows for before the next (:func:`bot.core.puzzles.glicko2.away`)."""


@dataclass(frozen=True, slots=True)
class PuzzleView:
    """What an interface shows after an action: the attempt as it now stands, the board
    it is at, and, once it is over, how it ended.

    ``board`` is the position after ``attempt.moves`` (an engine board string of the
    attempt's kind), ``last_reply`` the defender's answer to the member's last move (None
    before any move, or when the member's move ended the puzzle)."""

    attempt: Attempt
    board: str
    moves_left: int
    """The solver's moves left to win within (``n`` at the start)."""
    last_reply: int | None = None
    solution: tuple[int, ...] = ()
    """Once failed: the winning line from the puzzle's position (the solver's moves and
    the longest defence), to show as the review shows a line. Empty otherwise."""
    refutation: int | None = None
    """Once failed by a wrong or slow move: the defender's reply that refutes it."""
    number: int | None = None
    """The daily number for a daily puzzle (#N)."""
    player: PuzzlePlayer | None = None
    """The member's record after the attempt ended (rating, streak), for the end line."""
    resumed: bool = False
    """True when ``/ttt puzzle`` (or the page) found this attempt open and showed it
    again rather than starting one."""
    stale: bool = False
    """The click named an older ply than the attempt stands at, or an attempt already
    over (played on the Activity's page, or a double click): nothing was played; the
    interface redraws the message from this view (and, when the attempt is over, points
    the member privately to ``/ttt puzzle``). Never a second rating change."""


@dataclass(frozen=True, slots=True)
class ShareLine:
    """The one public line a member may post after an attempt: no squares, no moves."""

    user_id: int
    kind: PuzzleKind
    daily: int | None
    solved: bool
    n: int
    moves_used: int
    """The solver's moves played."""
    streak: int
    retry: bool


@dataclass(frozen=True, slots=True)
class PuzzleStanding:
    """A row of a server's puzzle leaderboard."""

    user_id: int
    rating: float
    solved: int
    tried: int


@dataclass(frozen=True, slots=True)
class PuzzleBoard:
    """A server's puzzle leaderboard: the established ratings, best first, and how many
    members with a rated attempt through the server are still provisional (not ranked:
    deviation above :data:`~bot.core.puzzles.glicko2.PROVISIONAL` after time away)."""

    standings: tuple[PuzzleStanding, ...]
    provisional: int


@dataclass(frozen=True, slots=True)
class OwnPuzzle:
    """A position from a member's finished game where they missed a forced win of at
    least two of their moves (a missed win in one is the review's business)."""

    game_id: int
    ply: int
    kind: PuzzleKind
    position: str
    to_move: str
    n: int
    played: int
    """The move the member played there instead."""
    first_moves: tuple[int, ...] = field(default=())
    """Every first move that wins within ``n`` (an own puzzle may have several)."""
