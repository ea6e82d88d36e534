"""The puzzle renderer without Discord: the endings the emulator tests do not reach (a
slow move, the 30 minutes), a 4×4 puzzle's rows, and an ultimate board's focus."""

from __future__ import annotations

from dataclasses import replace

from bot.core.puzzles.models import Attempt, PuzzleView
from bot.discord_ui import custom_ids, render_puzzle
from engine.puzzles import by_id, parse_board


def view_of(puzzle_id: str, moves: tuple[int, ...] = (), **fields: object) -> PuzzleView:
    """A view of a fresh daily attempt at ``puzzle_id`` after ``moves``."""
    puzzle = by_id(puzzle_id)
    board = parse_board(puzzle.kind, puzzle.position)
    for move in moves:
        board = board.play(move)
    attempt = Attempt(
        5, 1, puzzle.id, puzzle.kind, "daily", puzzle.position, puzzle.to_move, puzzle.n,  # type: ignore[arg-type]
        True, 0.0, None, daily=3, moves=moves,
    )  # fmt: skip
    view = PuzzleView(attempt, board.to_string(), puzzle.n - (len(moves) + 1) // 2)
    return replace(view, **fields) if fields else view  # type: ignore[arg-type]


def lines(view: PuzzleView) -> list[str]:
    message = render_puzzle.puzzle_message(view, "en")
    assert message.content is not None  # a legacy message (3×3, 4×4)
    return message.content.splitlines()


def test_a_slow_move_and_the_thirty_minutes_are_told_with_the_solution() -> None:
    puzzle = by_id("4x4-2ab889190e")  # daily #3: ❌ wins in 4, the main line starts at 12
    slow = replace(
        view_of(puzzle.id, (13, 3)).attempt, status="failed", outcome="slow",
        rating_before=1500.0, rating_after=1488.6,
    )  # fmt: skip
    view = view_of(puzzle.id, (13, 3), attempt=slow, refutation=3, solution=puzzle.line)
    said = lines(view)
    assert said[0] == "🧩 **Puzzle #3** · 4×4"
    assert said[5:] == [
        "🚫 **It wins, but not in 4.**",
        "⭕ answers **D1**.",
        "Solution: 1. ❌ A4 · 2. ⭕ D1 · 3. ❌ C4 · 4. ⭕ B4 · 5. ❌ C3 · 6. ⭕ A1 · 7. ❌ C1",
        "Columns A–D from the left, rows 1–4 from the top.",
        "Puzzle rating: 1500 → 1489 (−11).",
    ]
    expired = replace(view.attempt, outcome="expired", moves=(), rating_after=1490.2)
    said = lines(replace(view, attempt=expired, board=puzzle.position, refutation=None))
    assert said[5] == (
        "⌛ **Time is up**: a rated puzzle left open for 30 minutes counts as failed."
    )
    assert said[-1] == "Puzzle rating: 1500 → 1490 (−10)."


def test_a_4x4_puzzle_fits_a_legacy_message_with_retry_and_share() -> None:
    view = view_of("4x4-2ab889190e")
    rows = render_puzzle.puzzle_message(view, "en").view.to_components()
    assert len(rows) == 4 and all(len(r["components"]) == 4 for r in rows)
    over = replace(view.attempt, status="solved", outcome="solved")
    rows = render_puzzle.puzzle_message(replace(view, attempt=over), "en").view.to_components()
    assert len(rows) == 5  # Discord's limit of action rows
    assert [b["custom_id"] for b in rows[4]["components"]] == [
        custom_ids.retry(5),
        custom_ids.share(5),
    ]
    assert all(b["disabled"] for r in rows[:4] for b in r["components"])


def test_an_ultimate_focus_shows_only_a_board_that_may_be_chosen() -> None:
    view = view_of("ultimate-f544f418c8")  # daily #2: a free move
    chosen = render_puzzle.puzzle_message(view, "en", focus=4).view.to_components()
    ids = [custom_ids.parse(b["custom_id"]) for b in _buttons(chosen)]
    assert [c.cell for c in ids if isinstance(c, custom_ids.PuzzleCellClick)] == list(range(36, 45))
    assert custom_ids.PuzzleBoardClick(5, 0, None) in ids  # Back
    forced = view_of("ultimate-f544f418c8", (40,))  # ⭕ is sent to the centre board
    shown = render_puzzle.puzzle_message(forced, "en", focus=0).view.to_components()
    cells = [c.cell for c in map(custom_ids.parse, (b["custom_id"] for b in _buttons(shown)))
             if isinstance(c, custom_ids.PuzzleCellClick)]  # fmt: skip
    assert cells == list(range(36, 45))


def _buttons(components: list[dict]) -> list[dict]:
    found = []
    for component in components:
        if component.get("type") == 2:
            found.append(component)
        found += _buttons(component.get("components", []))
    return found
