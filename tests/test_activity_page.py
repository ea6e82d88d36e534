"""The Activity's page (web/, built into bot/web/static) in a real browser, framed by the
test Discord client as Discord frames it (tests/activity_frame/), against a stub of the web
service (tests/activity_stub.py): it signs in through the SDK, shows the board the server
sends, sends the member's intents with the right ply and cell, from the mouse and the
keyboard, follows pushed updates and a lost socket, and lets a spectator press nothing."""

from __future__ import annotations

import asyncio
import re
import time

import pytest

from activity_frame.fixtures import ActivityClient
from activity_stub import (
    ACCESS_TOKEN,
    CLIENT_ID,
    CODE,
    HUMAN_O,
    SESSION,
    StubActivityServer,
    attributes,
    cells,
    eventually,
    focused,
    game,
    labels,
    open_page,
)  # fmt: skip

pytestmark = pytest.mark.browser


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
    assert await players.locator(".sr-only").all_text_contents() == ["X", "O"]
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


async def test_a_restarted_process_is_tried_each_second_and_the_game_ended_meanwhile_shows(
    activity_client: ActivityClient, stub: StubActivityServer
) -> None:
    """The web process behind the page is killed and started again: the page tries again
    within a second each time (not a doubling backoff, which waited up to 8 s by the time
    a process was back), and the game it showed, which ended meanwhile and so left the
    running games, is sent first as it reconnects, and shown ended."""
    page = await open_page(activity_client, stub, [game("7", "XO.XO....")])
    await page.activity.get_by_role("grid").wait_for()
    await eventually(lambda: stub.connects == 1)
    assert stub.intents("/live")[0]["query"] == {"game": "7"}  # the game shown, no session
    stub.down = True
    await stub.drop_sockets()
    connection = page.activity.locator("#connection")
    waits: list[str | None] = []
    for tries in range(1, 6):  # each refused try: the page's wait before the next one
        await eventually(lambda: stub.refused >= tries, timeout=10)  # noqa: B023
        for _ in range(100):
            wait = await connection.get_attribute("data-retry-ms")
            if wait not in waits:
                break
            await page.page.wait_for_timeout(20)
        waits.append(wait)
    assert all(wait is not None and float(wait) <= 1000 for wait in waits), waits
    # meanwhile the bot won the game (it left the running games); the process comes back
    stub.games["7"] = game("7", "XO.XO..O.", to_move=None, running=False, win=(1, 4, 7),
                           status="the bot (hard) wins!")  # fmt: skip
    stub.down = False
    await page.activity.get_by_role("button", name="B3, O").wait_for()
    await page.activity.get_by_text("the bot (hard) wins!").wait_for()
    await connection.wait_for(state="hidden")
    assert await page.activity.locator(".actions button").all_inner_texts() == [
        "Rematch", "Review"]  # fmt: skip
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
    assert set(await attributes(page, "aria-disabled")) == {"true"}
    await page.activity.get_by_role("button", name="B1, empty").click(force=True)
    await page.activity.get_by_role("button", name="B1, empty").press("Enter")
    await asyncio.sleep(0.3)
    assert stub.intents("/move") == []
    assert page.errors == []


async def test_outside_discord_the_page_says_it_could_not_load(
    activity_client: ActivityClient, stub: StubActivityServer
) -> None:
    context = await activity_client.browser.new_context()
    page = await context.new_page()
    await page.goto(f"{stub.url}/")
    await page.get_by_text("could not load").wait_for()
    assert await page.locator(".board").count() == 0


async def test_a_correspondence_game_shows_its_pace_and_its_days(
    activity_client: ActivityClient, stub: StubActivityServer
) -> None:
    days = game("8", "X...O....", deadline=time.time() + 3 * 86400 - 30)
    days["pace"] = "Correspondence game: 3 days a move."  # as bot/web/game_json.py words it
    page = await open_page(activity_client, stub, [days])
    await page.activity.get_by_role("grid").wait_for()
    assert await page.activity.locator(".pace").inner_text() == days["pace"]
    assert re.fullmatch(r"71:59:\d\d", await page.activity.locator(".clock-time").inner_text())
    await eventually(lambda: stub.connects == 1)
    live = game("8", "X...OX...", to_move="O", deadline=time.time() + 45)  # no pace
    await stub.push({"type": "game", "game": live})
    await page.activity.get_by_role("button", name="C2, X").wait_for()
    assert await page.activity.locator(".pace").is_hidden()
    assert page.errors == []
