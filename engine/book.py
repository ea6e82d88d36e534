"""The 5×5 opening book: hard's and unbeatable's move in every position they can meet early.

A live exact search of a sparse 5×5 board takes seconds in Python; from a few marks on
it takes a fraction of one. The book holds, for every position with at most
:data:`BOOK_DEPTH` marks that the bot can face (its own chosen moves, every reply of the
opponent, up to symmetry; as X from the empty board and as O after any first move),
the move it plays and the exact value of the position. Past the book the live search
takes over, so whatever the opponent does the bot never waits long and never guesses.

The moves are unbeatable's choice, made by the same exact search it runs live: among
the value-keeping moves, those that leave the most replies losing at once
(:func:`engine.expectimax.trap_ranking`), the lowest cell of the canonical orientation
on a tie. ``python -m engine book`` regenerates ``data/book_5x5.txt`` (deterministic:
the same file on every machine); ``tests/test_exact_book.py`` re-proves a sample.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from engine import exact, expectimax
from engine.board import Board

SIZE, K = 5, 4
BOOK_DEPTH = 8
"""Positions with at most this many marks are in the book."""
BOOK_PATH = Path(__file__).with_name("data") / "book_5x5.txt"

Entries = dict[int, tuple[int, int]]
"""canonical ``x | o << 25`` -> (move in the canonical orientation, value for the mover)."""

_loaded: Entries | None = None


def canonical(board: Board) -> tuple[int, tuple[int, ...]]:
    """The smallest image of ``x | o << cells`` under the 8 symmetries, and the
    symmetry (a cell permutation) that takes ``board`` there (the first, on a tie)."""
    geo = board.geometry
    found = exact.images(exact.exact_tables(geo), board.x | board.o << geo.cells)
    best = min(range(len(found)), key=found.__getitem__)
    return found[best], geo.symmetries[best]


def board_of(key: int) -> Board:
    cells = SIZE * SIZE
    return Board(SIZE, K, key & (1 << cells) - 1, key >> cells)


def entries() -> Entries:
    """The book, read from :data:`BOOK_PATH` on first use (empty if the file is missing)."""
    global _loaded
    if _loaded is None:
        _loaded = read(BOOK_PATH) if BOOK_PATH.exists() else {}
    return _loaded


def read(path: Path) -> Entries:
    """Parse a book file: ``<board string> <move> <value>`` per line, ``#`` comments."""
    found: Entries = {}
    for line in path.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        text, move, value = line.split()
        board = Board.from_string(text, K)
        found[board.x | board.o << SIZE * SIZE] = (int(move), int(value))
    return found


def find(board: Board, table: Entries, depth: int) -> tuple[int, int] | None:
    """``(exact value for the side to move, move in the board's own orientation)`` from
    ``table`` (canonical key -> (move, value), as the book and the sparse table hold
    them), or None when it does not hold ``board`` (or ``board`` has more than ``depth``
    marks)."""
    if (board.size, board.k) != (SIZE, K) or board.move_count > depth:
        return None
    key, perm = canonical(board)
    entry = table.get(key)
    if entry is None:
        return None
    move, found = entry
    return found, perm.index(move)


def held(board: Board) -> tuple[int, int] | None:
    """``(value, move)`` for ``board`` (any orientation) if the book holds it, else None."""
    return find(board, entries(), BOOK_DEPTH)


def lookup(board: Board) -> int | None:
    """The book move for ``board`` (any orientation), or None when it is not in the book."""
    found = held(board)
    return None if found is None else found[1]


def value(board: Board) -> int | None:
    """The exact value of ``board`` for the side to move if the book holds it, else None."""
    found = held(board)
    return None if found is None else found[0]


# --- generation --------------------------------------------------------------------------


def choose(key: int) -> tuple[int, int, int]:
    """``(key, move, value)`` for the canonical position ``key``: unbeatable's rule."""
    board = board_of(key)
    move = exact.first_keeping(board, expectimax.trap_ranking(board))
    return key, move, exact.board_value(board)


def replies(key: int, move: int) -> set[int]:
    """Canonical positions after ``move`` and each reply that leaves the game running."""
    after = board_of(key).play(move)
    if after.is_over():
        return set()
    found = set()
    for reply in after.legal_moves():
        child = after.play(reply)
        if not child.is_over():
            found.add(canonical(child)[0])
    return found


def generate(depth: int = BOOK_DEPTH, workers: int = 2, log: bool = True) -> Entries:
    """Every position the bot can meet with at most ``depth`` marks, and its move."""
    empty = Board.new(SIZE, K)
    levels: dict[int, set[int]] = {0: {canonical(empty)[0]}}
    levels[1] = {canonical(empty.play(cell))[0] for cell in empty.legal_moves()}
    book: Entries = {}
    with ProcessPoolExecutor(workers) as pool:
        for marks in range(depth + 1):
            began = time.perf_counter()
            keys = sorted(levels.get(marks, ()))
            for key, move, val in pool.map(choose, keys, chunksize=4):
                book[key] = (move, val)
                if marks + 2 <= depth:
                    levels.setdefault(marks + 2, set()).update(replies(key, move))
            if log:
                spent = time.perf_counter() - began
                print(f"{marks} marks: {len(keys)} positions in {spent:.1f} s", file=sys.stderr)
    return book


HEADER = "# ttt 5x5 (four in a row) opening book: python -m engine book"


def write(book: Entries, path: Path, depth: int, header: str = HEADER) -> None:
    lines = [
        header,
        f"# {len(book)} positions with at most {depth} marks; canonical orientation;",
        "# <board, row-major> <move> <exact value for the side to move>",
    ]
    lines += [
        f"{board_of(key).to_string()} {move} {val}" for key, (move, val) in sorted(book.items())
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine book", description=__doc__)
    parser.add_argument("--depth", type=int, default=BOOK_DEPTH)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=BOOK_PATH)
    args = parser.parse_args(argv)
    began = time.perf_counter()
    book = generate(args.depth, args.workers)
    write(book, args.out, args.depth)
    print(f"{len(book)} positions, {args.out.stat().st_size} bytes, "
          f"{time.perf_counter() - began:.0f} s", file=sys.stderr)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
