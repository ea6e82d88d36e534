"""The page under the web service's limits, in a real browser against the real bot: a page
past its member's limit of live sockets says why and does not try again; a socket ended
with its session is followed by a silent sign-in and a reconnect."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from bot.i18n import text
from bot.settings import WebLimits
from bot.web.page_text import plain
from bot.web.sessions import LIFETIME

from activity_frame.fixtures import ActivityClient, ActivityPage
from bot_harness import cell_id, eventually
from discord_emulator import DiscordEmulator
from web_harness import bot_with_web

pytestmark = pytest.mark.browser


async def open_as(
    client: ActivityClient, emu: DiscordEmulator, base: str, user, ready: str | None = None
) -> ActivityPage:
    """``user`` opens the Activity in the emulator's channel, as from the App Launcher;
    returns once the page shows a board (or the element ``ready`` selects)."""
    instance = emu.launch_activity(user)
    page = await client.open(
        f"{base}/.proxy/", client_id=str(emu.client_id), instance_id=instance,
        channel_id=str(emu.channel.id), guild_id=str(emu.guild.id),
        authorize=lambda args: emu.authorize(user),
        user={"id": str(user.id), "username": user.name},
    )  # fmt: skip
    shown = page.activity.locator(ready) if ready else page.activity.get_by_role("grid")
    await shown.wait_for()
    return page


async def connection_line(page: ActivityPage) -> tuple[str, str | None, bool]:
    """The connection line: its words, its state, whether it is shown."""
    line = page.activity.locator("#connection")
    return (await line.inner_text(), await line.get_attribute("data-state"),
            await line.is_visible())  # fmt: skip


async def test_a_page_past_the_members_limit_says_why_and_does_not_try_again(
    activity_client: ActivityClient, emulator: DiscordEmulator, tmp_path: Path
) -> None:
    alice = emulator.create_user("alice", locale="fr")
    limits = WebLimits(pages_per_member=1)
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3", web_limits=limits) as (
        bot, base, _http,
    ):  # fmt: skip
        hub = bot.web.service.api.hub
        await emulator.invoke(alice, "ttt start", {"first": "me"})
        first = await open_as(activity_client, emulator, base, alice)
        await eventually(lambda: hub.pages == 1, "the first page live")
        second = await open_as(activity_client, emulator, base, alice)
        reason = plain(text("web.live.too_many", "fr", count=1))

        async def says_why() -> bool:
            return await connection_line(second) == (reason, "stopped", True)

        await eventually(says_why, "the second page saying why")
        # the network back, the page shown again: a page waiting to reconnect would now
        await second.frame.evaluate("window.dispatchEvent(new Event('online'))")
        await second.frame.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
        await first.activity.get_by_role("button", name="B2, vide").click()
        await first.activity.get_by_role("button", name="B2, X", exact=True).wait_for()
        assert hub.closed == {4008: 1} and hub.pages == 1  # the second never came back
        assert await connection_line(second) == (reason, "stopped", True)
        await second.screenshot(Path(os.environ.get("TTT_SCREENSHOTS", tmp_path)) / "4008.png")
        assert not first.errors and not second.errors, (first.errors, second.errors)


async def test_a_page_whose_session_ended_signs_in_again_and_reconnects(
    activity_client: ActivityClient, emulator: DiscordEmulator, tmp_path: Path
) -> None:
    alice = emulator.create_user("alice")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (bot, base, _http):
        hub = bot.web.service.api.hub
        board = (await emulator.invoke(alice, "ttt start", {"first": "me"})).message
        page = await open_as(activity_client, emulator, base, alice)
        await eventually(lambda: hub.pages == 1, "the page live")
        assert (await page.commands()).count("AUTHORIZE") == 1
        hub.clock = lambda: time.time() + LIFETIME  # the session's hour is over
        await hub.check()
        hub.clock = time.time
        assert hub.closed == {4001: 1}

        async def signed_in_again() -> bool:
            return (await page.commands()).count("AUTHORIZE") == 2

        await eventually(signed_in_again, "the page signing in again")
        await eventually(lambda: hub.pages == 1, "the page live again")
        await emulator.click(alice, board, cell_id(board, 4))
        await page.activity.get_by_role("button", name="B2, X", exact=True).wait_for()
        assert await page.activity.locator("#alert").inner_text() == ""
        assert hub.closed == {4001: 1} and not page.errors, page.errors
