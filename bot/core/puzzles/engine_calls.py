"""The engine's work for puzzles, kept off the event loop.

A member's move is judged, and the defender's reply chosen, by :func:`judge_move`. While
the member's moves follow the puzzle's stored main line, the line says both (no search:
the generator proved it); a 5×5 puzzle's other moves along the line are answered by its
stored refutations (:func:`stored_judgement`). Past those (another winning move, a
mistake off the line, an own-game puzzle with no stored line) the proof search answers:
in the engine pool on 4×4, 5×5 and ultimate, where a judgement may take seconds (a 5×5
wrong move asks the exact solver whether it still wins), inline on 3×3 (microseconds)
and in a process without a pool (tests, a poolless run), as :mod:`bot.core.opponent`
decides for the bot's moves.

Every function the pool runs is module-level and takes plain values.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from bot.core.puzzles.models import Attempt, OwnPuzzle, PuzzleKind
from bot.core.refusals import Refusal
from engine import Board, EnginePool, PoolClosed
from engine.puzzles import Verdict, judge, main_line, move_wins, parse_board, reply, winning_moves
from engine.puzzles.proof import distance
from engine.puzzles.records import MAX_N, Puzzle, PuzzleBoard
from engine.puzzles.refutations import stored

T = TypeVar("T")
Searching = Callable[[], Awaitable[None]] | None
"""Called (awaited) just before work is sent to the pool, so an interface may defer its
answer only when one may take a while (as a hint's ``searching`` is)."""
Judgement = Literal["right", "solved", "wrong", "slow"]

TIME_LIMIT = 30.0
"""Seconds a judgement in the pool may take before the member is told the engine is
busy (a worker that died and was replaced, a queue of big searches)."""
OWN_SECONDS = 8.0
"""Seconds the scan of a member's games for a missed win may search before it gives up
(the newest games come first)."""
CLASSIC_KINDS: dict[tuple[int, int], PuzzleKind] = {(3, 3): "3x3", (4, 4): "4x4", (5, 4): "5x5"}
"""The classic boards (size, k) puzzles are set on."""


@dataclass(frozen=True, slots=True)
class Judged:
    """What a member's move did: ``right`` (the puzzle goes on: ``reply`` is the longest
    defence), ``solved``, or failed: ``wrong``/``slow`` with the refutation as ``reply``
    (None when the move ended the game) and the puzzle's ``solution``."""

    verdict: Judgement
    reply: int | None = None
    solution: tuple[int, ...] = ()


def board_after(kind: str, position: str, moves: Sequence[int]) -> PuzzleBoard:
    """The puzzle's board after ``moves``.

    Raises:
        ValueError: a bad position or an illegal move (engine.IllegalMove).
    """
    board = parse_board(kind, position)
    for move in moves:
        board = board.play(move)
    return board


def follows_line(moves: Sequence[int], cell: int, line: Sequence[int]) -> bool:
    """Whether ``moves`` then ``cell`` are the start of the stored main line."""
    ply = len(moves)
    return ply < len(line) and tuple(moves) == tuple(line[:ply]) and line[ply] == cell


def judge_move(
    kind: str, position: str, moves: tuple[int, ...], cell: int, n: int, line: tuple[int, ...],
    board: PuzzleBoard | None = None,
) -> Judged:  # fmt: skip
    """Judge the solver's legal ``cell`` after ``moves`` from the puzzle's ``position``
    (a win within ``n``; ``line`` its stored main line, or empty: an own-game puzzle,
    whose solution is then worked out here). ``board``: the board after ``moves``, when
    the caller has it (the pool is sent plain values and parses it).

    Raises:
        ValueError: an illegal move.
    """
    if follows_line(moves, cell, line):
        nxt = len(moves) + 1
        return Judged("solved") if nxt >= len(line) else Judged("right", line[nxt])
    board = board_after(kind, position, moves) if board is None else board
    after = board.play(cell)
    left = n - len(moves) // 2
    verdict = judge(board, cell, left)
    if verdict is Verdict.RIGHT:
        return Judged("solved") if after.is_over() else Judged("right", reply(after, left - 1))
    refutation = None if after.is_over() else reply(after, left - 1)
    solution = line or tuple(main_line(parse_board(kind, position), n))
    return Judged("wrong" if verdict is Verdict.WRONG else "slow", refutation, solution)


def stored_judgement(puzzle: Puzzle | None, moves: Sequence[int], cell: int) -> Judged | None:
    """The judgement of ``cell`` after ``moves`` that the set stores (a move off a 5×5
    puzzle's line, made while on it: wrong or slow, and its refutation); None where the
    set stores none (a search must answer)."""
    if puzzle is None or (found := stored(puzzle, moves, cell)) is None:
        return None
    verdict, refutation = found
    return Judged("wrong" if verdict is Verdict.WRONG else "slow", refutation, puzzle.line)


def solution_of(kind: str, position: str, n: int) -> tuple[int, ...]:
    """The main line of a win within ``n`` from ``position`` (an own-game puzzle's)."""
    return tuple(main_line(parse_board(kind, position), n))


GameSpec = tuple[int, int, int, tuple[int, ...], str]
"""A finished game as the scan takes it: ``(game id, size, k, moves, the member's mark)``."""


def find_own(games: Sequence[GameSpec], skip: frozenset[str], seconds: float) -> OwnPuzzle | None:
    """The first position, newest game first, where the member (to move) had a forced win
    of at least two of their moves and played a move that did not keep a win within
    that many, whose id (``own-<game>-<ply>``) is not in ``skip``; None when there is
    none.

    Raises:
        TimeoutError: the scan took longer than ``seconds`` (a cold 5×5 table, say).
    """
    until = time.monotonic() + seconds
    for game_id, size, k, moves, mark in games:
        kind = CLASSIC_KINDS.get((size, k))
        if kind is None:
            continue
        board = Board.new(size, k)
        for ply, played in enumerate(moves):
            if time.monotonic() > until:
                raise TimeoutError(f"no missed win found within {seconds} s")
            here, board = board, board.play(played)
            if here.to_move != mark or f"own-{game_id}-{ply}" in skip:
                continue
            d = distance(here, MAX_N[kind])
            if d is None or d < 2 or move_wins(here, played, d):
                continue
            return OwnPuzzle(
                game_id, ply, kind, here.to_string(), mark, d, played,
                tuple(winning_moves(here, d)),
            )  # fmt: skip
    return None


class PuzzleEngine:
    """Runs the puzzles' engine work where it belongs (see the module)."""

    def __init__(self, pool: EnginePool | None = None, seconds: float = TIME_LIMIT) -> None:
        self.pool = pool
        self.seconds = seconds
        self.searches = 0
        """Judgements and scans that searched (a move along the stored line does not)."""
        self.pooled = 0
        """Of those, the ones sent to the pool."""
        self._warm = False
        """Whether an inline search ran: the first builds the board's proof tables (3×3:
        ~0.2 s), so it runs on a thread, not on the event loop."""
        self._warming = asyncio.Lock()
        """Held by that first search: the searches asked meanwhile wait for its tables
        rather than each building them on a thread of its own."""

    async def _run(self, inline: bool, searching: Searching, fn: Callable[..., T], *args: Any) -> T:
        """Raises: Refusal: ``puzzle.busy`` (the pool did not answer in time, or broke)."""
        self.searches += 1
        try:
            if inline or self.pool is None:
                if not self._warm:
                    async with self._warming:
                        if not self._warm:
                            answer = await asyncio.to_thread(fn, *args)
                            self._warm = True
                            return answer
                return fn(*args)
            self.pooled += 1
            if searching is not None:
                await searching()
            return await self.pool.run(fn, *args, deadline=time.time() + self.seconds)
        except (TimeoutError, PoolClosed, BrokenProcessPool):
            raise Refusal("puzzle.busy") from None

    async def judge(
        self, attempt: Attempt, cell: int, puzzle: Puzzle | None, searching: Searching = None,
        board: PuzzleBoard | None = None,
    ) -> Judged:  # fmt: skip
        """Judge the member's ``cell`` on the attempt (a legal move) at the set's
        ``puzzle`` (None: an own-game puzzle, or one the set no longer holds); ``board``,
        the attempt's board as it stands, saves parsing it again where the judgement
        runs in this process.

        Raises:
            Refusal: ``puzzle.busy``.
        """
        line = () if puzzle is None else puzzle.line
        args = (attempt.kind, attempt.position, attempt.moves, cell, attempt.n, line)
        if follows_line(attempt.moves, cell, line):
            return judge_move(*args)  # the stored proof answers: no search
        known = stored_judgement(puzzle, attempt.moves, cell)
        if known is not None:
            return known  # the stored refutations answer: no search
        if attempt.kind == "3x3" or self.pool is None:  # here: the board needs no pickling
            return await self._run(True, searching, judge_move, *args, board)
        return await self._run(False, searching, judge_move, *args)

    async def solution(self, attempt: Attempt) -> tuple[int, ...]:
        """An own-game puzzle's main line (a set puzzle's is stored).

        Raises:
            Refusal: ``puzzle.busy``.
        """
        inline = attempt.kind == "3x3"
        return await self._run(inline, None, solution_of, attempt.kind, attempt.position, attempt.n)

    async def own(
        self, games: Sequence[GameSpec], skip: set[str], searching: Searching = None
    ) -> OwnPuzzle | None:
        """:func:`find_own` over the member's games (inline when all are 3×3).

        Raises:
            Refusal: ``puzzle.busy``.
        """
        inline = all(size == 3 for _, size, _, _, _ in games)
        skipped = frozenset(skip)
        return await self._run(inline, searching, find_own, tuple(games), skipped, OWN_SECONDS)
