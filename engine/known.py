"""5×5 answers from what is known before any search: the opening book and the sparse
table first, the exact search (:mod:`engine.exact`) only for the rest.

The value-keeping moves of a position are the slow question on 5×5: each move is its own
proof, and on an open board one proof can take seconds. :func:`keeping_within` answers it
the way a member waiting for a hint needs it: every move whose child the tables hold
costs a lookup; one keeping move comes with the value (from a table, or the root search
that proves the value); the other moves are proved one by one, centre first, until the
time given runs out (the search looks at the clock every thousand nodes or so). Every
move it lists keeps the value; ``complete`` says whether it judged them all.
"""

from __future__ import annotations

import time

from engine import book, exact, sparse
from engine.board import Board
from engine.search import BestMoves


def load() -> int:
    """Read the book and the sparse table and build the search's tables now (a worker
    started ahead of use calls this); returns the positions held."""
    exact.exact_tables(Board.new(5, 4).geometry)
    return len(book.entries()) + len(sparse.entries())


def held(board: Board) -> tuple[int, int] | None:
    """``(exact value, a move that keeps it)`` of a running 5×5 ``board`` if the book or
    the sparse table holds it, else None."""
    return book.held(board) or sparse.lookup(board)


def value(board: Board) -> int | None:
    """The exact value of a running 5×5 ``board`` if a table holds it, else None."""
    found = held(board)
    return None if found is None else found[0]


def value_and_move(board: Board) -> tuple[int, int]:
    """The exact value of a running 5×5 ``board`` and one move that keeps it."""
    return held(board) or exact.best_move(board)


def keeping_within(board: Board, seconds: float | None = None) -> BestMoves:
    """The value of a running 5×5 ``board`` and its value-keeping moves: every one when
    ``seconds`` is None, else those proven within about ``seconds`` (at least one)."""
    began = time.monotonic()
    legal = board.legal_moves()
    after: dict[int, int] = {}
    """Value for the mover after each move whose child is over or in a table."""
    for cell in legal:
        child = board.play(cell)
        outcome = child.outcome()
        if outcome is not None:
            after[cell] = 0 if outcome == "draw" else 1
        else:
            theirs = value(child)
            if theirs is not None:
                after[cell] = -theirs
    if len(after) == len(legal):
        top = max(after.values())
        return BestMoves(top, tuple(c for c in legal if after[c] == top), True)
    target, first = value_and_move(board)
    if target == -1:
        return BestMoves(-1, tuple(legal), True)  # every move keeps a lost game lost
    keep = {first} | {cell for cell, v in after.items() if v == target}
    order = exact.exact_tables(board.geometry).order
    todo = [cell for cell in order if cell in legal and cell not in after and cell != first]
    deadline = None if seconds is None else began + seconds
    for cell in todo:
        try:
            if exact.keeps(board, cell, target, deadline):
                keep.add(cell)
        except exact.OutOfTime:
            return BestMoves(target, tuple(sorted(keep)), False)
    return BestMoves(target, tuple(sorted(keep)), True)
