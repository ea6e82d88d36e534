"""The one place that decides puzzles (CONTRACT: signatures the Discord and web
interfaces code against; the puzzles-core branch implements them).

Every method validates, updates state, stores it, and returns what to show; a request
that cannot be honoured raises :class:`~bot.core.refusals.Refusal` with a catalog key
(``puzzle.*``), changing nothing. No search runs on the event loop: replies come from
the stored main line or from the engine pool (3×3 inline: microseconds).
"""

from __future__ import annotations

from bot.core.puzzles.models import (
    Mode,
    PuzzleKind,
    PuzzlePlayer,
    PuzzleStanding,
    PuzzleView,
    ShareLine,
)


class PuzzleService:
    async def open(
        self, user_id: int, guild_id: int | None, mode: Mode = "daily",
        kind: PuzzleKind | None = None,
    ) -> PuzzleView:  # fmt: skip
        """``/ttt puzzle`` (and the page's start). The member's open attempt is resumed
        whatever was asked (``resumed=True``), unless it is a rated one past its 30
        minutes: that one is failed (rating moved) and a new one started. Otherwise:

        - ``daily``: today's puzzle (UTC); when the member already finished today's
          daily, that attempt is shown again, over (Retry and Share on it);
        - ``training``: a puzzle of ``kind`` (None: any board) the member has not tried,
          rated nearest their puzzle rating (3×3 puzzles are unrated beginners');
        - ``own``: a position from the member's finished classic games where they missed
          a forced win of at least two moves, not tried yet.

        Raises:
            Refusal: ``puzzle.off`` (the server turned puzzles off), ``puzzle.none_left``
                (training on a board the member has tried every puzzle of),
                ``puzzle.no_own`` (no missed win found), ``puzzle.no_daily`` (before
                daily #1 or past the schedule), ``puzzle.busy`` (the engine is busy).
        """
        raise NotImplementedError

    async def current(self, user_id: int) -> PuzzleView | None:
        """The member's open attempt (after the 30-minute check), or None: what the
        Activity's page shows on load."""
        raise NotImplementedError

    async def move(self, user_id: int, attempt_id: int, ply: int, cell: int) -> PuzzleView:
        """The member plays ``cell`` on the attempt's board as it stood at ``ply``; the
        defender's longest defence is played in the same call. Judged as the issue says:
        still winning in time → on; the win → solved; the win given up → failed
        (``wrong``); a win, but not within the moves left → failed (``slow``). A rated
        attempt's end moves the member's and the puzzle's Glicko-2 ratings once.

        A click at an older ``ply``, or on an attempt already over: ``stale=True``,
        nothing played (a double click, or the page played it first).

        Raises:
            Refusal: ``puzzle.unknown`` (no such attempt), ``puzzle.not_yours``
                (another member's attempt), ``puzzle.bad_cell`` (an occupied or
                out-of-board cell, or not in the small board to play), ``puzzle.busy``.
        """
        raise NotImplementedError

    async def show(self, user_id: int, attempt_id: int) -> PuzzleView:
        """An attempt of the member's as it stands (the 30-minute check applied).

        Raises:
            Refusal: ``puzzle.unknown``, ``puzzle.not_yours``.
        """
        raise NotImplementedError

    async def retry(self, user_id: int, attempt_id: int) -> PuzzleView:
        """A new, unrated attempt at a finished attempt's puzzle, from its start. An open
        attempt of the member's is failed first if rated, else dropped.

        Raises:
            Refusal: ``puzzle.unknown``, ``puzzle.not_yours``, ``puzzle.still_open``.
        """
        raise NotImplementedError

    async def share(self, user_id: int, attempt_id: int, guild_id: int | None) -> ShareLine:
        """The public line for a finished attempt of the member's.

        Raises:
            Refusal: ``puzzle.unknown``, ``puzzle.not_yours``, ``puzzle.still_open``,
                ``puzzle.off``.
        """
        raise NotImplementedError

    async def player(self, user_id: int) -> PuzzlePlayer | None:
        """The member's puzzle record (None: never finished one): /ttt stats."""
        raise NotImplementedError

    async def leaderboard(self, guild_id: int, limit: int = 10) -> list[PuzzleStanding]:
        """The members with a rated attempt through this server, by puzzle rating."""
        raise NotImplementedError
