"""The Activity page's other views in a real browser (see test_activity_page.py): the
list of the channel's games, the start form and a challenge, hint, resign, review and
rematch, and how it looks on a desktop and a 360 px phone.

``TTT_SCREENSHOTS=1`` writes the screenshots into docs/images/ (activity-desktop.png and
activity-phone.png); otherwise into the test's temporary folder."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from activity_frame.fixtures import PHONE, ActivityClient
from activity_stub import (
    ALICE,
    CAROL,
    HUMAN_O,
    StubActivityServer,
    cells,
    game,
    labels,
    open_page,
    sizes,
)  # fmt: skip

DOCS = Path(__file__).resolve().parents[1] / "docs" / "images"

pytestmark = pytest.mark.browser


async def test_the_picker_and_the_start_form(
    activity_client: ActivityClient, stub: StubActivityServer
) -> None:
    games = [game("9", "X........", you=None, opponent=HUMAN_O),
             game("8", "XO.......", to_move="X", opponent=HUMAN_O),
             game("7", "." * 25, you="O", to_move="X", opponent=HUMAN_O)]  # fmt: skip
    page = await open_page(activity_client, stub, games)
    picks = page.activity.locator(".pick")
    await picks.first.wait_for()
    assert await page.activity.get_by_role("heading").all_inner_texts() == [
        "Tic-tac-toe", "Games in this channel"]  # fmt: skip
    assert await picks.count() == 3
    assert "5×5, four in a row" in await picks.nth(2).inner_text()
    assert "Your move" in await picks.nth(1).inner_text()
    await picks.nth(2).click()
    assert len(await labels(page)) == 25
    await page.activity.get_by_role("button", name="‹ All games").click()
    await picks.nth(1).click()
    assert (await labels(page))[:2] == ["A1, X", "B1, O"]

    # With no game running: start one against the bot, or challenge someone here.
    page = await open_page(activity_client, stub, [])
    await page.activity.get_by_text("No game is running here. Start one:").wait_for()
    people = page.activity.locator(".challenge button")
    assert await people.all_inner_texts() == ["B\nBob", "C\nCarol"]  # not Alice herself
    await page.set_participants([ALICE, CAROL])
    await page.activity.locator(".challenge button").get_by_text("Bob").wait_for(state="detached")
    await page.activity.get_by_label("Board").select_option("4")
    await page.activity.get_by_role("button", name="Carol").click()
    await (
        page.activity.get_by_role("status")
        .get_by_text("Challenge posted in the channel.")
        .wait_for()
    )
    assert stub.intents("/games")[-1]["body"] == {"opponent_id": "3003", "size": 4}
    await page.activity.get_by_label("Difficulty").select_option("hard")
    await page.activity.get_by_role("button", name="Play the bot").click()
    await page.activity.get_by_role("grid").wait_for()
    assert stub.intents("/games")[-1]["body"] == {"difficulty": "hard", "size": 4}
    assert len(await labels(page)) == 16
    assert page.errors == []


async def test_hint_resign_review_and_rematch(
    activity_client: ActivityClient, stub: StubActivityServer
) -> None:
    page = await open_page(activity_client, stub, [game("7", "XO.XO....")])
    await page.activity.get_by_role("grid").wait_for()
    assert await page.activity.locator(".actions button").all_inner_texts() == ["Resign", "Hint"]

    await page.activity.get_by_role("button", name="Hint").click()
    hint = page.activity.locator("#hint-text")
    await hint.get_by_text("C3 — completes your line: you win.").wait_for()
    assert stub.intents("/hint")[0]["body"] == {"ply": 4}
    # its mark drawn as the board draws it (an emoji is an empty box without an emoji font)
    assert await hint.locator("svg.inline-mark.mark-X").count() == 1
    words = "Hint for X, just for you:\nC3 — completes your line: you win."
    assert await hint.text_content() == words
    lit = page.activity.locator(".board button.lit")
    assert await lit.count() == 1
    assert await lit.get_attribute("aria-label") == "C3, empty"
    assert await lit.get_attribute("aria-describedby") == "hint-text"

    await page.activity.get_by_role("button", name="Resign").click()
    await page.activity.get_by_text("Alice resigned. the bot (hard) wins.").wait_for()
    assert await hint.is_hidden()  # the hint was for a position that is over
    assert await page.activity.locator(".actions button").all_inner_texts() == [
        "Rematch", "Review"]  # fmt: skip
    assert await page.activity.get_by_role("button", name="‹ All games").is_visible()

    def step(ply: int, board: str, best: list[int], text: str) -> dict[str, Any]:
        number, mark, rest = text.split(" ", 2)
        parts = [{"text": f"{number} "}, {"mark": mark}, {"text": f" {rest}"}]
        return {"ply": ply, "cells": game("x", board)["cells"], "best": best, "text": text,
                "parts": parts, "last_move": 1}  # fmt: skip

    plain_marks = {"ply": 1, "cells": ["X", *[None] * 8], "text": "1. X A1 — keeps the draw"}
    stub.review_steps = [
        plain_marks,  # the page also reads a step whose cells are bare marks, with no parts
        step(2, "XO.......", [4], "2. O B1 — draw to loss; better: B2"),
    ]
    await page.activity.get_by_role("button", name="Review").click()
    text = page.activity.locator(".review-text")
    await text.get_by_text("B1 — draw to loss").wait_for()
    assert await text.locator("svg.mark-O").count() == 1  # drawn, named O for a reader
    assert await page.activity.get_by_role("button", name="Review").get_attribute(
        "aria-pressed") == "true"  # fmt: skip
    assert await cells(page).nth(1).get_attribute("class") == "cell last"
    assert (await labels(page))[:3] == ["A1, X", "B1, O", "C1, empty"]
    assert await page.activity.locator(".board button.lit").get_attribute("aria-label") == (
        "B2, empty")  # fmt: skip
    await page.activity.get_by_role("button", name="‹ Previous").click()
    await text.get_by_text("1. X A1").wait_for()
    assert await cells(page).nth(0).locator("svg.mark-X").count() == 1
    assert await page.activity.locator(".board svg").count() == 1
    assert await page.activity.get_by_role("button", name="‹ Previous").get_attribute(
        "aria-disabled") == "true"  # fmt: skip
    await page.activity.get_by_role("button", name="Next ›").click()
    await text.get_by_text("B1 — draw to loss").wait_for()
    assert (await labels(page))[:3] == ["A1, X", "B1, O", "C1, empty"]
    await page.activity.get_by_role("button", name="Review").click()
    await text.wait_for(state="hidden")
    assert (await labels(page))[:4] == ["A1, X", "B1, O", "C1, empty", "A2, X"]

    await page.activity.get_by_role("button", name="Rematch").click()
    await page.activity.get_by_text("Challenge posted in the channel.").wait_for()
    assert len(stub.intents("/rematch")) == 1
    assert page.errors == []


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
async def test_desktop_and_phone_screenshots(
    activity_client: ActivityClient, stub: StubActivityServer, tmp_path: Path, motion: str
) -> None:
    folder = DOCS if os.environ.get("TTT_SCREENSHOTS") and motion == "reduce" else tmp_path
    scene = game("7", "XO..XO...", opponent=HUMAN_O, deadline=time.time() + 42)
    for name, viewport in [("desktop", (1280, 800)), ("phone", PHONE)]:
        page = await open_page(activity_client, stub, [scene], viewport=viewport,
                               reduced_motion=motion)  # fmt: skip
        await page.activity.get_by_role("grid").wait_for()
        await page.activity.get_by_role("button", name="Hint").click()
        await page.activity.locator("#hint-text").wait_for()
        frame = page.frame
        # Nothing wider than the screen; every cell a comfortable touch target.
        assert await frame.evaluate("document.documentElement.scrollWidth") <= viewport[0]
        for width, height in await sizes(page):
            assert width >= 44 and height >= 44, (width, height)
        animation = await frame.evaluate(
            "getComputedStyle(document.querySelector('.cell .mark')).animationName"
        )
        assert (animation == "none") == (motion == "reduce")
        await page.screenshot(folder / f"activity-{name}.png")
        assert page.errors == []
