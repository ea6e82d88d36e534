"""An ultimate game's board as the page shows it: each of the 81 squares named by its
small board and its place there, the small boards' states, the boards the mover may play
in and the line of boards that won. Everything here is asked of the board itself."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from bot.core.review import cell_name
from bot.i18n import text
from engine.ultimate.board import BoardStatus, UltimateBoard, board_square, to_rowcol


def board_name(board: int) -> str:
    """A small board's name in the big grid, as a square's in its board (B2 the centre)."""
    return cell_name(board, 3)


def grid_name(cell: int) -> str:
    """A square's name on the 9×9 grid, as chat's hints and reviews name it: columns A–I
    from the left, rows 1–9 from the top (the centre square E5)."""
    row, col = to_rowcol(cell)
    return cell_name(row * 9 + col, 9)


def ultimate_json(board: UltimateBoard, locale: str, running: bool) -> dict[str, Any]:
    """The Game fields of an ultimate board (docs/activity-api.md): ``cells`` in cell
    order (board by board), each with its ``board`` and ``square``; ``board_statuses``,
    ``playable_boards``, ``winning_boards``, ``where`` (whither the mover is sent), and its
    ``shape`` as the start form names it."""
    statuses = board.board_statuses()
    legal = set(board.legal_moves()) if running else set()
    last = board.last_move
    cells = []
    for cell in range(board.cell_count):
        b, s = board_square(cell)
        mark = board[cell]
        cells.append({"mark": mark, "label": square_label(locale, cell, mark, statuses[b],
                      cell == last), "win": False, "legal": cell in legal, "board": b,
                      "square": s})  # fmt: skip
    forced = board.forced_board
    where = None
    if running:
        where = (text("web.ultimate.anywhere", locale) if forced is None
                 else text("web.ultimate.where", locale,
                      board=text(f"ultimate.board.{forced}", locale)))  # fmt: skip
    return {
        "cells": cells, "board_statuses": list(statuses),
        "playable_boards": board.playable_boards() if running else [],
        "winning_boards": board.winning_boards() or [], "where": where,
        "shape": text("web.ultimate.name", locale),
    }  # fmt: skip


@lru_cache(maxsize=16_384)
def square_label(locale: str, cell: int, mark: str | None, status: BoardStatus, last: bool) -> str:
    """What a screen reader hears of a square: "board B2, square A1, empty", then whether
    its board is won or full and whether it holds the last move. Kept (a page shows
    81 of them on every move, and each of a locale's 1,944 is one of few)."""
    b, s = board_square(cell)
    words = [text("web.ultimate.cell", locale, board=board_name(b), square=cell_name(s, 3),
                  content=mark or text("web.cell.empty", locale))]  # fmt: skip
    if status == "draw":
        words.append(text("web.ultimate.full", locale))
    elif status is not None:
        words.append(text("web.ultimate.won", locale, mark=status))
    if last:
        words.append(text("web.ultimate.last", locale))
    return ", ".join(words)
