"""What the interfaces are shown of an attempt (:class:`PuzzleView`): the board it is
at, the defender's last reply, and once failed the solution, a set puzzle's stored line
or an own-game puzzle's worked out once by the engine (:class:`Solutions`)."""

from __future__ import annotations

from bot.core.puzzles.engine_calls import PuzzleEngine, board_after
from bot.core.puzzles.finish import in_set
from bot.core.puzzles.models import Attempt, PuzzlePlayer, PuzzleView
from engine.puzzles import Puzzle, by_id, load
from engine.puzzles.records import PuzzleBoard
from engine.puzzles.schedule import schedule


def set_puzzle(attempt: Attempt) -> Puzzle | None:
    """The set's puzzle of an attempt (None: an own-game puzzle, or one the set no
    longer holds)."""
    return by_id(attempt.puzzle_id) if attempt.mode != "own" and in_set(attempt) else None


def set_line(attempt: Attempt) -> tuple[int, ...]:
    """The stored main line of a set puzzle (an own-game puzzle, or one the set no
    longer holds, has none)."""
    puzzle = set_puzzle(attempt)
    return () if puzzle is None else puzzle.line


class Solutions:
    """Failed attempts' solutions: a set puzzle's stored line, an own-game puzzle's main
    line from ``engine`` (kept per position, so it is searched once a process)."""

    def __init__(self, engine: PuzzleEngine) -> None:
        self.engine = engine
        self._own: dict[tuple[str, str, int], tuple[int, ...]] = {}

    async def of(self, attempt: Attempt) -> tuple[int, ...]:
        """Raises: Refusal: ``puzzle.busy`` (an own-game puzzle's search)."""
        if attempt.mode != "own":
            return set_line(attempt)
        key = (attempt.kind, attempt.position, attempt.n)
        if key not in self._own:
            self._own[key] = await self.engine.solution(attempt)
        return self._own[key]


def view_of(
    attempt: Attempt, solution: tuple[int, ...], player: PuzzlePlayer | None,
    resumed: bool = False, stale: bool = False, board: PuzzleBoard | None = None,
) -> PuzzleView:  # fmt: skip
    """The view of ``attempt`` (``solution`` shown only once it failed); ``board``: the
    board after its moves, when the caller played them already."""
    moves = attempt.moves
    if board is None:
        board = board_after(attempt.kind, attempt.position, moves)
    reply = moves[-1] if moves and len(moves) % 2 == 0 else None
    refutation = reply if attempt.outcome in ("wrong", "slow") else None
    return PuzzleView(
        attempt, board.to_string(), attempt.n - (len(moves) + 1) // 2, reply,
        solution if attempt.status == "failed" else (), refutation, attempt.daily, player,
        resumed, stale,
    )  # fmt: skip


def read_set() -> None:
    """Read the shipped set, its index by id and the schedule (each cached per process)."""
    by_id(load()[0].id)
    schedule()
