"""A classic game's board as the page shows it: the N×N squares, each named by its square,
and the winning line."""

from __future__ import annotations

from typing import Any

from bot.core.review import cell_name
from bot.i18n import text
from engine import Board


def classic_json(board: Board, locale: str, running: bool) -> dict[str, Any]:
    """The Game fields of an N×N board: ``cells`` row-major, each named by its square, and
    its ``shape`` as the start form names it ("3×3, three in a row")."""
    line = set() if running else set(board.winning_line() or ())
    legal = set(board.legal_moves()) if running else set()
    empty = text("web.cell.empty", locale)
    cells = []
    for cell in range(board.cell_count):
        mark = board[cell]
        cells.append({"mark": mark, "win": cell in line, "legal": cell in legal,
                      "label": f"{cell_name(cell, board.size)}, {mark or empty}"})  # fmt: skip
    return {"cells": cells, "shape": text(f"choice.size.{board.size}", locale)}


class ClassicPage:
    """This module as the classic boards' page board (see :class:`~bot.web.boards.PageBoard`)."""

    coached = True
    """Hints and reviews work out the classic boards exactly."""

    def board_json(self, board: Board, locale: str, running: bool) -> dict[str, Any]:
        return classic_json(board, locale, running)

    def won_key(self, k: int) -> str:
        return "game.won" if k == 3 else "game.won_k"

    def page_texts(self, locale: str) -> dict[str, str]:
        return {}  # the sizes' names are every page's (the start form's choice)


PAGE = ClassicPage()
