"""What a puzzle looks like in Discord: its position as ttt's boards are shown, a line
saying who is to move and "win in N", and once it is over how it ended, with Retry and
Share.

The board is drawn as the games draw theirs, with their helpers: a 3×3 or 4×4 puzzle is
a legacy message (the emoji grid as its content, a button per square; Retry and Share
fit in the fifth row); a 5×5 one, whose squares fill the five rows, and an ultimate one
are a components-v2 layout as their games are (for ultimate the squares of the small
board to play, the nine boards first on a free move). The squares carry the puzzle's
own custom_ids (``ttt:p``...), which name the attempt and the ply shown.
"""

from __future__ import annotations

from typing import Any

import discord

from bot.core.policy import Marks
from bot.core.puzzles.glicko2 import PROVISIONAL
from bot.core.puzzles.models import PuzzleBoard, PuzzlePlayer, PuzzleView, ShareLine
from bot.core.review import cell_name
from bot.discord_ui import custom_ids
from bot.discord_ui.render_classic import MAX_ROWS, board_grid
from bot.discord_ui.render_common import (
    CLASSIC,
    Action,
    Drawn,
    GameMessage,
    UnlistenedLayout,
    button,
    square_item,
    square_payload,
)
from bot.discord_ui.render_ultimate import board_grid as ultimate_grid
from bot.discord_ui.render_ultimate import (
    board_legend,
    small_board_button,
    square_name,
    text_marks,
)
from bot.i18n import text
from engine import Board, UltimateBoard
from engine.puzzles import parse_board

Style = discord.ButtonStyle
FAILED = {"wrong": "puzzle.wrong", "slow": "puzzle.slow", "expired": "puzzle.expired",
          "abandoned": "puzzle.abandoned", "withdrawn": "puzzle.withdrawn"}  # fmt: skip
"""How a failed attempt ended, by its outcome."""


def board_label(kind: str, locale: object = None) -> str:
    """A puzzle's board as the games name theirs: ``5×5``, or ultimate."""
    if kind == "ultimate":
        return text("game.label.ultimate", locale)
    return text("game.label.classic", locale, size=int(kind[0]))


def title(view: PuzzleView, locale: object = None) -> str:
    """The first line: which puzzle (the daily's number, training, the member's own game),
    on which board, and whether it counts for the rating."""
    attempt = view.attempt
    board = board_label(attempt.kind, locale)
    if attempt.mode == "daily":
        number = view.number if view.number is not None else attempt.daily
        said = text("puzzle.title.daily", locale, number=number, board=board)
    else:
        said = text(f"puzzle.title.{attempt.mode}", locale, board=board)
    if attempt.retry_of is not None:
        return said + text("puzzle.title.retry", locale)
    return said if attempt.rated else said + text("puzzle.title.unrated", locale)


def square_of(kind: str, cell: int) -> str:
    """A square as the reviews name it: A1 top left, on the 9×9 grid for ultimate."""
    return square_name(cell) if kind == "ultimate" else cell_name(cell, int(kind[0]))


def legend(kind: str, locale: object = None) -> str:
    """How squares are named (the reviews' and the hints' line)."""
    size = 9 if kind == "ultimate" else int(kind[0])
    return text("hint.legend", locale, last=chr(ord("A") + size - 1), size=size)


def solution_line(view: PuzzleView, locale: object, marks: Marks) -> str:
    """The winning line, each move worded as the review words one: ``1. ❌ B2``."""
    attempt = view.attempt
    other = "O" if attempt.to_move == "X" else "X"
    sides = (attempt.to_move, other)
    moves = [
        text("puzzle.move", locale, number=i + 1, mark=marks.of(sides[i % 2]),
             square=square_of(attempt.kind, cell))
        for i, cell in enumerate(view.solution)
    ]  # fmt: skip
    return text("puzzle.solution", locale, line=" · ".join(moves))


def status_lines(view: PuzzleView, locale: object, marks: Marks) -> list[str]:
    """Who is to move and "win in N" while it is open; how it ended once over: solved, or
    failed with the refuting reply and the solution; the rating's change and the streak."""
    attempt = view.attempt
    mine, other = attempt.to_move, "O" if attempt.to_move == "X" else "X"
    if not attempt.over:
        return [text("puzzle.to_move", locale, mark=marks.of(mine), n=view.moves_left)]
    lines = []
    if attempt.status == "solved":
        used = (attempt.ply + 1) // 2  # the solver's moves: every other one, from the first
        lines.append(text("puzzle.solved", locale, mark=marks.of(mine), used=used, n=attempt.n))
    else:
        lines.append(text(FAILED.get(attempt.outcome or "wrong", "puzzle.wrong"), locale,
                          n=attempt.n))  # fmt: skip
        if view.refutation is not None:
            lines.append(text("puzzle.refuted", locale, mark=marks.of(other),
                              square=square_of(attempt.kind, view.refutation)))  # fmt: skip
        if view.solution:
            lines += [solution_line(view, locale, marks), legend(attempt.kind, locale)]
    before, after = attempt.rating_before, attempt.rating_after
    if attempt.rated and before is not None and after is not None:
        change = round(after) - round(before)
        lines.append(text("puzzle.rating", locale, before=round(before), after=round(after),
                          change=f"+{change}" if change >= 0 else f"−{-change}"))  # fmt: skip
    if attempt.mode == "daily" and view.player is not None:
        lines.append(text("puzzle.streak", locale, streak=view.player.streak))
    return lines


def content(view: PuzzleView, locale: object, marks: Marks, focus: int | None = None) -> str:
    """The message's text: title, (resumed), grid, the reply or where to play, status."""
    attempt = view.attempt
    board = parse_board(attempt.kind, view.board)
    lines = [title(view, locale)]
    if view.resumed:
        lines.append(text("puzzle.resumed", locale))
    grid_lines, shown = _GRIDS[board.variant](view, board, locale, marks, focus)
    lines += grid_lines
    return "\n".join([*lines, *status_lines(view, locale, shown)])


def _ultimate_grid(
    view: PuzzleView, board: Any, locale: object, marks: Marks, focus: int | None
) -> tuple[list[str], Marks]:
    """An ultimate puzzle's grid and legend, in marks that fit a message's text."""
    shown, attempt = text_marks(marks), view.attempt
    running = not attempt.over
    lines = [ultimate_grid(board, shown, focus, running=running, ended=attempt.over)]
    return [*lines, *board_legend(board, locale, shown, focus, running=running)], shown


def _classic_grid(
    view: PuzzleView, board: Any, locale: object, marks: Marks, focus: int | None
) -> tuple[list[str], Marks]:
    """A k-in-a-row puzzle's grid, and the defender's reply named (a refutation is said
    with the solution instead)."""
    attempt, lines = view.attempt, [board_grid(board, marks)]
    if view.last_reply is not None and view.refutation is None:
        other = "O" if attempt.to_move == "X" else "X"
        lines.append(text("puzzle.reply", locale, mark=marks.of(other),
                          square=square_of(attempt.kind, view.last_reply)))  # fmt: skip
    return lines, marks


_GRIDS = {"classic": _classic_grid, "ultimate": _ultimate_grid}
"""Each board's grid lines, by its variant (the registry this module asks, rather than
asking a board its type)."""


def end_actions(view: PuzzleView, locale: object) -> list[Action]:
    """Retry and Share once the attempt is over (none while it runs, nor on a puzzle
    withdrawn from the set)."""
    if not view.attempt.over or view.attempt.outcome == "withdrawn":
        return []
    attempt_id = view.attempt.id
    return [Action(custom_ids.retry(attempt_id), text("button.retry", locale), Style.primary),
            Action(custom_ids.share(attempt_id), text("button.share", locale),
                   Style.secondary)]  # fmt: skip


def square_look(view: PuzzleView, board: Board, cell: int, marks: Marks) -> tuple[Any, ...]:
    """A square's button: its custom_id, style, mark and whether it is disabled (taken,
    or the attempt over; the winning line green at the end)."""
    mark = board[cell]
    green = view.attempt.over and cell in (board.winning_line() or ())
    return (custom_ids.puzzle_cell(view.attempt.id, view.attempt.ply, cell),
            Style.success if green else Style.secondary, marks.of(mark) if mark else None,
            mark is not None or view.attempt.over)  # fmt: skip


def puzzle_message(
    view: PuzzleView, locale: object = None, marks: Marks = CLASSIC, focus: int | None = None
) -> GameMessage:
    """The puzzle's message as it stands (``focus``: on an ultimate free move, the small
    board the member looks into; ignored unless it may be played)."""
    board = parse_board(view.attempt.kind, view.board)
    return _MESSAGES[board.variant](view, board, locale, marks, focus)


def _classic(
    view: PuzzleView, board: Any, locale: object, marks: Marks, focus: int | None
) -> GameMessage:
    """As a k-in-a-row game's message: a button per square."""
    size = board.size
    if size < MAX_ROWS:  # a legacy message, as a 3×3 or 4×4 game's
        squares = [square_payload(*square_look(view, board, c, marks)) for c in range(size * size)]
        rows = [{"type": 1, "components": squares[r * size : (r + 1) * size]} for r in range(size)]
        ends = [action.payload() for action in end_actions(view, locale)]
        if ends:
            rows.append({"type": 1, "components": ends})
        return GameMessage(content(view, locale, marks), Drawn(rows))
    items = [square_item(*square_look(view, board, c, marks)) for c in range(size * size)]
    lines = [discord.ui.ActionRow[discord.ui.LayoutView](*items[r * size : (r + 1) * size])
             for r in range(size)]  # fmt: skip
    actions = [action.item() for action in end_actions(view, locale)]
    return _layout(content(view, locale, marks), lines, actions)


def _ultimate(
    view: PuzzleView, board: UltimateBoard, locale: object, marks: Marks, focus: int | None
) -> GameMessage:
    """As an ultimate game's message: the small board to play's squares, or the nine
    boards on a free move (a chosen one's squares with Back)."""
    attempt, running = view.attempt, not view.attempt.over
    if not running or board.forced_board is not None or focus not in board.playable_boards():
        focus = None
    small = board.forced_board if focus is None else focus
    if running and small is not None:
        buttons = []
        for cell in range(small * 9, small * 9 + 9):
            mark = board[cell]
            buttons.append(square_item(custom_ids.puzzle_cell(attempt.id, attempt.ply, cell),
                                       Style.secondary, marks.of(mark) if mark else None,
                                       mark is not None))  # fmt: skip
    else:
        winning = set(board.winning_boards() or ()) if not running else set()
        buttons = [small_board_button(board, b, custom_ids.puzzle_board(attempt.id, attempt.ply, b),
                                      marks, playable=running, winning=b in winning)
                   for b in range(9)]  # fmt: skip
    rows = [discord.ui.ActionRow[discord.ui.LayoutView](*buttons[r * 3 : r * 3 + 3])
            for r in range(3)]  # fmt: skip
    actions = [action.item() for action in end_actions(view, locale)]
    if focus is not None:
        back = button(custom_ids.puzzle_back(attempt.id, attempt.ply), text("button.back", locale),
                      Style.secondary)  # fmt: skip
        back.emoji = "↩️"
        actions.append(back)
    return _layout(content(view, locale, marks, focus), rows, actions)


def _layout(
    said: str, rows: list[discord.ui.ActionRow[discord.ui.LayoutView]],
    actions: list[discord.ui.Button[Any]],
) -> GameMessage:  # fmt: skip
    """One container: the text, the board's rows, the action row (as the games' layout)."""
    container = discord.ui.Container[discord.ui.LayoutView](discord.ui.TextDisplay(said), *rows)
    if actions:
        container.add_item(discord.ui.ActionRow(*actions))
    layout = UnlistenedLayout()
    layout.add_item(container)
    return GameMessage(None, layout)


def share_line(line: ShareLine, locale: object = None) -> str:
    """The one public line Share posts: who, which puzzle, the result, the daily streak;
    never a square."""
    if line.solved:
        result = text("puzzle.share.solved", locale, used=line.moves_used, n=line.n)
    else:
        result = text("puzzle.share.failed", locale, n=line.n)
    retry = text("puzzle.share.retry", locale) if line.retry else ""
    member = f"<@{line.user_id}>"
    if line.daily is None:
        return text("puzzle.share.other", locale, member=member, result=result, retry=retry,
                    board=board_label(line.kind, locale))  # fmt: skip
    streak = text("puzzle.share.streak", locale, streak=line.streak)
    return text("puzzle.share.daily", locale, member=member, number=line.daily, result=result,
                streak=streak, retry=retry)  # fmt: skip


def player_field(player: PuzzlePlayer, locale: object = None) -> tuple[str, str]:
    """/ttt stats' puzzle field: its name and value (rating, solved, tried, streak)."""
    return text("puzzle.stats.title", locale), text(
        "puzzle.stats.value", locale, rating=round(player.rating.rating), solved=player.solved,
        tried=player.tried, streak=player.streak, best=player.best_streak,
    )  # fmt: skip


def leaderboard_embed(
    board: PuzzleBoard, locale: object = None, colour: int = 0x5865F2
) -> discord.Embed:
    """A server's puzzle leaderboard: the members with a rated attempt through it and an
    established rating, then how many provisional ones are not ranked yet."""
    rows = [
        text("puzzle.board.row", locale, rank=i, name=f"<@{s.user_id}>", rating=round(s.rating),
             solved=s.solved, tried=s.tried)
        for i, s in enumerate(board.standings, start=1)
    ]  # fmt: skip
    if not rows:
        rows = [text("puzzle.board.none_established" if board.provisional
                     else "puzzle.board.empty", locale)]  # fmt: skip
    if board.provisional:
        rows.append(text("puzzle.board.provisional", locale, count=board.provisional,
                         deviation=round(PROVISIONAL)))  # fmt: skip
    return discord.Embed(
        title=text("board.title", locale, game=text("choice.game.puzzles", locale)),
        description=text("puzzle.board.rated", locale) + "\n" + "\n".join(rows),
        colour=colour,
    )


_MESSAGES = {"classic": _classic, "ultimate": _ultimate}
"""Each board's message, by its variant."""
