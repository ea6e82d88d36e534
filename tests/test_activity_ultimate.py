"""Ultimate tic-tac-toe on the Activity's page, in a real browser against the stub of the
web service (see test_activity_page.py): the 81 squares drawn as nine small boards, the
boards to play in framed, won boards under one big mark, the last move marked; the arrows
cross all 81 squares and Enter plays; a screen reader hears each square's board, place
and content; the rules on the page; an ultimate game started from the form; a 360 px
phone without sideways scroll and squares of 32 px at least; the engine's hint lit on the
81 squares and its review stepped through, in chat's words (made by the server's own
bot/web/coaching.py).

``TTT_SCREENSHOTS=1`` writes docs/images/activity-ultimate-desktop.png, -phone.png, -won.png,
-hint.png and -review.png."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from bot.core import rules
from bot.core.engine_advice import EngineHint
from bot.core.records import Review
from bot.web.coaching import review_json
from bot.web.ultimate_json import hint_json as engine_hint_json
from engine.ultimate.review import ReviewedMove

from activity_frame.fixtures import PHONE, ActivityClient
from activity_stub import (
    HUMAN_O,
    StubActivityServer,
    attributes,
    focused,
    game,
    labels,
    open_page,
    sizes,
    ultimate,
)  # fmt: skip

DOCS = Path(__file__).resolve().parents[1] / "docs" / "images"
X_WINS = (4, 42, 58, 38, 18, 1, 15, 56, 24, 54, 0, 2, 21, 31, 41, 45, 8, 74, 13, 40, 11)
"""tests/test_core_ultimate.py's game: X wins across the top row of boards (0, 1, 2)."""
MIDGAME = X_WINS[:20]
"""X to move anywhere open: boards A1 and C1 won by X, B2 by O, O's last move in B2."""

pytestmark = pytest.mark.browser


def button(page, cell: int):
    return page.activity.locator(f'.board button[data-cell="{cell}"]')


async def test_nine_boards_where_to_play_and_a_move_from_the_keyboard(
    activity_client: ActivityClient, stub: StubActivityServer
) -> None:
    page = await open_page(activity_client, stub, [ultimate("7", MIDGAME, opponent=HUMAN_O)])
    await page.activity.get_by_role("grid").wait_for()
    # 81 squares in nine rows as they are drawn: the first row crosses boards A1, B1, C1.
    shown = await labels(page)
    assert len(shown) == 81
    assert shown[:4] == ["board A1, square A1, X, board won by X",
                         "board A1, square B1, O, board won by X",
                         "board A1, square C1, O, board won by X",
                         "board B1, square A1, empty"]  # fmt: skip
    assert shown[40] == "board B2, square B2, O, board won by O, last move"
    rows = page.activity.locator('.board [role="row"]')
    assert await rows.count() == 9 and await rows.nth(4).locator("button").count() == 9
    # Won boards under one big mark; the open boards framed; the last move marked.
    assert await page.activity.locator(".region.won").count() == 3
    assert await page.activity.locator(".region svg.big-mark.mark-X").count() == 2
    assert await page.activity.locator(".region svg.big-mark.mark-O").count() == 1
    assert await page.activity.locator(".region.open").count() == 6
    assert await page.activity.locator(".cell.last").get_attribute("data-cell") == "40"
    assert await page.activity.locator(".where").inner_text() == "Play in any open board."
    assert await button(page, 19).get_attribute("aria-disabled") == "true"  # empty, in won C1
    assert await button(page, 9).get_attribute("aria-disabled") == "false"
    # The boards drawn in their places: B2 in the middle, squares at least 32 px.
    centre = await button(page, 40).bounding_box()
    first, last = await button(page, 0).bounding_box(), await button(page, 80).bounding_box()
    assert first and centre and last and first["x"] < centre["x"] < last["x"]
    assert first["y"] < centre["y"] < last["y"]

    # The arrows cross all 81 squares, from board to board; Enter on a won board's square
    # does nothing, on an open one plays it.
    tabbable = page.activity.locator('.board button[tabindex="0"]')
    await tabbable.focus()
    assert await focused(page) == "board A1, square A1, X, board won by X"
    for key, expected in [("ArrowRight", "board A1, square B1, O, board won by X"),
                          ("ArrowRight", "board A1, square C1, O, board won by X"),
                          ("ArrowRight", "board B1, square A1, empty"),
                          ("ArrowDown", "board B1, square A2, empty"),
                          ("ArrowDown", "board B1, square A3, X"),
                          ("ArrowDown", "board B2, square A1, empty, board won by O"),
                          ("ArrowUp", "board B1, square A3, X"),
                          ("Control+End", "board C3, square C3, empty"),
                          ("ArrowDown", "board C3, square C3, empty"),
                          ("Home", "board A3, square A3, empty"),
                          ("Control+Home", "board A1, square A1, X, board won by X")]:  # fmt: skip
        await page.page.keyboard.press(key)
        assert await focused(page) == expected, key
    for _ in range(7):
        await page.page.keyboard.press("ArrowRight")
    assert await focused(page) == "board C1, square B1, empty, board won by X"
    await page.page.keyboard.press("Enter")  # an empty square of a won board: nothing
    for key in ("ArrowLeft", "ArrowLeft", "ArrowLeft", "ArrowDown", "ArrowDown"):
        await page.page.keyboard.press(key)
    assert await focused(page) == "board B1, square B3, empty"
    await page.page.keyboard.press("Enter")  # cell 1 * 9 + 7
    await page.activity.get_by_role("button", name="board B1, square B3, X, last move").wait_for()
    assert [r["body"] for r in stub.intents("/move")] == [{"ply": 20, "cell": 16}]
    assert await focused(page) == "board B1, square B3, X, last move"  # the focus stayed
    assert await page.activity.locator(".where").inner_text() == "Play in the bottom board."
    assert await page.activity.locator(".region.open").count() == 1
    assert page.errors == []


async def test_the_rules_are_on_the_page_and_the_form_starts_ultimate(
    activity_client: ActivityClient, stub: StubActivityServer
) -> None:
    page = await open_page(activity_client, stub, [])
    await page.activity.get_by_label("Board").select_option("ultimate")
    await page.activity.get_by_role("button", name="Play the bot").click()
    await page.activity.get_by_role("grid").wait_for()
    assert stub.intents("/games")[-1]["body"] == {"difficulty": "medium", "variant": "ultimate"}
    assert len(await labels(page)) == 81
    assert await page.activity.locator(".region.open").count() == 9
    assert await page.activity.locator(".actions button").all_inner_texts() == ["Resign"]
    rules = page.activity.locator("details.rules")
    await rules.get_by_text("Rules").click()
    items = await rules.locator("li").all_inner_texts()
    assert items[0] == "X moves first, anywhere." and len(items) == 4
    assert "any open board" in items[1] and "belongs to nobody" in items[2]
    assert "the game is a draw" in items[3]
    await page.activity.get_by_role("button", name="board B2, square B2, empty").click()
    await page.activity.get_by_role("button", name="board B2, square B2, X, last move").wait_for()
    assert [r["body"] for r in stub.intents("/move")] == [{"ply": 0, "cell": 40}]
    # The picker names what each game plays; a classic game has no rules block.
    classic = game("5", "X...O....", you=None, opponent=HUMAN_O)
    await stub.push({"type": "games", "games": [stub.games["900"], classic]})
    await page.activity.get_by_role("button", name="‹ All games").click()
    picks = page.activity.locator(".pick")
    assert "Ultimate: nine boards in one" in await picks.nth(0).inner_text()
    assert "3×3, three in a row" in await picks.nth(1).inner_text()
    await picks.nth(1).click()
    await page.activity.get_by_role("button", name="B2, O").wait_for()
    assert await rules.is_hidden() and await page.activity.locator(".region").count() == 0
    assert page.errors == []


async def test_a_spectator_watches_and_presses_nothing(
    activity_client: ActivityClient, stub: StubActivityServer
) -> None:
    watched = ultimate("7", MIDGAME, you=None, opponent=HUMAN_O, deadline=time.time() + 30)
    page = await open_page(activity_client, stub, [watched])
    await page.activity.get_by_role("grid").wait_for()
    assert await page.activity.get_by_text("You are watching.").is_visible()
    assert set(await attributes(page, "aria-disabled")) == {"true"}
    assert await page.activity.locator(".region.open").count() == 6  # where X may play
    await button(page, 9).click(force=True)
    await asyncio.sleep(0.3)  # wait-ok: checks that nothing is sent
    assert stub.intents("/move") == []
    assert page.errors == []


async def test_ultimate_on_a_desktop_and_a_phone(
    activity_client: ActivityClient, stub: StubActivityServer, tmp_path: Path
) -> None:
    # Reduced motion, so the screenshots hold still; the other tests here run with
    # motion (the default), as do the classic boards' won scenes (test_activity_views).
    motion = "reduce"
    folder = DOCS if os.environ.get("TTT_SCREENSHOTS") else tmp_path
    scenes = [("desktop", (1280, 800), ultimate("7", MIDGAME, opponent=HUMAN_O,
                                                deadline=time.time() + 42)),
              ("phone", PHONE, ultimate("7", MIDGAME, opponent=HUMAN_O,
                                        deadline=time.time() + 42)),
              ("won", PHONE, ultimate("7", MIDGAME, opponent=HUMAN_O))]  # fmt: skip
    for name, viewport, scene in scenes:
        page = await open_page(activity_client, stub, [scene], viewport=viewport,
                               reduced_motion=motion)  # fmt: skip
        await page.activity.get_by_role("grid").wait_for()
        if name == "desktop":
            await page.activity.locator("details.rules summary").click()
        frame = page.frame
        assert await frame.evaluate("document.documentElement.scrollWidth") <= viewport[0]
        for width, height in await sizes(page):
            assert width >= 32 and height >= 32, (width, height)
        if name == "won":  # X's last move wins board B1, and the top row of boards
            await button(page, X_WINS[-1]).click()
            await page.activity.get_by_text("Alice wins with three boards in a row!").wait_for()
            assert await page.activity.locator(".region.win").count() == 3
            assert await page.activity.locator(".region.open").count() == 0
            # the mark and its brackets never wrap apart on a phone: one unbreakable box
            glued = page.activity.locator(".status .status-mark")
            assert await glued.text_content() == "(X)"
            assert await glued.evaluate("e => e.getClientRects().length") == 1
        await page.screenshot(folder / f"activity-ultimate-{name}.png")
        assert page.errors == []


async def test_the_engines_hint_and_review_on_the_81_squares(
    activity_client: ActivityClient, stub: StubActivityServer, tmp_path: Path
) -> None:
    folder = DOCS if os.environ.get("TTT_SCREENSHOTS") else tmp_path
    # against the bot, X to move anywhere open; the engine's square wins the game
    stub.hint = engine_hint_json(EngineHint("X", X_WINS[-1], 0.93, wins_game=True), "en")
    page = await open_page(activity_client, stub, [ultimate("7", MIDGAME, actions=[
        "resign", "hint"])], reduced_motion="reduce")  # fmt: skip
    await page.activity.get_by_role("button", name="Hint").click()
    hint = page.activity.locator("#hint-text")
    await hint.get_by_text("the engine's choice").wait_for()
    assert await hint.text_content() == (
        "Hint for X, just for you:\nF1 in the top board is the engine's choice; it puts your "
        "chances there at about 93%.\nIt wins the game at once.\nThis is the engine's "
        "judgement after a short search, not a proof: it can be wrong.\nColumns A–I from the "
        "left, rows 1–9 from the top.")  # fmt: skip
    assert await hint.locator("svg.inline-mark.mark-X").count() == 1
    lit = page.activity.locator(".board button.lit")
    assert await lit.count() == 1 and await lit.get_attribute("data-cell") == "11"
    assert await lit.get_attribute("aria-label") == "board B1, square C1, empty"
    assert await lit.get_attribute("aria-describedby") == "hint-text"
    await page.screenshot(folder / "activity-ultimate-hint.png")

    # X plays it and wins; the review steps through the moves the engine found costly
    judged = [ReviewedMove(17, "O", 74, 80, 0.45, 0.2),  # as the engine's judge gives them
              ReviewedMove(6, "X", 15, 9, 0.66, 0.46)]  # fmt: skip
    game = rules.new_game(guild_id=20, channel_id=10, size=3, now=0.0, player_x=1001,
                          player_o=2002, variant="ultimate")  # fmt: skip
    for cell in X_WINS:
        game = game.with_move(cell, updated_at=0.0)
    review = review_json(Review(game, [], judged=judged), "en")
    stub.review_steps, stub.review_summary = review["steps"], review["summary"]
    await page.activity.get_by_role("button", name="board B1, square C1, empty").click()
    await page.activity.get_by_text("Alice wins with three boards in a row!").wait_for()
    await page.page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    await page.activity.get_by_role("button", name="Review").click()
    text = page.activity.locator(".review-text")
    steps = sorted(judged, key=lambda m: m.ply)
    for index in range(len(steps) - 1, -1, -1):  # opened on the last, then back
        move, step = steps[index], review["steps"][index]
        await text.get_by_text(step["text"].split(" — ")[1]).wait_for()
        assert await text.text_content() == step["text"]
        assert await text.locator(f"svg.mark-{move.player}").count() == 1
        lit = page.activity.locator(".board button.lit")
        assert await lit.count() == 1
        assert await lit.get_attribute("data-cell") == str(move.preferred)
        assert await page.activity.locator(".cell.last").get_attribute("data-cell") == str(
            move.move)  # fmt: skip
        # the board after the move: its marks, and its won boards under their big mark
        assert await page.activity.locator(".board button svg.mark").count() == move.ply + 1
        assert await page.activity.locator(".region.won").count() == len(
            [s for s in step["board_statuses"] if s in ("X", "O")])  # fmt: skip
        if index == len(steps) - 1:  # after O's 74 (the 18th move): A1 and C1 won by X
            assert await page.activity.locator(".region.won").count() == 2
            assert "not a proof" in await page.activity.locator(".review-summary").inner_text()
            assert await page.frame.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
            await page.screenshot(folder / "activity-ultimate-review.png")
        if index:
            await page.activity.get_by_role("button", name="‹ Previous").click()
    assert page.errors == []
