"""The live board end to end, in a real browser: the page (bot/web/static) framed by the
test Discord client, signed in through the emulator's OAuth2 and Activity instances,
served by the real bot's web service, beside the chat buttons: one game behind both."""

from __future__ import annotations

import pytest

from activity_frame.fixtures import ActivityClient, ActivityPage
from activity_stub import eventually, labels
from bot_harness import board_of, cell_id, free_port
from discord_emulator import DiscordEmulator
from web_harness import bot_and_web_only, bot_with_web

pytestmark = pytest.mark.browser


async def open_as(
    client: ActivityClient, emu: DiscordEmulator, base: str, user, channel=None, **options
) -> ActivityPage:
    """``user`` opens the Activity in ``channel``, as from the App Launcher."""
    channel = channel or emu.channel
    instance = emu.launch_activity(user, channel)
    page = await client.open(
        f"{base}/.proxy/", client_id=str(emu.client_id), instance_id=instance,
        channel_id=str(channel.id), guild_id=str(emu.guild.id),
        authorize=lambda args: emu.authorize(user),
        user={"id": str(user.id), "username": user.name}, **options,
    )  # fmt: skip
    await page.activity.get_by_role("grid").wait_for()
    return page


async def shows(page: ActivityPage, label: str) -> None:
    await page.activity.get_by_role("button", name=label, exact=True).wait_for(timeout=5000)


async def chat_board(emu: DiscordEmulator, board: dict, expected: str) -> None:
    await eventually(lambda: board_of(emu.message(board["id"])) == expected)


async def test_two_pages_and_the_chat_play_one_game_to_the_end(
    activity_client: ActivityClient, emulator: DiscordEmulator, tmp_path
) -> None:
    alice, bob, carol = (emulator.create_user(n) for n in ("alice", "bob", "carol"))
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (_bot, base, _http):
        start = await emulator.invoke(alice, "ttt start", {"opponent": bob, "first": "me"})
        accept = start.message["components"][0]["components"][0]["custom_id"]
        board = (await emulator.click(bob, start.message, accept)).message
        pages = [await open_as(activity_client, emulator, base, u) for u in (alice, bob, carol)]
        a_page, b_page, c_page = pages

        await a_page.activity.get_by_role("button", name="B2, empty").click()  # alice, page
        for page in pages:
            await shows(page, "B2, X")
        await chat_board(emulator, board, "....X....")

        current = emulator.message(board["id"])
        await emulator.click(bob, current, cell_id(current, 0))  # bob, with the chat buttons
        for page in pages:
            await shows(page, "A1, O")
        # carol watches: every square is shown, none can be pressed
        assert all([await c.is_disabled() for c in await c_page.activity.locator(
            ".board button").all()])  # fmt: skip

        await a_page.page.reload()  # a reload mid-game signs in again and shows the board
        await a_page.activity.get_by_role("grid").wait_for()
        await shows(a_page, "A1, O")
        await shows(a_page, "B2, X")

        await a_page.activity.get_by_role("button", name="B1, empty").click()
        await shows(b_page, "B1, X")
        await b_page.activity.get_by_role("button", name="A2, empty").click()  # bob, page
        await shows(a_page, "A2, O")
        await chat_board(emulator, board, "OX.OX....")
        current = emulator.message(board["id"])
        await emulator.click(alice, current, cell_id(current, 7))  # alice wins, chat
        for page in pages:
            await shows(page, "B3, X")
            await eventually_text(page, "wins")
        assert await labels(c_page) == ["A1, O", "B1, X", "C1, empty", "A2, O", "B2, X",
                                        "C2, empty", "A3, empty", "B3, X", "C3, empty"]  # fmt: skip
        for page in pages:
            assert not page.errors, page.errors
    assert not emulator.violations, emulator.violations


async def eventually_text(page: ActivityPage, words: str) -> None:
    for _ in range(100):
        if words in await page.activity.locator("body").inner_text():
            return
        await page.page.wait_for_timeout(50)
    raise AssertionError(f"{words!r} never shown")


async def test_a_restart_mid_game_the_page_reconnects_and_catches_up(
    activity_client: ActivityClient, emulator: DiscordEmulator, tmp_path
) -> None:
    alice = emulator.create_user("alice")
    port, database = free_port(), tmp_path / "ttt.sqlite3"
    async with bot_with_web(emulator, database, port) as (_bot, base, _http):
        options = {"first": "me", "difficulty": "hard"}
        board = (await emulator.invoke(alice, "ttt start", options)).message
        page = await open_as(activity_client, emulator, base, alice)
        await page.activity.get_by_role("button", name="B2, empty").click()
        await shows(page, "B2, X")
    # the bot is down: the page keeps its board and tries again
    async with bot_with_web(emulator, database, port):
        current = emulator.message(board["id"])
        free = board_of(current).find(".")
        await emulator.click(alice, current, cell_id(current, free))  # played in the chat
        shown = board_of(emulator.message(board["id"]))
        expected = [f"{'ABC'[i % 3]}{i // 3 + 1}, {'empty' if m == '.' else m}"
                    for i, m in enumerate(shown)]  # fmt: skip
        for _ in range(300):  # the page reconnects (backoff) and catches up from the store
            if await labels(page) == expected:
                break
            await page.page.wait_for_timeout(50)
        assert await labels(page) == expected


@pytest.mark.postgres
async def test_a_page_served_by_one_process_shows_moves_the_other_handles(
    activity_client: ActivityClient, emulator: DiscordEmulator, pg_database: str, tmp_path
) -> None:
    """Two processes on one PostgreSQL: the bot's (the gateway, the chat buttons) and a
    web-only one serving the page. A chat move shows on the page; the page's move shows
    on the chat board."""
    alice = emulator.create_user("alice")
    async with bot_and_web_only(emulator, pg_database, tmp_path) as (base, _http):
        board = (await emulator.invoke(alice, "ttt start", {"first": "me"})).message
        page = await open_as(activity_client, emulator, base, alice)
        await emulator.click(alice, board, cell_id(board, 4))  # handled by the bot's process
        await shows(page, "B2, X")
        shown = board_of(emulator.message(board["id"]))
        free = shown.find(".")
        name = f"{'ABC'[free % 3]}{free // 3 + 1}, empty"
        await page.activity.get_by_role("button", name=name, exact=True).click()
        await eventually(lambda: board_of(emulator.message(board["id"]))[free] == "X")
        assert not page.errors, page.errors
