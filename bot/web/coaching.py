"""A hint and a review as the page shows them: the same catalog texts as in chat,
without Discord's markdown, and the squares to light. Each text comes twice: ``text``
with the marks as letters, and ``parts`` with the marks apart, which the page draws as
its board does (an emoji would be an empty box without a colour emoji font).

Ultimate's are the engine's judgement, not a proof (:mod:`bot.core.engine_advice`), and
say so in the chat's words; its squares are named on the 9×9 grid as in chat."""

from __future__ import annotations

import re
from typing import Any

from bot.core.engine_advice import EngineHint
from bot.core.hints import REASONS, Hint
from bot.core.models import Game
from bot.core.records import Review
from bot.core.review import cell_name
from bot.i18n import text
from bot.web.game_json import MARK_CUT, letters, parts_of, plain
from bot.web.ultimate_json import grid_name, ultimate_json
from engine import UltimateBoard

HINT_VERDICTS = {1: "hint.verdict.win", 0: "hint.verdict.draw", -1: "hint.verdict.loss"}
MOVE_VERDICTS = {
    (1, 1): "verdict.keeps_win", (0, 0): "verdict.keeps_draw", (-1, -1): "verdict.keeps_loss",
    (1, 0): "verdict.win_to_draw", (1, -1): "verdict.win_to_loss", (0, -1): "verdict.draw_to_loss",
}  # fmt: skip
BEST_SHOWN = 6
EMOJI = re.compile("^[\u2600-\u27bf\U0001f000-\U0001faff]\ufe0f? *")
"""An emoji opening a catalog text (the engine's warning): chat's decoration, which the
page leaves out rather than show an empty box."""


def hint_json(game: Game, hint: Hint | EngineHint, locale: str) -> dict[str, Any]:
    if isinstance(hint, EngineHint):
        return engine_hint_json(hint, locale)
    verdict = text(HINT_VERDICTS[hint.value], locale)
    lines = [text("web.hint.title", locale, mark=MARK_CUT[hint.mark])]
    for reason in REASONS:
        cells = hint.cells(reason)
        if cells:
            squares = ", ".join(cell_name(c, game.size) for c in cells)
            lines.append(text(f"hint.{reason}", locale, squares=squares, verdict=verdict))
    if not hint.complete:
        lines.append(text("hint.partial", locale))
    return _texts(lines) | {"cells": list(hint.cells())}


def engine_hint_json(hint: EngineHint, locale: str) -> dict[str, Any]:
    """Ultimate's hint in chat's lines (render_ultimate.hint_text), but the grid: the
    page lights the square on its own board."""
    lines = [text("web.hint.title", locale, mark=MARK_CUT[hint.mark]),
             text("ultimate.hint.square", locale, square=grid_name(hint.cell),
                  board=text(f"ultimate.board.{hint.cell // 9}", locale),
                  percent=round(100 * hint.chances))]  # fmt: skip
    if hint.wins_game or hint.takes_board:
        lines.append(text("ultimate.hint.wins" if hint.wins_game else "ultimate.hint.takes",
                          locale))  # fmt: skip
    return _texts([*lines, *_engine_note(locale)]) | {"cells": [hint.cell]}


def _engine_note(locale: str) -> list[str]:
    return [EMOJI.sub("", text("ultimate.engine_note", locale)),
            text("hint.legend", locale, last="I", size=9)]  # fmt: skip


def _texts(lines: list[str]) -> dict[str, Any]:
    line = plain("\n".join(lines))
    return {"text": letters(line), "parts": parts_of(line)}


def review_json(review: Review, locale: str) -> dict[str, Any]:
    """Each move with its verdict, and the board after it, to step through; on ultimate,
    the moves the engine found costliest, in the order played."""
    if review.judged is not None:
        return _judged_json(review, locale)
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
        steps.append(_texts([line]) | {"ply": v.number, "cells": cells, "best": best,
                                       "last_move": cell})  # fmt: skip
    mistakes = sum(v.mistake for v in review.verdicts)
    summary = text("review.summary", locale, count=mistakes) if mistakes else text(
        "review.clean", locale)  # fmt: skip
    return {"steps": steps, "summary": plain(summary)}


def _judged_json(review: Review, locale: str) -> dict[str, Any]:
    """An ultimate game's review in chat's words (render_ultimate.review_text): a step
    for each costly move, the board after it with the engine's move lit; a game without
    one shows its final board and says so."""
    moves = review.game.moves
    steps: list[dict[str, Any]] = []
    for move in sorted(review.judged or (), key=lambda m: m.ply):
        line = text("ultimate.review.move", locale, number=move.ply + 1,
                    mark=MARK_CUT[move.player], square=grid_name(move.move),
                    preferred=grid_name(move.preferred), before=round(100 * move.before),
                    after=round(100 * move.after))  # fmt: skip
        steps.append(_step(moves[: move.ply + 1], line, locale) | {"best": [move.preferred]})
    if not steps:
        steps.append(_step(moves, text("ultimate.review.clean", locale), locale))
    return {"steps": steps, "summary": plain("\n".join(_engine_note(locale)))}


def _step(moves: tuple[int, ...], line: str, locale: str) -> dict[str, Any]:
    board = UltimateBoard()
    for cell in moves:
        board = board.play(cell)
    shown = ultimate_json(board, locale, running=False)
    return _texts([line]) | {
        "ply": len(moves), "cells": shown["cells"], "best": [],
        "last_move": moves[-1] if moves else None, "board_statuses": shown["board_statuses"],
        "winning_boards": shown["winning_boards"],
    }  # fmt: skip
