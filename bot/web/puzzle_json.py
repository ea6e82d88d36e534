"""A puzzle attempt as the page shows it (docs/develop/activity-api.md, "Puzzles"): the
board in the shape the page's board component draws for a game (``cells``, ``shape``
and, for ultimate, its small boards), and every line in the member's language. The
service decided all of it (:class:`~bot.core.puzzles.models.PuzzleView`); this words it.
"""

from __future__ import annotations

from typing import Any

from bot.core.puzzles.models import Attempt, PuzzleView
from bot.i18n import text
from bot.web.boards import PageBoard, board_of
from bot.web.page_text import MARK_CUT, letters, parts_of, plain
from engine.puzzles import parse_board

BOARD_NAMES = {"3x3": "choice.size.3", "4x4": "choice.size.4", "5x5": "choice.size.5",
               "ultimate": "web.ultimate.name"}  # fmt: skip
"""Each puzzle board's name, as the start form names the game's."""
CHOICES = ("any", *BOARD_NAMES)
"""The boards training may be asked for, in the page's order (``any``: the service picks)."""
PAGE_TEXTS = ("title", "daily", "train", "board", "continue", "retry", "back", "unrated")
"""The words of the page's own puzzle parts, ``web.puzzle.<key>`` (sent as ``puzzle.<key>``)."""


def page_texts(locale: str) -> dict[str, str]:
    """What the page's home and puzzle view say of their own, and the boards to train on."""
    texts = {f"puzzle.{key}": text(f"web.puzzle.{key}", locale) for key in PAGE_TEXTS}
    texts["puzzle.board.any"] = text("web.puzzle.any", locale)
    for kind, key in BOARD_NAMES.items():
        texts[f"puzzle.board.{kind}"] = text(key, locale)
    return texts


def other(mark: str) -> str:
    return "O" if mark == "X" else "X"


def puzzle_json(view: PuzzleView, locale: str) -> dict[str, Any]:
    """The Puzzle the page draws: the attempt's board as a game's, whose move it is, what
    the last move did, and once over the solution, the rating and the streak."""
    attempt = view.attempt
    board = parse_board(attempt.kind, view.board)
    page = board_of(board.variant)
    running = not attempt.over
    shown = page.board_json(board, locale, running)
    me = attempt.to_move
    line = _line(view, page, board, locale)
    goal = (text("web.puzzle.goal", locale, mark=MARK_CUT[me], n=view.moves_left) if running
            else text("web.puzzle.asked", locale, mark=MARK_CUT[me], n=attempt.n))  # fmt: skip
    solution = None
    if view.solution:
        steps = [f"{MARK_CUT[me if i % 2 == 0 else other(me)]} {page.square_name(board, cell)}"
                 for i, cell in enumerate(view.solution)]  # fmt: skip
        solution = text("web.puzzle.solution", locale, line=", ".join(steps))
    player = view.player
    rating = None
    if attempt.rating_before is not None and attempt.rating_after is not None:
        rating = {"before": round(attempt.rating_before), "after": round(attempt.rating_after)}
    record = _record(attempt, rating, player.streak if player else None, locale)
    return {
        "id": str(attempt.id), "puzzle": hidden(attempt), "kind": attempt.kind,
        "mode": attempt.mode, "number": view.number, "ply": attempt.ply, "n": attempt.n,
        "moves_left": view.moves_left, "you": me, "to_move": me if running else None,
        "can_move": running, "running": running, "status": attempt.status,
        "outcome": attempt.outcome, "rated": attempt.rated, "retry": attempt.retry_of is not None,
        "size": board.size, "last_move": attempt.moves[-1] if attempt.moves else None,
        "last_reply": view.last_reply, "solution": list(view.solution),
        "refutation": view.refutation, "rating": rating,
        "streak": player.streak if player is not None else None,
        "resumed": view.resumed,
        "title": title(attempt.mode, view.number, attempt.kind, locale),
        "actions": [] if running or attempt.outcome == "withdrawn" else ["retry"],
    } | _said("goal", goal) | _said("line", line) | _said("solution_text", solution) | {
        "record": record,
    } | shown  # fmt: skip


def hidden(attempt: Attempt) -> str | None:
    """The puzzle's id, or None while a rated attempt at it runs: the shipped set is
    public, so an id would let the page (or whoever reads its traffic) look the answer
    up. The page needs no id: it renders the cells and sends the attempt's."""
    return None if attempt.rated and not attempt.over else attempt.puzzle_id


def title(mode: str, number: int | None, kind: str, locale: str) -> str:
    """The attempt's heading: "Daily puzzle #12 · 5×5, four in a row"."""
    if mode == "daily" and number is not None:
        named = text("web.puzzle.daily_number", locale, number=number)
    else:
        named = text(f"web.puzzle.mode.{mode}", locale)
    return f"{named} · {text(BOARD_NAMES[kind], locale)}"


def _line(view: PuzzleView, page: PageBoard, board: Any, locale: str) -> str | None:
    """What the last move did, or None before any."""
    attempt = view.attempt
    me, moves = attempt.to_move, attempt.moves
    ours = moves[::2]  # the solver moves first, then each reply
    if attempt.outcome in ("expired", "withdrawn"):
        return text(f"web.puzzle.{attempt.outcome}", locale)
    if attempt.status == "solved":
        return text("web.puzzle.solved", locale, n=len(ours))
    if attempt.status == "failed":
        if not ours:
            return text("web.puzzle.failed", locale)
        square = page.square_name(board, ours[-1])
        if view.refutation is None:
            return text("web.puzzle.failed", locale)
        reply = page.square_name(board, view.refutation)
        key = "web.puzzle.slow" if attempt.outcome == "slow" else "web.puzzle.wrong"
        return text(key, locale, square=square, mark=MARK_CUT[other(me)], reply=reply,
                    n=attempt.n)  # fmt: skip
    if view.last_reply is not None:
        return text("web.puzzle.right", locale, mark=MARK_CUT[other(me)],
                    square=page.square_name(board, view.last_reply))  # fmt: skip
    return None


def _record(
    attempt: Attempt, rating: dict[str, int] | None, streak: int | None, locale: str
) -> str | None:
    """Once over: the rating's change (or that it was unrated) and the daily streak."""
    if not attempt.over:
        return None
    lines = [text("web.puzzle.rating", locale, **rating) if rating is not None
             else text("web.puzzle.unrated_end", locale)]  # fmt: skip
    if attempt.mode == "daily" and streak is not None:
        lines.append(text("web.puzzle.streak", locale, count=streak))
    return plain(" · ".join(lines))


def _said(name: str, line: str | None) -> dict[str, Any]:
    """A line as letters (``name``) and in parts (``name_parts``: marks apart, drawn)."""
    if line is None:
        return {name: None, f"{name}_parts": None}
    line = plain(line)
    return {name: letters(line), f"{name}_parts": parts_of(line)}
