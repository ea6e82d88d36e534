"""The answers to the solver's other moves along a puzzle's main line, worked out once
and stored with the puzzle (its ``refutations``), so the bot judges them without a search.

A member's move off the stored line must be judged: whether it still wins in time (the
puzzle goes on), wins too slowly (SLOW) or gives the win up (WRONG), and the defender's
refutation. On 5×5 that asks the exact solver, about 4 ms of a core a move, in the
engine pool: a wrong 5×5 click cost the bot 2.1× a game click (bench/puzzle_clicks.py).
Along the main line there are few such moves (the solver's ``n`` positions, about twenty
moves each: 63 a puzzle on average), so the generator judges each once.

``refutations[i]`` answers the position after ``line[:2 * i]`` (the solver to move),
one character per cell:

- ``.``: no stored answer: the cell is taken, or it is the line's move, or another move
  that still wins in time (the search answers it, and follows the member off the line);
- ``a``, ``b``, … (cell 0, 1, …): WRONG, the defender's refutation on that cell;
- ``A``, ``B``, …: SLOW (it still wins, not in time), refuted on that cell;
- ``#``: WRONG, and the move ended the game (a draw): nothing to reply.

Stored for :data:`REFUTED_KINDS` only: on 3×3 and 4×4 a wrong click searched already
costs no more than a game click (the bench's table), and ultimate's 81 cells times its
positions would double the file for a click at a quarter of a game click's cost.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

from engine.puzzles.play import Verdict, judge, reply
from engine.puzzles.records import Puzzle, PuzzleBoard

REFUTED_KINDS = frozenset({"5x5"})
NONE, ENDED = ".", "#"


def encode(verdict: Verdict, refutation: int | None) -> str:
    """The character for a judged move (see the module)."""
    if verdict is Verdict.RIGHT:
        return NONE
    if refutation is None:
        if verdict is not Verdict.WRONG:
            raise ValueError("a slow move leaves the game running: it has a refutation")
        return ENDED
    return chr((ord("a") if verdict is Verdict.WRONG else ord("A")) + refutation)


def decode(char: str) -> tuple[Verdict, int | None] | None:
    """A stored character's verdict and refutation; None for no stored answer.

    Raises:
        ValueError: a character no answer is written as.
    """
    if char == NONE:
        return None
    if char == ENDED:
        return Verdict.WRONG, None
    if "a" <= char <= "z":
        return Verdict.WRONG, ord(char) - ord("a")
    if "A" <= char <= "Z":
        return Verdict.SLOW, ord(char) - ord("A")
    raise ValueError(f"{char!r} is no stored answer")


def work_out(board: PuzzleBoard, n: int, line: Sequence[int]) -> tuple[str, ...]:
    """The refutations of the puzzle at ``board`` (a win within ``n``, main line
    ``line``): a search of every other legal move of the solver along the line."""
    answers = []
    for i in range(n):
        left = n - i
        played = line[2 * i]
        chars = [NONE] * board.cell_count
        for cell in board.legal_moves():
            if cell == played:
                continue
            verdict = judge(board, cell, left)
            if verdict is Verdict.RIGHT:
                continue
            after = board.play(cell)
            chars[cell] = encode(verdict, None if after.is_over() else reply(after, left - 1))
        answers.append("".join(chars))
        if i + 1 < n:
            board = board.play(played).play(line[2 * i + 1])
    return tuple(answers)


def stored(puzzle: Puzzle, moves: Sequence[int], cell: int) -> tuple[Verdict, int | None] | None:
    """The stored verdict and refutation of the solver's ``cell`` after ``moves`` from
    the puzzle's position; None where none is stored (off the line, or a winning move).

    Raises:
        ValueError: the stored string is damaged.
    """
    ply = len(moves)
    if not puzzle.refutations or ply % 2 or ply // 2 >= len(puzzle.refutations):
        return None
    if tuple(moves) != puzzle.line[:ply]:
        return None
    row = puzzle.refutations[ply // 2]
    return decode(row[cell]) if 0 <= cell < len(row) else None


def _refuted(puzzle: Puzzle) -> Puzzle:
    return replace(puzzle, refutations=work_out(puzzle.board(), puzzle.n, puzzle.line))


def with_refutations(puzzles: Iterable[Puzzle], workers: int = 1) -> list[Puzzle]:
    """``puzzles``, those of :data:`REFUTED_KINDS` that lack refutations given them
    (``workers`` processes; the order kept)."""
    given = list(puzzles)
    todo = [i for i, p in enumerate(given) if p.kind in REFUTED_KINDS and not p.refutations]
    if workers <= 1 or not todo:
        done = [_refuted(given[i]) for i in todo]
    else:
        with ProcessPoolExecutor(workers) as pool:
            done = list(pool.map(_refuted, [given[i] for i in todo], chunksize=8))
    for i, puzzle in zip(todo, done, strict=True):
        given[i] = puzzle
    return given
