"""The exact answers on every board the engine offers: the game value and the best moves.

Each question goes where it is answered best. Up to :data:`~engine.search.DEPTH_AWARE_CELLS`
cells (3×3, 4×4) the depth-aware search of :mod:`engine.search` gives the value and the
fastest win, else a draw, else the slowest loss. On 5×5 :mod:`engine.known` gives them:
the opening book's or the sparse table's value where one holds the position (seconds of
search spared on a sparse board), else the exact sign search of :mod:`engine.exact`, and
every move that keeps the value (any winning move counts, not only the fastest).

The choice is made here, above both, because the tables are built by the search
(:mod:`engine.book` ranks its moves with :mod:`engine.expectimax`): the search itself
never consults them.
"""

from __future__ import annotations

from engine import exact, known, search
from engine.board import Board
from engine.search import DEPTH_AWARE_CELLS, BestMoves


def best_moves(board: Board) -> list[int]:
    """Every move with the best depth-aware score: fastest win, else draw, else slowest
    loss. On boards past :data:`~engine.search.DEPTH_AWARE_CELLS`: every move that keeps
    the game value (exact, but any winning move counts, not only the fastest). Empty once
    the game is over."""
    if board.is_over():
        return []
    return list(best_moves_within(board).moves)


def best_moves_within(board: Board, seconds: float | None = None) -> BestMoves:
    """The game value of a running ``board`` and its best moves (as :func:`best_moves`).
    On 5×5, with ``seconds``, only those proven within about that long (at least one:
    see :func:`engine.known.keeping_within`); 3×3 and 4×4 are always complete."""
    if board.size * board.size > DEPTH_AWARE_CELLS:
        return known.keeping_within(board, seconds)
    return search.best_scored(board)


def solve(board: Board) -> int:
    """The exact game value for the side to move: +1 win, 0 draw, -1 loss (a finished
    game: 0 for a draw, else -1). Exact on every board size the engine offers; on 5×5
    the opening book's or the sparse table's value where one holds the position."""
    if board.size * board.size > DEPTH_AWARE_CELLS:
        found = None if board.is_over() else known.value(board)
        return exact.board_value(board) if found is None else found
    value = search.score(board)
    return (value > 0) - (value < 0)
