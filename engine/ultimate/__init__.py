"""Ultimate tic-tac-toe: another game behind the same interface as the k-in-a-row boards.

The rules object is :class:`UltimateBoard`; its search (Monte Carlo tree search, a
heuristic lookahead) and its agents live in this package, because no other game uses them.
"""

from __future__ import annotations

from engine.ultimate.board import (
    CELLS,
    UltimateBoard,
    board_square,
    cell_of,
    from_rowcol,
    to_rowcol,
)

__all__ = ["CELLS", "UltimateBoard", "board_square", "cell_of", "from_rowcol", "to_rowcol"]
