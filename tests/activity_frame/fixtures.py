"""Opens an Activity in a browser the way Discord does, for tests.

``activity_client`` starts the test Discord client (``server.py``) and a headless Chromium
whose ``discord.com`` is that server; ``await activity_client.open(url, ...)`` frames the
Activity at ``url`` and answers its SDK (``client.js``)::

    async def test_signs_in(activity_client, emu):
        instance_id = emu.launch_activity(alice, channel)
        page = await activity_client.open(
            f"http://127.0.0.1:{web_port}/.proxy/", client_id=str(emu.client_id),
            instance_id=instance_id, channel_id=str(channel.id), guild_id=str(guild.id),
            authorize=lambda args: emu.authorize(alice),  # the code AUTHORIZE answers
            user={"id": str(alice.id), "username": alice.name},
        )
        await page.activity.get_by_role("grid").wait_for()
        assert (await page.commands())[:2] == ["AUTHORIZE", "AUTHENTICATE"]

``page.activity`` locates inside the Activity, ``page.frame`` evaluates script there,
``page.rpc()`` lists the SDK messages that crossed and ``page.set_participants`` makes
people join or leave. AUTHENTICATE accepts any token unless ``access_token`` or an
``authenticate(token)`` hook (say, one asking the emulator whose token it is) is given.

The browser resolves no other host name (nothing leaves the machine): give the Activity
as 127.0.0.1. Without Playwright or Chromium the test is skipped, and fails under CI=true.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .server import HOST, ClientServer, client_url, make_certificate

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
DESKTOP = (1280, 800)
PHONE = (360, 740)


def chromium_path() -> str | None:
    """Debian's Chromium, or the one named by $TTT_CHROMIUM."""
    for candidate in (os.environ.get("TTT_CHROMIUM"), "/usr/bin/chromium",
                      shutil.which("chromium"), shutil.which("chromium-browser")):  # fmt: skip
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def unavailable(reason: str) -> None:
    """Skips the test, or fails it in CI, where the browser tests must run."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser test cannot run: {reason}")
    pytest.skip(reason)


@dataclass
class ActivityPage:
    """The Discord client's page (``page``) and the Activity inside it (``activity``)."""

    page: Any  # playwright.async_api.Page
    context: Any  # playwright.async_api.BrowserContext
    errors: list[str] = field(default_factory=list)

    @property
    def activity(self) -> Any:
        """A FrameLocator on the Activity's frame: ``activity.get_by_role(...)``."""
        return self.page.frame_locator("iframe")

    @property
    def frame(self) -> Any:
        """The Activity's Frame, to evaluate script in it (None before it is attached)."""
        return next((f for f in self.page.frames if f.parent_frame is not None), None)

    async def rpc(self) -> list[dict[str, Any]]:
        """Every SDK message that crossed: ``{"dir": "in"|"out"|"refused", "opcode",
        "payload"}``, in order."""
        return list(await self.page.evaluate("window.discordFrame.log"))

    async def commands(self) -> list[str]:
        """The commands the Activity sent, in order (``AUTHORIZE``, ``AUTHENTICATE``, …)."""
        return [m["payload"]["cmd"] for m in await self.rpc() if m["dir"] == "in"
                and m["opcode"] == 1]  # fmt: skip

    async def set_participants(self, people: Sequence[dict[str, Any]]) -> None:
        """People join or leave the Activity (dispatched if it subscribed)."""
        await self.page.evaluate("p => window.discordFrame.setParticipants(p)", list(people))

    async def screenshot(self, path: Path) -> None:
        await self.page.screenshot(path=str(path))


class ActivityClient:
    """A browser with the test Discord client; ``open`` frames an Activity in a new tab."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self.pages: list[ActivityPage] = []

    async def open(
        self,
        activity_url: str,
        *,
        client_id: str = "1",
        instance_id: str = "i-1",
        channel_id: str | None = "10",
        guild_id: str | None = None,
        platform: str = "desktop",
        code: str | None = None,
        authorize: Callable[[dict[str, Any]], Awaitable[str | None] | str | None] | None = None,
        authenticate: Callable[[str], Awaitable[dict[str, Any] | None]] | None = None,
        access_token: str | None = None,
        user: dict[str, Any] | None = None,
        participants: Sequence[dict[str, Any]] = (),
        viewport: tuple[int, int] = DESKTOP,
        reduced_motion: str = "no-preference",
    ) -> ActivityPage:
        """Frames ``activity_url`` as Discord does and waits for the frame to load.

        AUTHORIZE returns ``code``, or what ``authorize(args)`` returns (None refuses);
        AUTHENTICATE accepts any token (only ``access_token`` when given), or asks
        ``authenticate(token)`` for the user (None refuses). ``user`` is the member in
        READY and AUTHENTICATE: ``{"id", "username", "global_name"?, "avatar"?}``.
        """
        width, height = viewport
        context = await self.browser.new_context(
            ignore_https_errors=True, viewport={"width": width, "height": height},
            reduced_motion=reduced_motion, locale="en-US",
        )  # fmt: skip
        page = await context.new_page()
        opened = ActivityPage(page=page, context=context)
        page.on("pageerror", lambda error: opened.errors.append(str(error)))
        if authorize is not None:
            await page.expose_function("tttAuthorize", authorize)
        if authenticate is not None:
            await page.expose_function("tttAuthenticate", authenticate)
        url = client_url(
            activity_url, client_id=client_id, instance_id=instance_id, channel_id=channel_id,
            guild_id=guild_id, platform=platform, code=code, access_token=access_token,
            user=json.dumps(user) if user else None,
            participants=json.dumps(list(participants)) if participants else None,
        )  # fmt: skip
        await page.goto(url)
        await page.wait_for_selector("iframe")
        self.pages.append(opened)
        return opened


@pytest.fixture(scope="session")
def discord_certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    try:
        return make_certificate(tmp_path_factory.mktemp("discord-tls"))
    except (RuntimeError, OSError) as exc:
        unavailable(f"no certificate for the test Discord client: {exc}")
        raise


@pytest.fixture
async def activity_client(
    discord_certificate: tuple[Path, Path],
) -> AsyncIterator[ActivityClient]:
    """A headless Chromium whose discord.com is the test client (``server.py``)."""
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        unavailable("Playwright for Python is not installed (pip install -e '.[test]')")
        raise
    chromium = chromium_path()
    if chromium is None:
        unavailable("Chromium is not installed (apt-get install chromium)")
        raise AssertionError("unreachable")
    server = ClientServer(*discord_certificate)
    await server.start()
    # discord.com is this server; no other name resolves, so nothing leaves the machine.
    rules = (f"MAP {HOST} 127.0.0.1:{server.port}, MAP * ~NOTFOUND, "
             "EXCLUDE localhost, EXCLUDE 127.0.0.1")  # fmt: skip
    playwright = await async_playwright().start()
    try:
        browser = await playwright.chromium.launch(
            executable_path=chromium, args=[*CHROMIUM_ARGS, f"--host-resolver-rules={rules}"]
        )
        try:
            yield ActivityClient(browser)
        finally:
            await browser.close()
    finally:
        await playwright.stop()
        await server.stop()
