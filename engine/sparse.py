"""The 5×5 sparse table: the exact value and one value-keeping move of every position
with at most :data:`SPARSE_DEPTH` marks.

The opening book (:mod:`engine.book`) holds only what the bot can meet: its own moves and
every reply. A game between two members, or a hint against easy, wanders anywhere, and
an open 5×5 board takes the live search seconds (up to tens of seconds with two or three
marks). This table holds every running position with at most :data:`SPARSE_DEPTH` marks
up to symmetry, so a value there is a lookup; one mark more, every child's value is one
too, so every value-keeping move of a position with fewer marks is known without search.

``python -m engine sparse`` regenerates ``data/sparse_5x5.txt``: the positions with
exactly :data:`SPARSE_DEPTH` marks are searched (:func:`engine.exact.best_move`: the
first move in centre-out order that keeps the value), those with fewer are derived from
their children (the lowest cell of the canonical orientation that keeps the value). The
file is the same on every machine; ``tests/test_exact_sparse.py`` checks a sample
against the independent solver and every derived entry against its children.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from engine import exact
from engine.board import Board
from engine.book import SIZE, Entries, board_of, canonical, find, read, write

SPARSE_DEPTH = 5
"""Positions with at most this many marks are in the table (77,519; 2.4 MB)."""
SPARSE_PATH = Path(__file__).with_name("data") / "sparse_5x5.txt"
HEADER = "# ttt 5x5 (four in a row) sparse table: python -m engine sparse"

_loaded: Entries | None = None


def entries() -> Entries:
    """The table, read from :data:`SPARSE_PATH` on first use (empty if it is missing)."""
    global _loaded
    if _loaded is None:
        _loaded = read(SPARSE_PATH) if SPARSE_PATH.exists() else {}
    return _loaded


def lookup(board: Board) -> tuple[int, int] | None:
    """``(value for the side to move, one value-keeping move)`` of ``board`` in its own
    orientation, or None when the table does not hold it."""
    return find(board, entries(), SPARSE_DEPTH)


# --- generation --------------------------------------------------------------------------


def levels(depth: int) -> list[set[int]]:
    """The canonical running positions with 0, 1, ..., ``depth`` marks."""
    found = [{canonical(Board.new(SIZE))[0]}]
    for _ in range(depth):
        below: set[int] = set()
        for key in found[-1]:
            board = board_of(key)
            for cell in board.legal_moves():
                child = board.play(cell)
                if not child.is_over():
                    below.add(canonical(child)[0])
        found.append(below)
    return found


def searched(key: int) -> tuple[int, int, int]:
    value, move = exact.best_move(board_of(key))
    return key, move, value


def derived(key: int, table: Entries) -> tuple[int, int]:
    """``(move, value)`` of ``key`` from its children's entries in ``table`` (no game
    ends before the seventh mark, so every child of a table position is running)."""
    board = board_of(key)
    best, chosen = -2, -1
    for cell in board.legal_moves():
        value = -table[canonical(board.play(cell))[0]][1]
        if value > best:
            best, chosen = value, cell
    return chosen, best


def generate(
    depth: int = SPARSE_DEPTH, workers: int = 2, log: bool = True, progress: Path | None = None
) -> Entries:
    """The table for ``depth``. With ``progress``, each searched position is appended to
    that file as it comes (``key move value``), and those already there are not searched
    again: a generation of hours can be stopped and taken up later."""
    by_marks = levels(depth)
    table: Entries = {}
    if progress is not None and progress.exists():
        for line in progress.read_text().splitlines():
            fields = line.split()
            if len(fields) == 3:  # a stop in mid-write leaves the last line cut short
                key, move, value = map(int, fields)
                table[key] = (move, value)
    began = time.perf_counter()
    keys = sorted(by_marks[depth] - table.keys())
    saved = None if progress is None else progress.open("a")
    try:
        with ProcessPoolExecutor(workers) as pool:
            found = pool.map(searched, keys, chunksize=8)
            for done, (key, move, value) in enumerate(found, 1):
                table[key] = (move, value)
                if saved is not None:
                    saved.write(f"{key} {move} {value}\n")
                if log and done % 500 == 0:
                    spent = time.perf_counter() - began
                    print(f"{done}/{len(keys)} searched in {spent:.0f} s", file=sys.stderr)
    finally:
        if saved is not None:
            saved.close()
    for marks in range(depth - 1, -1, -1):
        for key in sorted(by_marks[marks]):
            table[key] = derived(key, table)
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine sparse", description=__doc__)
    parser.add_argument("--depth", type=int, default=SPARSE_DEPTH)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=SPARSE_PATH)
    parser.add_argument(
        "--progress", type=Path, default=None,
        help="append searched positions here and take them up again after a stop",
    )  # fmt: skip
    args = parser.parse_args(argv)
    began = time.perf_counter()
    table = generate(args.depth, args.workers, progress=args.progress)
    write(table, args.out, args.depth, HEADER)
    print(f"{len(table)} positions, {args.out.stat().st_size} bytes, "
          f"{time.perf_counter() - began:.0f} s", file=sys.stderr)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
