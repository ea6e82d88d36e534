"""Make the puzzle set: ``python -m engine puzzles generate --budget SECONDS``
(the command line: :mod:`engine.puzzles.regenerate`, ``--boards`` for some boards only).

Where the positions come from:

- 3×3: every reachable position (627 in play, up to symmetry), so the beginner set is
  complete: each position whose side to move wins within ``n >= 2`` and not sooner with
  exactly one first move that does (no agent filter: these are unrated).
- 4×4: every reachable position as well (1,135,214 in play, up to symmetry, walked by
  :mod:`engine.puzzles.walk`, within its share of the budget: the header's "games" for
  4×4 is the positions walked), with the filters below: so the 4×4 set is every puzzle
  there is, not a sample (1,224 of the 3,508 wins within 3 to 6 with one first move).
- 5×5 and ultimate: the positions reached in seeded games between the ladder's
  cheap agents, easy and random, each side playing easy's move or, with a chance drawn
  per game and side from :data:`NOISE`, a random one. Played games give positions a
  member could meet (a side that blundered into a forced loss); the noise spreads them
  over the game's whole range. Every position, up to symmetry, is proven: kept when its
  side to move wins within ``n`` (``MIN_N`` to ``MAX_N`` of :mod:`engine.puzzles.records`:
  3 to 6 on 4×4, 3 to 5 on 5×5, 2 to 3 on ultimate) and not sooner, exactly one first
  move does, and the ladder's agents (seeded :data:`AGENT_SEED`, playing the solver's
  side against the longest defence) do not all solve it: on 5×5 and ultimate the medium
  agent fails it, on 4×4 easy or medium does
  (:data:`~engine.puzzles.records.DROPPED_WHEN_SOLVED_BY`).
  (On ultimate the medium filter is this module's choice: the issue asks it of 4×4 and
  5×5; ultimate has thousands to spare, and those medium solves are one-look tactics.)

Deterministic: the set depends on the seed and on how many games each board played,
never on the clock. ``--budget`` bounds the run in CPU seconds of this process (so a
machine busy with other work takes longer, not makes less): each board stops at its
share of it (:data:`SHARES`, what an earlier board left over going on to the next) or
at its cap;
the file's header records the seed, the games each board played and the caps, and
``--again`` replays exactly that (the same bytes, however long it takes).
The schedule of daily puzzles is extended after the set is written
(:mod:`engine.puzzles.schedule`, append-only); puzzles that the schedule names are
kept in the set even if a run does not find them again.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from engine import exact
from engine.agent import BaseAgent
from engine.agents import get_agent
from engine.board import Board
from engine.puzzles.play import solves
from engine.puzzles.proof import Prover, main_line, prover_for
from engine.puzzles.records import (
    MAX_N,
    MIN_N,
    STARTS,
    Puzzle,
    PuzzleBoard,
    dropped,
    puzzle_id,
    seed_rating,
)
from engine.puzzles.walk import WALKED, every_position
from engine.ultimate.agents import UltimateMedium

SEED = 1
NOISE = (0.0, 0.25, 0.5, 1.0)
"""The chance, drawn per game and side, that a side plays a random move instead of easy's."""
AGENT_SEED = 0
"""The seed of the easy and medium agents that try each puzzle (a new agent each)."""
CAPS = {"3x3": 1000, "4x4": 2000, "5x5": 2000, "ultimate": 1500}
SHARES = {"3x3": 0.0, "ultimate": 0.05, "4x4": 0.2, "5x5": 0.75}
"""Each board's part of the budget, in the order boards are generated."""
MIN_MARKS = 4
"""Positions of the games with fewer marks are not tried: a forced win that early is
rare, and their searches cost the most."""
DEFAULT_BUDGET = 1200.0


@dataclass(frozen=True)
class Found:
    """One board's part of a run."""

    puzzles: list[Puzzle]
    games: int
    """Games played in full (or up to the cap), for the header."""


def agent(name: str, board: PuzzleBoard, seed: int = AGENT_SEED) -> BaseAgent[PuzzleBoard]:
    """A ladder agent for the board's game, made reproducible: ultimate's medium
    searches its full depth instead of stopping at a clock."""
    made: BaseAgent[Any] = get_agent(name, seed=seed, variant=board.variant)
    if isinstance(made, UltimateMedium):
        made.seconds = None
    return made


def unique_winner(prover: Prover[object], board: PuzzleBoard, n: int) -> int | None:
    """The only first move that wins within ``n``, or None if none or several do."""
    state = prover.game.state(board)
    found = None
    for move in prover.game.moves(state):
        if prover.move_wins(state, move, n):
            if found is not None:
                return None
            found = move
    return found


def no_win_at_all(board: PuzzleBoard) -> bool:
    """True when the exact sign search (:mod:`engine.exact`) shows that the side to move
    cannot win: on the k-in-a-row boards, past their sparse openings (always on 4×4),
    that is cheaper than the bounded search to say "no puzzle here"."""
    if not isinstance(board, Board) or (board.size > 4 and board.move_count < 8):
        return False
    return exact.board_value(board) != 1


def examine(board: PuzzleBoard, kind: str) -> Puzzle | None:
    """The puzzle a position makes (in its canonical orientation), or None."""
    prover = prover_for(board)
    if no_win_at_all(board):
        return None
    n = prover.distance(prover.game.state(board), MAX_N[kind])
    if n is None or n < MIN_N[kind] or unique_winner(prover, board, n) is None:
        return None
    key, image = prover.game.canonical(board)
    first = unique_winner(prover, image, n)
    assert first is not None  # a symmetry keeps distances and the number of winners
    solved_by = tuple(name for name in ("easy", "medium") if solves(agent(name, image), image, n))
    if dropped(kind, solved_by):
        return None
    line = tuple(main_line(image, n))
    assert line[0] == first
    choices = len(image.legal_moves())
    return Puzzle(
        id=puzzle_id(kind, key),
        kind=kind,
        position=image.to_string(),
        to_move=image.to_move,
        n=n,
        first=first,
        line=line,
        choices=choices,
        solved_by=solved_by,
        rating=seed_rating(n, choices, solved_by),
    )


def played_positions(kind: str, seed: int, game: int) -> Iterator[PuzzleBoard]:
    """The positions of one seeded game between easy and random (see the docstring)."""
    rng = random.Random(f"{seed}:{kind}:{game}")
    board = STARTS[kind]
    easy = agent("easy", board)
    noise = {"X": rng.choice(NOISE), "O": rng.choice(NOISE)}
    while not board.is_over():
        yield board
        if rng.random() < noise[board.to_move]:
            move = rng.choice(board.legal_moves())
        else:
            move = rng.choice(easy.candidates(board))
        board = board.play(move)


def from_games(
    kind: str, seed: int, games: int | None, deadline: float, cap: int,
    report: Callable[[str], None],
) -> Found:  # fmt: skip
    """Puzzles from seeded games: ``games`` of them, or (None) until the deadline (a
    ``time.process_time()``)."""
    seen: set[object] = set()
    puzzles: list[Puzzle] = []
    played = 0
    while (games is None and time.process_time() < deadline) or (
        games is not None and played < games
    ):
        for board in played_positions(kind, seed, played):
            if board.move_count < MIN_MARKS:
                continue
            key, _ = prover_for(board).game.canonical(board)
            if key in seen:
                continue
            seen.add(key)
            puzzle = examine(board, kind)
            if puzzle is not None:
                puzzles.append(puzzle)
                if len(puzzles) >= cap:
                    return Found(puzzles, played + 1)
        played += 1
        if played % 500 == 0:
            report(f"{kind}: {played} games, {len(puzzles)} puzzles")
    return Found(puzzles, played)


def generate(
    seed: int = SEED,
    budget: float = DEFAULT_BUDGET,
    games: dict[str, int] | None = None,
    caps: dict[str, int] | None = None,
    report: Callable[[str], None] = lambda _: None,
    boards: tuple[str, ...] = tuple(SHARES),
) -> tuple[dict[str, object], list[Puzzle]]:
    """The header and the puzzles of a run (see the module's docstring). With ``games``
    (a count per board, as a header records) the budget is ignored. Only ``boards`` are
    generated, sharing the whole budget in their shares' proportion; the header's
    ``games`` names only them (:func:`merged` puts a partial run into a whole set)."""
    caps = {**CAPS, **(caps or {})}
    start = time.process_time()
    puzzles: list[Puzzle] = []
    played: dict[str, int] = {}
    chosen = {kind: share for kind, share in SHARES.items() if kind in boards}
    whole = sum(chosen.values()) or 1.0
    spent_share = 0.0
    for kind, share in chosen.items():
        spent_share += share / whole
        count = None if games is None else games.get(kind, 0)
        deadline = start + budget * spent_share
        if kind in WALKED:  # "games": the positions walked
            found = Found(*every_position(kind, caps[kind], examine, count, deadline))
        else:
            found = from_games(kind, seed, count, deadline, caps[kind], report)
        played[kind] = found.games
        puzzles += found.puzzles
        source = "positions walked" if kind in WALKED else "games"
        report(f"{kind}: {len(found.puzzles)} puzzles from {found.games} {source}, "
               f"{time.process_time() - start:.0f} CPU s")  # fmt: skip
    header: dict[str, object] = {
        "seed": seed, "games": played, "caps": caps, "limits": MAX_N, "min_n": MIN_N,
        "again": "python -m engine puzzles generate --again",
    }  # fmt: skip
    return header, puzzles
