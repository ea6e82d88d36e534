"""The one place that decides puzzles (the contract the Discord and web interfaces code
against).

Every method validates, updates state, stores it, and returns what to show; a request
that cannot be honoured raises :class:`~bot.core.refusals.Refusal` with a catalog key
(``puzzle.*``), changing nothing. No search runs on the event loop: replies come from
the stored main line or from the engine pool (3×3 inline: microseconds); see
:mod:`bot.core.puzzles.engine_calls`.

A member's puzzle actions take turns within a process (a lock per member: a double
click sees the first click's result); across processes a move is stored by a
compare-and-set on the ply and a finish in one transaction with both ratings, so a
move counts once and a rating moves once, whichever process or page asked.
"""

from __future__ import annotations

import asyncio
import random
import time
import weakref
from collections.abc import Callable
from dataclasses import replace

from bot.core.policies import PolicyBook
from bot.core.puzzles import reading, records, starts
from bot.core.puzzles.engine_calls import PuzzleEngine, Searching, board_after
from bot.core.puzzles.finish import finished, in_set
from bot.core.puzzles.glicko2 import GROWTH, PROVISIONAL
from bot.core.puzzles.models import (
    Attempt,
    Mode,
    PuzzleBoard,
    PuzzleKind,
    PuzzlePlayer,
    PuzzleView,
    ShareLine,
)
from bot.core.puzzles.recent import OpenAttempts
from bot.core.puzzles.streaks import day_number, utc_day
from bot.core.puzzles.views import Solutions, read_set, set_puzzle, view_of
from bot.core.refusals import Refusal
from bot.core.repository import Conflict, Repository
from engine.puzzles import NoDailyPuzzle, Puzzle, daily
from engine.puzzles.records import PuzzleBoard as Position


class PuzzleService:
    """Puzzles over ``repo``: ``policies`` say where they are on, ``clock`` what time it
    is (the daily's day, the 30 minutes), ``rng`` which training puzzle among the nearest,
    ``engine`` where the judging searches run (:class:`PuzzleEngine`: the pool)."""

    def __init__(
        self, repo: Repository, policies: PolicyBook, *, clock: Callable[[], float] = time.time,
        rng: random.Random | None = None, engine: PuzzleEngine | None = None,
    ) -> None:  # fmt: skip
        self.repo = repo
        self.policies = policies
        self.clock = clock
        self.rng = rng or random.Random()
        self.engine = engine or PuzzleEngine()
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._set_read = False
        """Whether the shipped set was read (see :meth:`_member`)."""
        self._solutions = Solutions(self.engine)
        self._open = OpenAttempts()
        """The open attempts as last stored or read here (see :mod:`.recent`)."""

    async def _member(self, user_id: int) -> asyncio.Lock:
        """The member's lock, once the shipped set is read: the first read parses 3,289
        puzzles (0.3 s, seconds on a busy machine), on a thread rather than the event
        loop, so a process's first puzzle click is answered in time."""
        if not self._set_read:
            await asyncio.to_thread(read_set)
            self._set_read = True
        return self._lock(user_id)

    def _lock(self, user_id: int) -> asyncio.Lock:
        lock = self._locks.get(user_id)
        if lock is None:
            lock = self._locks[user_id] = asyncio.Lock()
        return lock

    async def open(
        self, user_id: int, guild_id: int | None, mode: Mode = "daily",
        kind: PuzzleKind | None = None, *, searching: Searching = None,
    ) -> PuzzleView:  # fmt: skip
        """``/ttt puzzle`` (and the page's start). The member's open attempt is resumed
        whatever was asked (``resumed=True``), unless it is a rated one past its 30
        minutes: that one is failed (rating moved) and a new one started. Otherwise:

        - ``daily``: today's puzzle (UTC); when the member already finished today's
          daily, that attempt is shown again, over (Retry and Share on it);
        - ``training``: a puzzle of ``kind`` (None: any board) the member has not tried,
          rated nearest their puzzle rating (3×3 puzzles are unrated beginners');
        - ``own``: a position from the member's finished classic games where they missed
          a forced win of at least two moves, not tried yet (the scan of their games
          runs in the engine pool: ``searching`` is awaited before it, as for a move).

        Raises:
            Refusal: ``puzzle.off`` (the server turned puzzles off), ``puzzle.none_left``
                (training on a board the member has tried every puzzle of),
                ``puzzle.no_own`` (no missed win found), ``puzzle.no_daily`` (before
                daily #1), ``puzzle.busy`` (the engine is busy).
        """
        if not (await self.policies.policy(guild_id)).puzzles:
            raise Refusal("puzzle.off")
        async with await self._member(user_id):
            for _ in range(3):  # another process may start one meanwhile: resume that
                resumed = await reading.open_of(self.repo, user_id, self.clock(), True)
                if resumed is not None:  # or withdrawn just now: said once
                    return await self._view(resumed, resumed=not resumed.over)
                now = self.clock()
                if mode == "daily":
                    started = await starts.daily_attempt(self.repo, user_id, guild_id, now)
                elif mode == "training":
                    started = await starts.training_attempt(
                        self.repo, user_id, guild_id, kind, now, self.rng
                    )
                else:
                    started = await starts.own_attempt(
                        self.repo, self.engine, user_id, guild_id, now, searching
                    )
                if started.over:  # today's daily, finished before
                    return await self._view(started)
                try:
                    return await self._view(await self.repo.insert_puzzle_attempt(started))
                except Conflict:
                    continue
            raise Refusal("puzzle.busy")

    def today(self) -> tuple[int, Puzzle] | None:
        """Today's daily (UTC, by the service's clock): its number and puzzle; None before
        daily #1."""
        when = self.clock()
        try:
            return day_number(when), daily(utc_day(when))
        except NoDailyPuzzle:
            return None

    async def current(self, user_id: int) -> PuzzleView | None:
        """The member's open attempt (after the 30-minute check), or None: what the
        Activity's page shows on load."""
        async with await self._member(user_id):
            attempt = await reading.open_of(self.repo, user_id, self.clock())
            return None if attempt is None else await self._view(attempt, resumed=True)

    async def move(
        self, user_id: int, attempt_id: int, ply: int, cell: int, *,
        searching: Searching = None,
    ) -> PuzzleView:  # fmt: skip
        """The member plays ``cell`` on the attempt's board as it stood at ``ply``; the
        defender's longest defence is played in the same call. Judged as the issue says:
        still winning in time → on; the win → solved; the win given up → failed
        (``wrong``); a win, but not within the moves left → failed (``slow``). A rated
        attempt's end moves the member's and the puzzle's Glicko-2 ratings once.

        A click at an older ``ply``, or on an attempt already over: ``stale=True``,
        nothing played (a double click, or the page played it first). ``searching`` is
        awaited just before the move is sent to the engine pool (a move off the stored
        line on 4×4, 5×5 or ultimate: up to seconds), so an interface defers only then.

        Raises:
            Refusal: ``puzzle.unknown`` (no such attempt), ``puzzle.not_yours``
                (another member's attempt), ``puzzle.bad_cell`` (an occupied or
                out-of-board cell, or not in the small board to play), ``puzzle.busy``.
        """
        async with await self._member(user_id):
            attempt = self._open.clicked(user_id, attempt_id, ply)
            if attempt is None:
                attempt = await reading.mine(self.repo, user_id, attempt_id)
            attempt = await reading.checked(self.repo, attempt, self.clock())
            if attempt.over or ply != attempt.ply:
                return await self._view(attempt, stale=True)
            board = board_after(attempt.kind, attempt.position, attempt.moves)
            if cell not in board.legal_moves():
                raise Refusal("puzzle.bad_cell")
            judged = await self.engine.judge(attempt, cell, set_puzzle(attempt), searching, board)
            played = (cell,) if judged.reply is None else (cell, judged.reply)
            moves = attempt.moves + played
            for move in played:
                board = board.play(move)
            try:
                if judged.verdict == "right":
                    after = replace(attempt, moves=moves, outcome="right")
                    await self.repo.save_puzzle_attempt(after, attempt.ply)
                    return await self._view(after, board=board)
                now = self.clock()
                after, player = await finished(self.repo, attempt, moves, judged.verdict, now)
            except Conflict:  # another process (or the page) played or ended it first
                self._open.forget(user_id)
                return await self._view(await reading.reread(self.repo, attempt), stale=True)
            stored = await records.with_streaks(self.repo, player, now)
            return await self._view(after, solution=judged.solution, board=board, player=stored)

    async def show(self, user_id: int, attempt_id: int) -> PuzzleView:
        """An attempt of the member's as it stands (the 30-minute check applied).

        Raises:
            Refusal: ``puzzle.unknown``, ``puzzle.not_yours``.
        """
        async with await self._member(user_id):
            return await self._view(
                await reading.checked(
                    self.repo, await reading.mine(self.repo, user_id, attempt_id), self.clock()
                )
            )

    async def retry(self, user_id: int, attempt_id: int) -> PuzzleView:
        """A new, unrated attempt at a finished attempt's puzzle, from its start. An open
        unrated attempt of the member's is dropped for it; an open rated one is never
        given up by a Retry (a click on an old message must not fail it): the Retry is
        refused, naming it, and nothing changes.

        Raises:
            Refusal: ``puzzle.unknown``, ``puzzle.not_yours``, ``puzzle.still_open``,
                ``puzzle.retry.open_daily`` / ``puzzle.retry.open_training`` (a rated
                attempt is open: finish it first).
        """
        async with await self._member(user_id):
            attempt = await reading.checked(
                self.repo, await reading.mine(self.repo, user_id, attempt_id), self.clock()
            )
            if not attempt.over:
                raise Refusal("puzzle.still_open")
            if not in_set(attempt):  # a regenerated set dropped it: nothing to retry
                raise Refusal("puzzle.unknown")
            for _ in range(3):
                left = await reading.open_of(self.repo, user_id, self.clock())
                try:
                    if left is not None and left.rated:
                        raise records.rated_open(left)
                    if left is not None:
                        await self.repo.drop_puzzle_attempt(left.id)
                    again = replace(
                        attempt, id=0, rated=False, started_at=self.clock(), moves=(),
                        status="open", outcome=None, finished_at=None, rating_before=None,
                        rating_after=None, retry_of=attempt.id,
                    )  # fmt: skip
                    return await self._view(await self.repo.insert_puzzle_attempt(again))
                except Conflict:  # another process moved or started one meanwhile
                    continue
            raise Refusal("puzzle.busy")

    async def share(
        self, user_id: int, attempt_id: int, guild_id: int | None, channel_id: int | None = None
    ) -> ShareLine:
        """The public line for a finished attempt of the member's, to post in
        ``channel_id``: where the server lets games be played (its allowed channels).

        Raises:
            Refusal: ``puzzle.unknown``, ``puzzle.not_yours``, ``puzzle.still_open``,
                ``puzzle.off``, ``puzzle.share.channel``, ``puzzle.share.again``
                (Share was pressed on this attempt before: one public line each).
        """
        rules = await self.policies.policy(guild_id)
        if not rules.puzzles:
            raise Refusal("puzzle.off")
        allowed = rules.allowed_channels
        if channel_id is not None and allowed and channel_id not in allowed:
            channels = ", ".join(f"<#{c}>" for c in allowed)
            raise Refusal("puzzle.share.channel", channels=channels)
        async with await self._member(user_id):
            attempt = await reading.checked(
                self.repo, await reading.mine(self.repo, user_id, attempt_id), self.clock()
            )
            if not attempt.over:
                raise Refusal("puzzle.still_open")
            return await records.share_line(self.repo, attempt)

    async def player(self, user_id: int) -> PuzzlePlayer | None:
        """The member's puzzle record (None: never finished one): /ttt stats."""
        return await records.player_record(self.repo, user_id, self.clock())

    async def leaderboard(self, guild_id: int, limit: int = 10) -> PuzzleBoard:
        """The members with a rated attempt through this server and an established
        rating (deviation at most :data:`PROVISIONAL` once grown for their time away, as
        lichess ranks only those), by puzzle rating; and how many are provisional.

        Raises:
            Refusal: ``puzzle.off`` (the server turned puzzles off).
        """
        if not (await self.policies.policy(guild_id)).puzzles:
            raise Refusal("puzzle.off")
        return await self.repo.puzzle_leaderboard(
            guild_id, limit, self.clock(), GROWTH, PROVISIONAL
        )

    # --- reading and showing -----------------------------------------------------------

    async def _view(
        self, attempt: Attempt, *, resumed: bool = False, stale: bool = False,
        solution: tuple[int, ...] = (), board: Position | None = None,
        player: PuzzlePlayer | None = None,
    ) -> PuzzleView:  # fmt: skip
        """The view of ``attempt``; ``board`` and ``player`` when the caller has them (a
        move's board, a finish's record with its streaks), else worked out and read."""
        self._open.keep(attempt)
        if attempt.status == "failed" and not solution:
            solution = await self._solutions.of(attempt)
        if attempt.over and player is None:
            player = await self.player(attempt.user_id)
        return view_of(attempt, solution, player if attempt.over else None, resumed, stale, board)
