"""Puzzles on the Activity's page, in a real browser against the real bot's web service
(see test_activity_live.py): today's daily started from the home view, "win in N", the
defender's reply after each click, a reload that finds the attempt open (the service's
``current``) and goes on with it, and the solved puzzle with its rating, streak and Retry.

``TTT_SCREENSHOTS=1`` writes docs/images/activity-puzzle-solved.png (the docs' puzzle
page shows it); otherwise it goes to the test's temporary folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_activity_member_limits import open_as

from bot.core.review import cell_name
from engine import Board

from activity_frame.fixtures import ActivityClient, ActivityPage
from discord_emulator import DiscordEmulator
from puzzle_harness import day_clock, puzzle_of
from web_harness import bot_with_web

DOCS = Path(__file__).resolve().parents[1] / "docs" / "images"
DAILY = 1
"""Daily #1 (2026-12-01): 5×5, X to move, a win in 4."""

pytestmark = pytest.mark.browser


async def open_home(client: ActivityClient, emu: DiscordEmulator, base: str, user) -> ActivityPage:
    """``user`` opens the Activity in the emulator's channel, as from the App Launcher,
    and sees the home view (no game runs there)."""
    return await open_as(client, emu, base, user, ready=".puzzles")


def square(board: Board, cell: int) -> str:
    """A square's label as the page names it: "C3, empty", "A5, O"."""
    mark = board[cell] or "empty"
    return f"{cell_name(cell, board.size)}, {mark}"


async def play(page: ActivityPage, board: Board, cell: int, reply: int | None) -> Board:
    """Click ``cell``; wait for it (and the defender's ``reply``) on the board."""
    await page.activity.get_by_role("button", name=square(board, cell), exact=True).click()
    board = board.play(cell)
    if reply is not None:
        board = board.play(reply)
        await page.activity.get_by_role("button", name=square(board, reply), exact=True).wait_for()
        line = page.activity.locator(".puzzle-line")
        assert await line.text_content() == f"Right! O answers {cell_name(reply, 5)}."
    return board


async def test_todays_puzzle_is_played_to_solved_by_clicking(
    activity_client: ActivityClient, emulator: DiscordEmulator, tmp_path: Path
) -> None:
    alice = emulator.create_user("alice")
    puzzle = puzzle_of(DAILY)
    line, board = puzzle.line, Board.from_string(puzzle.position)
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (bot, base, _http):
        bot.puzzles.clock = day_clock(DAILY)  # the day is the service's: 2026-12-01
        page = await open_home(activity_client, emulator, base, alice)
        daily = page.activity.locator('[data-key="puzzle-daily"]')
        assert await daily.inner_text() == "Today's puzzle\nDaily puzzle #1 · 5×5, four in a row"
        boards = page.activity.locator('select[name="puzzle-board"] option')
        assert await boards.all_inner_texts() == ["Any board", "3×3, three in a row",
            "4×4, four in a row", "5×5, four in a row", "Ultimate: nine boards in one"]  # fmt: skip
        await daily.click()
        await page.activity.get_by_role("grid").wait_for()
        goal = page.activity.locator(".puzzle-goal")
        assert await goal.text_content() == "X to move: win in 4 moves"  # the mark drawn
        assert await page.activity.locator(".puzzle-title").inner_text() == (
            "Daily puzzle #1 · 5×5, four in a row")  # fmt: skip
        assert await page.activity.locator(".board button").count() == 25
        board = await play(page, board, line[0], line[1])
        assert await goal.text_content() == "X to move: win in 3 moves"

        # A reload (Discord drops the page, or the member opens it again): the home view
        # offers the open attempt, which goes on where it stood.
        await page.page.reload()
        await page.activity.locator(".puzzles").wait_for()
        carry_on = page.activity.locator('[data-key="puzzle-continue"]')
        assert "X to move: win in 3 moves" in (await carry_on.text_content() or "")
        await carry_on.click()
        await page.activity.get_by_role(
            "button", name=square(board, line[1]), exact=True
        ).wait_for()
        board = await play(page, board, line[2], line[3])
        board = await play(page, board, line[4], line[5])
        board = await play(page, board, line[6], None)

        said = page.activity.locator(".puzzle-line")
        await said.get_by_text("Solved in 4 moves!").wait_for()
        assert await goal.text_content() == "X to win in 4 moves"
        won = page.activity.locator(".board button.win")
        assert await won.count() == 4
        record = await page.activity.locator(".puzzle-record").inner_text()
        player = await bot.puzzles.player(alice.id)
        assert player is not None and (player.solved, player.tried, player.streak) == (1, 1, 1)
        rating = round(player.rating.rating)
        assert record == f"Puzzle rating: 1500 → {rating} · Daily streak: 1 day"
        squares = await page.activity.locator(".board button").all()
        assert {await b.get_attribute("aria-disabled") for b in squares} == {"true"}
        assert await page.activity.locator('[data-key="puzzle-retry"]').inner_text() == "Retry"
        folder = DOCS if os.environ.get("TTT_SCREENSHOTS") else tmp_path
        await page.screenshot(folder / "activity-puzzle-solved.png")
        assert page.errors == []
    assert not emulator.violations, emulator.violations
