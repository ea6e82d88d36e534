"""A classic game's board as the page shows it: the N×N squares, each named by its square,
and the winning line."""

from __future__ import annotations

from typing import Any

from bot.core.hints import REASONS, Hint
from bot.core.models import Game
from bot.core.review import cell_name
from bot.core.variants import Review
from bot.i18n import text
from bot.web.page_text import MARK_CUT, plain, texts
from engine import Board

HINT_VERDICTS = {1: "hint.verdict.win", 0: "hint.verdict.draw", -1: "hint.verdict.loss"}
MOVE_VERDICTS = {
    (1, 1): "verdict.keeps_win", (0, 0): "verdict.keeps_draw", (-1, -1): "verdict.keeps_loss",
    (1, 0): "verdict.win_to_draw", (1, -1): "verdict.win_to_loss", (0, -1): "verdict.draw_to_loss",
}  # fmt: skip
BEST_SHOWN = 6


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


def hint_json(game: Game, hint: Hint, locale: str) -> dict[str, Any]:
    """The best squares by their reason, with the exact verdict: a proof."""
    verdict = text(HINT_VERDICTS[hint.value], locale)
    lines = [text("web.hint.title", locale, mark=MARK_CUT[hint.mark])]
    for reason in REASONS:
        cells = hint.cells(reason)
        if cells:
            squares = ", ".join(cell_name(c, game.size) for c in cells)
            lines.append(text(f"hint.{reason}", locale, squares=squares, verdict=verdict))
    if not hint.complete:
        lines.append(text("hint.partial", locale))
    return texts(lines) | {"cells": list(hint.cells())}


def review_json(review: Review, locale: str) -> dict[str, Any]:
    """Each move with its verdict, and the board after it, to step through."""
    game = review.game
    board = ["."] * (game.size * game.size)
    empty = text("web.cell.empty", locale)
    steps: list[dict[str, Any]] = []
    for v, cell in zip(review.verdicts, game.moves, strict=False):
        board[cell] = v.mark
        line = text("review.move", locale, number=v.number, mark=MARK_CUT[v.mark],
                    square=cell_name(v.cell, game.size),
                    verdict=text(MOVE_VERDICTS[(v.before, v.after)], locale))  # fmt: skip
        if v.mistake:
            names = [cell_name(c, game.size) for c in v.best]
            more = len(names) > BEST_SHOWN or not v.complete
            squares = ", ".join(names[:BEST_SHOWN]) + (", …" if more else "")
            line += text("review.best", locale, squares=squares)
        cells = [{"mark": None if mark == "." else mark, "win": False,
                  "label": f"{cell_name(i, game.size)}, {empty if mark == '.' else mark}"}
                 for i, mark in enumerate(board)]  # fmt: skip
        best = list(v.best) if v.mistake else []
        steps.append(texts([line]) | {"ply": v.number, "cells": cells, "best": best,
                                       "last_move": cell})  # fmt: skip
    mistakes = sum(v.mistake for v in review.verdicts)
    summary = text("review.summary", locale, count=mistakes) if mistakes else text(
        "review.clean", locale)  # fmt: skip
    return {"steps": steps, "summary": plain(summary)}


class ClassicPage:
    """This module as the classic boards' page board (see :class:`~bot.web.boards.PageBoard`)."""

    def board_json(self, board: Board, locale: str, running: bool) -> dict[str, Any]:
        return classic_json(board, locale, running)

    def square_name(self, board: Board, cell: int) -> str:
        return cell_name(cell, board.size)

    def won_key(self, k: int) -> str:
        return "game.won" if k == 3 else "game.won_k"

    def page_texts(self, locale: str) -> dict[str, str]:
        return {}  # the sizes' names are every page's (the start form's choice)

    def hint_json(self, game: Game, hint: Hint, locale: str) -> dict[str, Any]:
        return hint_json(game, hint, locale)

    def review_json(self, review: Review, locale: str) -> dict[str, Any]:
        return review_json(review, locale)


PAGE = ClassicPage()
