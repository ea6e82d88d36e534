"""An ultimate game's board as the page shows it: each of the 81 squares named by its
small board and its place there, the small boards' states, the boards the mover may play
in and the line of boards that won. Everything here is asked of the board itself."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from bot.core.engine_advice import EngineHint
from bot.core.models import Game
from bot.core.review import cell_name
from bot.core.variants import Review
from bot.i18n import text
from bot.web.page_text import MARK_CUT, plain, texts
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
    """The Game fields of an ultimate board (docs/develop/activity-api.md): ``cells`` in cell
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


EMOJI = re.compile("^[\u2600-\u27bf\U0001f000-\U0001faff]\ufe0f? *")
"""An emoji opening a catalog text (the engine's warning): chat's decoration, which the
page leaves out rather than show an empty box."""


def hint_json(hint: EngineHint, locale: str) -> dict[str, Any]:
    """Ultimate's hint in chat's lines (render_ultimate.hint_text), but the grid: the
    page lights the square on its own board."""
    lines = [text("web.hint.title", locale, mark=MARK_CUT[hint.mark]),
             text("ultimate.hint.square", locale, square=grid_name(hint.cell),
                  board=text(f"ultimate.board.{hint.cell // 9}", locale),
                  percent=round(100 * hint.chances))]  # fmt: skip
    if hint.wins_game or hint.takes_board:
        lines.append(text("ultimate.hint.wins" if hint.wins_game else "ultimate.hint.takes",
                          locale))  # fmt: skip
    return texts([*lines, *_engine_note(locale)]) | {"cells": [hint.cell]}


def _engine_note(locale: str) -> list[str]:
    return [EMOJI.sub("", text("ultimate.engine_note", locale)),
            text("hint.legend", locale, last="I", size=9)]  # fmt: skip


def review_json(review: Review, locale: str) -> dict[str, Any]:
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
    return texts([line]) | {
        "ply": len(moves), "cells": shown["cells"], "best": [],
        "last_move": moves[-1] if moves else None, "board_statuses": shown["board_statuses"],
        "winning_boards": shown["winning_boards"],
    }  # fmt: skip


class UltimatePage:
    """This module as ultimate's page board (see :class:`~bot.web.boards.PageBoard`)."""

    def board_json(self, board: UltimateBoard, locale: str, running: bool) -> dict[str, Any]:
        return ultimate_json(board, locale, running)

    def square_name(self, board: UltimateBoard, cell: int) -> str:
        return grid_name(cell)

    def won_key(self, k: int) -> str:
        return "ultimate.won"

    def page_texts(self, locale: str) -> dict[str, str]:
        return {"variant.ultimate": text("web.ultimate.name", locale),
                "rules": text("web.ultimate.rules_title", locale),
                "rules.ultimate": text("web.ultimate.rules", locale)}  # fmt: skip

    def hint_json(self, game: Game, hint: EngineHint, locale: str) -> dict[str, Any]:
        return hint_json(hint, locale)

    def review_json(self, review: Review, locale: str) -> dict[str, Any]:
        return review_json(review, locale)


PAGE = UltimatePage()
