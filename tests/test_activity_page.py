"""The Activity's page (web/, built into bot/web/static) in a real browser, framed by the
test Discord client as Discord frames it, against a stub of the web service: it signs in
through the SDK, shows the board the server sends, sends the member's intents with the
right ply and cell, follows pushed updates, and lets a spectator press nothing.

``TTT_SCREENSHOTS=1`` writes the screenshots into docs/ (activity-desktop.png and
activity-phone.png); otherwise into the test's temporary folder."""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from activity_frame.fixtures import PHONE, ActivityClient, ActivityPage
from activity_stub import ACCESS_TOKEN, CLIENT_ID, CODE, ME, SESSION, StubActivityServer, game

pytestmark = pytest.mark.browser

DOCS = Path(__file__).resolve().parents[1] / "docs"
ALICE = {"id": ME["id"], "username": "alice", "global_name": "Alice", "avatar": None}
BOB = {"id": "2002", "username": "bob", "global_name": "Bob", "avatar": None}
CAROL = {"id": "3003", "username": "carol", "global_name": "Carol", "avatar": None}
HUMAN_O = {"id": "2002", "name": "Bob", "avatar": None, "bot": False}


@pytest.fixture
async def stub() -> AsyncIterator[StubActivityServer]:
    server = StubActivityServer([])
    await server.start_serving()
    yield server
    await server.stop()


async def open_page(
    client: ActivityClient, stub: StubActivityServer, games: list[dict[str, Any]],
    **options: Any,
) -> ActivityPage:  # fmt: skip
    stub.games = {g["id"]: g for g in games}
    stub.order = [g["id"] for g in games]
    options.setdefault("participants", [ALICE, BOB, CAROL])
    return await client.open(
        f"{stub.url}/.proxy/", client_id=CLIENT_ID, instance_id="i-77", channel_id="10",
        guild_id="20", code=CODE, access_token=ACCESS_TOKEN,
        user={"id": ME["id"], "username": "alice"}, **options,
    )  # fmt: skip


async def eventually(check: Callable[[], Any], timeout: float = 5.0) -> Any:
    """Waits until ``check()`` is truthy (the stub hears the page asynchronously)."""
    deadline = time.monotonic() + timeout
    while not (result := check()):
        if time.monotonic() > deadline:
            raise AssertionError("never happened")
        await asyncio.sleep(0.02)
    return result


def cells(page: ActivityPage) -> Any:
    return page.activity.locator(".board button")


async def labels(page: ActivityPage) -> list[str]:
    return [await cell.get_attribute("aria-label") for cell in await cells(page).all()]


async def focused(page: ActivityPage) -> str | None:
    return await page.frame.evaluate("document.activeElement.getAttribute('aria-label')")


async def test_signs_in_through_the_sdk_and_plays_a_move(
    activity_client: ActivityClient, stub: StubActivityServer
) -> None:
    page = await open_page(activity_client, stub, [game("7", "X...O....",
                           deadline=time.time() + 45)])  # fmt: skip
    await page.activity.get_by_role("grid").wait_for()

    # The SDK's handshake, then the sign-in the doc prescribes, in that order.
    rpc = await page.rpc()
    handshake = rpc[0]
    assert handshake["dir"] == "in" and handshake["opcode"] == 0
    assert handshake["payload"]["client_id"] == CLIENT_ID
    assert rpc[1]["payload"]["evt"] == "READY"
    commands = await page.commands()
    assert commands[:2] == ["AUTHORIZE", "AUTHENTICATE"]
    sent = {m["payload"]["cmd"]: m["payload"] for m in rpc if m["dir"] == "in" and m["opcode"]}
    assert sent["AUTHORIZE"]["args"] == {"client_id": CLIENT_ID, "response_type": "code",
        "state": "", "prompt": "none", "scope": ["identify"]}  # fmt: skip
    assert sent["AUTHENTICATE"]["args"] == {"access_token": ACCESS_TOKEN}
    assert "GET_ACTIVITY_INSTANCE_CONNECTED_PARTICIPANTS" in commands
    assert not [m for m in rpc if m["dir"] == "refused"]
    # After READY the SDK sends the Activity's console to the client (CAPTURE_LOG).
    await page.frame.evaluate("console.warn('from the page')")
    await page.page.wait_for_function("window.discordFrame.logs.length > 0")
    logs = await page.page.evaluate("window.discordFrame.logs")
    assert logs == [{"level": "warn", "message": "from the page"}]

    # Every call under Discord's /.proxy/ prefix; the session as a bearer token.
    assert stub.intents("/session")[0]["body"] == {"code": CODE, "instance_id": "i-77"}
    assert {r["path"].split("/api/")[0] for r in stub.requests} == {"/.proxy"}
    assert stub.intents("/games")[0]["auth"] == f"Bearer {SESSION}"
    await eventually(lambda: stub.connects == 1)

    # The board as the server labels it; the players, the turn and the clock.
    assert await labels(page) == ["A1, X", "B1, empty", "C1, empty", "A2, empty", "B2, O",
        "C2, empty", "A3, empty", "B3, empty", "C3, empty"]  # fmt: skip
    players = page.activity.locator(".player")
    assert await players.locator(".player-name").all_inner_texts() == ["Alice", "the bot (hard)"]
    assert await players.locator(".sr-only").all_text_contents() == ["❌", "⭕"]
    assert [await p.get_attribute("aria-current") for p in await players.all()] == ["true", None]
    assert await page.activity.locator(".your-turn").inner_text() == "Your move"
    assert re.fullmatch(r"0:4\d", await page.activity.locator(".clock-time").inner_text())

    await page.activity.get_by_role("button", name="C1, empty").click()
    await page.activity.get_by_role("button", name="C1, X").wait_for()
    assert [r["body"] for r in stub.intents("/move")] == [{"ply": 2, "cell": 2}]
    assert stub.intents("/move")[0]["path"] == "/.proxy/api/games/7/move"
    assert await page.activity.locator(".your-turn").is_hidden()
    assert page.errors == []


async def test_a_pushed_game_updates_the_board_and_a_lost_socket_comes_back(
    activity_client: ActivityClient, stub: StubActivityServer
) -> None:
    page = await open_page(activity_client, stub, [game("7", "X.X.O....", to_move="O")])
    await page.activity.get_by_role("button", name="B1, empty").wait_for()
    await eventually(lambda: stub.connects == 1)
    assert await cells(page).nth(1).get_attribute("aria-disabled") == "true"

    # The bot answers in another process: the server pushes the game.
    await stub.push({"type": "game", "game": game("7", "XOX.O....")})
    await page.activity.get_by_role("button", name="B1, O").wait_for()
    assert await cells(page).nth(3).get_attribute("aria-disabled") == "false"

    # The socket drops; the page says so, comes back, and takes the full state it is sent.
    stub.games["7"] = game("7", "XOX.O...X", to_move="O")
    await stub.drop_sockets()
    connection = page.activity.locator("#connection")
    await connection.get_by_text("Connection lost, reconnecting…").wait_for()
    await eventually(lambda: stub.connects == 2)
    await page.activity.get_by_role("button", name="C3, X").wait_for()
    await connection.wait_for(state="hidden")

    # A move on a board that changed meanwhile (stored, not yet pushed): the server
    # refuses the stale ply with its game, which the page shows with the reason.
    await stub.push({"type": "game", "game": game("7", "XOX.OO..X")})
    await page.activity.get_by_role("button", name="C2, O").wait_for()
    stub.games["7"] = game("7", "XOXOOO..X", to_move="O")
    await page.activity.get_by_role("button", name="B3, empty").click()
    await page.activity.get_by_role("alert").get_by_text("The board changed.").wait_for()
    assert [r["body"] for r in stub.intents("/move")] == [{"ply": 6, "cell": 7}]
    assert await page.activity.get_by_role("button", name="A2, O").count() == 1
    assert page.errors == []


async def test_the_keyboard_moves_across_the_board_and_plays(
    activity_client: ActivityClient, stub: StubActivityServer
) -> None:
    page = await open_page(activity_client, stub, [game("7", "X....O..........")])
    await page.activity.get_by_role("grid").wait_for()
    assert len(await labels(page)) == 16
    # One cell in the tab order (a roving tabindex), the arrows move the focus.
    tabbable = page.activity.locator('.board button[tabindex="0"]')
    assert await tabbable.count() == 1
    await tabbable.focus()
    assert await focused(page) == "A1, X"
    for key, expected in [("ArrowRight", "B1, empty"), ("ArrowDown", "B2, O"),
                          ("ArrowRight", "C2, empty"), ("ArrowUp", "C1, empty"),
                          ("ArrowUp", "C1, empty"), ("End", "D1, empty"),
                          ("ArrowRight", "D1, empty"), ("Control+End", "D4, empty"),
                          ("Home", "A4, empty"), ("ArrowLeft", "A4, empty")]:  # fmt: skip
        await page.page.keyboard.press(key)
        assert await focused(page) == expected, key
    assert await tabbable.count() == 1
    assert await tabbable.get_attribute("aria-label") == "A4, empty"
    # A taken cell does nothing; Space presses the focused empty one.
    await page.page.keyboard.press("Control+Home")
    await page.page.keyboard.press("Enter")
    await page.page.keyboard.press("ArrowDown")
    await page.page.keyboard.press("Space")
    await page.activity.get_by_role("button", name="A2, X").wait_for()
    assert [r["body"] for r in stub.intents("/move")] == [{"ply": 2, "cell": 4}]
    assert await focused(page) == "A2, X"  # the focus stays where it was
    assert page.errors == []


async def test_a_spectator_sees_the_game_and_presses_nothing(
    activity_client: ActivityClient, stub: StubActivityServer
) -> None:
    watched = game("7", "X...O....", you=None, opponent=HUMAN_O, deadline=time.time() + 30)
    page = await open_page(activity_client, stub, [watched])
    await page.activity.get_by_role("grid").wait_for()
    assert await page.activity.get_by_text("You are watching.").is_visible()
    assert await page.activity.locator(".player-name").all_inner_texts() == ["Bob", "Bob"]
    assert await page.activity.locator(".clock").is_visible()
    assert await page.activity.locator(".actions button").count() == 0
    assert await page.activity.locator(".your-turn").is_hidden()
    assert {await c.get_attribute("aria-disabled") for c in await cells(page).all()} == {"true"}
    await page.activity.get_by_role("button", name="B1, empty").click(force=True)
    await page.activity.get_by_role("button", name="B1, empty").press("Enter")
    await asyncio.sleep(0.3)
    assert stub.intents("/move") == []
    assert page.errors == []


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
        return {"ply": ply, "cells": game("x", board)["cells"], "best": best, "text": text}

    plain_marks = {"ply": 1, "cells": ["X", *[None] * 8], "text": "1. ❌ A1 — keeps the draw"}
    stub.review_steps = [
        plain_marks,  # the page also reads a step whose cells are bare marks
        step(2, "XO.......", [4], "2. ⭕ B1 — draw to loss; better: B2"),
    ]
    await page.activity.get_by_role("button", name="Review").click()
    text = page.activity.locator(".review-text")
    await text.get_by_text("2. ⭕ B1").wait_for()
    assert await page.activity.get_by_role("button", name="Review").get_attribute(
        "aria-pressed") == "true"  # fmt: skip
    assert (await labels(page))[:3] == ["A1, X", "B1, O", "C1, empty"]
    assert await page.activity.locator(".board button.lit").get_attribute("aria-label") == (
        "B2, empty")  # fmt: skip
    await page.activity.get_by_role("button", name="‹ Previous").click()
    await text.get_by_text("1. ❌ A1").wait_for()
    assert await cells(page).nth(0).locator("svg.mark-X").count() == 1
    assert await page.activity.locator(".board svg").count() == 1
    assert await page.activity.get_by_role("button", name="‹ Previous").get_attribute(
        "aria-disabled") == "true"  # fmt: skip
    await page.activity.get_by_role("button", name="Next ›").click()
    await text.get_by_text("2. ⭕ B1").wait_for()
    assert (await labels(page))[:3] == ["A1, X", "B1, O", "C1, empty"]
    await page.activity.get_by_role("button", name="Review").click()
    await text.wait_for(state="hidden")
    assert (await labels(page))[:4] == ["A1, X", "B1, O", "C1, empty", "A2, X"]

    await page.activity.get_by_role("button", name="Rematch").click()
    await page.activity.get_by_text("Challenge posted in the channel.").wait_for()
    assert len(stub.intents("/rematch")) == 1
    assert page.errors == []


async def test_a_lapsed_session_signs_in_again_and_the_intent_goes_through(
    activity_client: ActivityClient, stub: StubActivityServer
) -> None:
    page = await open_page(activity_client, stub, [game("7", "X...O....")])
    await page.activity.get_by_role("grid").wait_for()
    await eventually(lambda: stub.connects == 1)
    stub.expire_session()
    await page.activity.get_by_role("button", name="C1, empty").click()
    await page.activity.get_by_role("button", name="C1, X").wait_for()
    # Refused with 401, then a new code from the Discord client, a new session, the move.
    moves = stub.intents("/move")
    assert [m["auth"] for m in moves] == [f"Bearer {SESSION}", f"Bearer {SESSION}-2"]
    assert [m["body"] for m in moves] == [{"ply": 2, "cell": 2}] * 2
    assert (await page.commands()).count("AUTHORIZE") == 2
    assert (await page.commands()).count("AUTHENTICATE") == 2
    assert await page.activity.locator("#alert").text_content() == ""
    assert page.errors == []


async def test_outside_discord_the_page_says_it_could_not_load(
    activity_client: ActivityClient, stub: StubActivityServer
) -> None:
    context = await activity_client.browser.new_context()
    page = await context.new_page()
    await page.goto(f"{stub.url}/")
    await page.get_by_text("could not load").wait_for()
    assert await page.locator(".board").count() == 0


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
        for box in [await c.bounding_box() for c in await cells(page).all()]:
            assert box is not None and box["width"] >= 44 and box["height"] >= 44
        animation = await frame.evaluate(
            "getComputedStyle(document.querySelector('.cell .mark')).animationName"
        )
        assert (animation == "none") == (motion == "reduce")
        await page.screenshot(folder / f"activity-{name}.png")
        assert page.errors == []
