"""Puzzles: positions where the side to move forces a win, each one proven.

The engine's half of ttt's puzzles (the bot stores attempts, ratings and streaks):

- :mod:`engine.puzzles.proof`: the depth-bounded proof search (distance to a forced win,
  the winning moves within a bound, the longest defence), for every board;
- :mod:`engine.puzzles.records`: a puzzle as data and the shipped set
  (``engine/data/puzzles.jsonl``): :func:`load`, :func:`by_id`;
- :mod:`engine.puzzles.schedule`: the daily puzzle, :func:`daily` and :func:`number_of`;
- :mod:`engine.puzzles.play`: judging a member's move and the defender's reply;
- :mod:`engine.puzzles.refutations`: those judgements along a 5×5 puzzle's line, stored;
- :mod:`engine.puzzles.generate`: ``python -m engine puzzles generate`` makes the set.

>>> from engine import Board
>>> from engine.puzzles import distance
>>> distance(Board.from_string("XX.OO...."), 3)
1
"""

from __future__ import annotations

from engine.puzzles.play import Verdict, judge, reply, solves
from engine.puzzles.proof import (
    NotAWin,
    distance,
    longest_defence,
    main_line,
    move_wins,
    winning_moves,
)
from engine.puzzles.records import (
    KINDS,
    BadPuzzleFile,
    Puzzle,
    UnknownPuzzle,
    by_id,
    kind_of,
    load,
    parse_board,
)
from engine.puzzles.schedule import FIRST_DAY, ROTATION, NoDailyPuzzle, daily, day_of, number_of

__all__ = [
    "FIRST_DAY",
    "KINDS",
    "ROTATION",
    "BadPuzzleFile",
    "NoDailyPuzzle",
    "NotAWin",
    "Puzzle",
    "UnknownPuzzle",
    "Verdict",
    "by_id",
    "daily",
    "day_of",
    "distance",
    "judge",
    "kind_of",
    "load",
    "longest_defence",
    "main_line",
    "move_wins",
    "number_of",
    "parse_board",
    "reply",
    "solves",
    "winning_moves",
]
