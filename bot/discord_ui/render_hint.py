"""What a hint looks like: the board with the best squares lit, each named (A1 is the
top-left square, as in reviews) with the reason it is best."""

from __future__ import annotations

from bot.core.hints import REASONS, Hint
from bot.core.models import Game
from bot.core.policy import Marks
from bot.core.review import cell_name
from bot.discord_ui.render_common import CLASSIC
from bot.i18n import text

HIGHLIGHTS = ("🟩", "💡")
"""A best square on the hint's grid: the first that is not one of the server's marks."""
VERDICTS = {1: "hint.verdict.win", 0: "hint.verdict.draw", -1: "hint.verdict.loss"}


def hint_grid(game: Game, hint: Hint, marks: Marks = CLASSIC) -> str:
    lit, board = set(hint.cells()), game.board
    highlight = next((h for h in HIGHLIGHTS if h not in (marks.x, marks.o, marks.empty)), "🔆")
    rows = []
    for row in range(board.size):
        cells = range(row * board.size, (row + 1) * board.size)
        rows.append("".join(highlight if c in lit else marks.of(board[c]) for c in cells))
    return "\n".join(rows)


def hint_text(game: Game, hint: Hint, locale: object = None, marks: Marks = CLASSIC) -> str:
    """The private answer to a Hint click: a title, the grid, one line per reason."""
    size = game.size
    verdict = text(VERDICTS[hint.value], locale)
    lines = [text("hint.title", locale, mark=marks.of(hint.mark))]
    lines.append(hint_grid(game, hint, marks))
    for reason in REASONS:
        cells = hint.cells(reason)
        if cells:
            squares = ", ".join(f"**{cell_name(c, size)}**" for c in cells)
            lines.append(text(f"hint.{reason}", locale, squares=squares, verdict=verdict))
    if not hint.complete:
        lines.append(text("hint.partial", locale))
    lines.append(text("hint.legend", locale, last=chr(ord("A") + size - 1), size=size))
    lines.append(text("hint.marked", locale))
    return "\n".join(lines)
