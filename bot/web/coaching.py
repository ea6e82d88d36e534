"""A hint and a review as the page shows them: the same catalog texts as in chat,
without Discord's markdown, and the squares to light. Each text comes twice: ``text``
with the marks as letters, and ``parts`` with the marks apart, which the page draws as
its board does (an emoji would be an empty box without a colour emoji font)."""

from __future__ import annotations

from typing import Any

from bot.core.hints import REASONS, Hint
from bot.core.models import Game
from bot.core.records import Review
from bot.core.review import cell_name
from bot.i18n import text
from bot.web.game_json import MARK_CUT, letters, parts_of, plain

HINT_VERDICTS = {1: "hint.verdict.win", 0: "hint.verdict.draw", -1: "hint.verdict.loss"}
MOVE_VERDICTS = {
    (1, 1): "verdict.keeps_win", (0, 0): "verdict.keeps_draw", (-1, -1): "verdict.keeps_loss",
    (1, 0): "verdict.win_to_draw", (1, -1): "verdict.win_to_loss", (0, -1): "verdict.draw_to_loss",
}  # fmt: skip
BEST_SHOWN = 6


def hint_json(game: Game, hint: Hint, locale: str) -> dict[str, Any]:
    verdict = text(HINT_VERDICTS[hint.value], locale)
    lines = [text("web.hint.title", locale, mark=MARK_CUT[hint.mark])]
    for reason in REASONS:
        cells = hint.cells(reason)
        if cells:
            squares = ", ".join(cell_name(c, game.size) for c in cells)
            lines.append(text(f"hint.{reason}", locale, squares=squares, verdict=verdict))
    if not hint.complete:
        lines.append(text("hint.partial", locale))
    line = plain("\n".join(lines))
    return {"text": letters(line), "parts": parts_of(line), "cells": list(hint.cells())}


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
        line = plain(line)
        best = list(v.best) if v.mistake else []
        steps.append({"ply": v.number, "cells": cells, "text": letters(line),
                      "parts": parts_of(line), "best": best, "last_move": cell})  # fmt: skip
    mistakes = sum(v.mistake for v in review.verdicts)
    summary = text("review.summary", locale, count=mistakes) if mistakes else text(
        "review.clean", locale)  # fmt: skip
    return {"steps": steps, "summary": plain(summary)}
