"""The live socket's protocol under abuse (issue 53): the session comes in the socket's
first message, never in the URL; a page sends nothing after it, so a data frame closes
the socket (1008), and so do more bytes or pings than a page sends, counted before
aiohttp parses a frame; a process holds a total of pages (4029 past it); and a connect
credit is spent only on a page that opens."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import time
from dataclasses import replace
from urllib.parse import urlsplit

from test_web_member_limits import closed_with, hub_of, refused, two_players

from bot.i18n import text
from bot.settings import WebLimits
from bot.web.live import FULL_WAIT, LiveHub
from bot.web.live_guard import CONTROL_FRAMES, FIRST_WAIT, SENT_BYTES
from bot.web.page_text import plain

from bot_harness import eventually
from discord_emulator import DiscordEmulator
from web_harness import bot_with_web, live_socket, masked_text, next_game, sign_in


def short_wait(hub: LiveHub) -> None:
    """The first message's wait made short, for a test that waits it out."""
    hub.limits = replace(hub.limits, first_wait=0.3)


def connects_frozen(bot) -> None:
    """The connects' budget gives no credit back while the test runs, so what it holds
    is what was spent."""
    assert bot.web is not None and bot.web.budgets is not None
    now = time.monotonic()
    bot.web.budgets.connects.clock = lambda: now


def connects_left(bot, user_id: str) -> int:
    """The member's connects left, read by spending them (the test's last look)."""
    budget = bot.web.budgets.connects
    left = 0
    while budget.spend(int(user_id)) is None:
        left += 1
    return left


async def test_a_session_in_the_url_is_not_read_and_the_first_message_opens_the_page(
    emulator: DiscordEmulator, tmp_path
) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (bot, base, http):
        await two_players(emulator, alice, bob)
        page = await sign_in(emulator, http, base, alice)
        (game,) = await page.games()
        hub = hub_of(bot)
        short_wait(hub)
        async with http.ws_connect(f"{base}/api/live?session={page.session}") as ws:
            assert await closed_with(ws) == ([], 4001)  # nothing sent: sign in again
        assert hub.closed == {4001: 1} and hub.pages == 0
        hub.limits = replace(hub.limits, first_wait=FIRST_WAIT)  # the message may be slow
        # a session parameter, even a forged one, changes nothing: the message is read
        async with live_socket(http, base, page.session, "?session=forged") as ws:
            first = await ws.receive_json(timeout=10)
            assert first["type"] == "games" and [g["id"] for g in first["games"]] == [game["id"]]
            assert hub.pages == 1
            status, body = await page.post(f"/api/games/{game['id']}/move", {"ply": 0, "cell": 4})
            assert status == 200, body
            assert (await next_game(ws))["cells"][4]["mark"] == "X"


async def test_a_first_message_that_names_no_valid_session_is_closed_4001(
    emulator: DiscordEmulator, tmp_path
) -> None:
    alice = emulator.create_user("alice")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (bot, base, http):
        page = await sign_in(emulator, http, base, alice)
        hub = hub_of(bot)
        forged = page.session[:-4] + "AAAA"
        token = page.session
        junk = ("not json", "[]", *map(json.dumps, (
            {"type": "session"}, {"session": token}, {"type": "ping", "session": token},
            {"type": "session", "session": 12}, {"type": "session", "session": forged},
        )))  # fmt: skip
        for first in junk:
            async with http.ws_connect(f"{base}/api/live") as ws:
                await ws.send_str(first)
                assert await closed_with(ws) == ([], 4001), first
        async with http.ws_connect(f"{base}/api/live") as ws:  # a page never sends binary
            await ws.send_bytes(json.dumps({"type": "session", "session": page.session}).encode())
            assert await closed_with(ws) == ([], 1008)
        assert hub.closed == {4001: len(junk), 1008: 1} and hub.pages == 0


async def test_a_page_that_sends_a_data_frame_after_its_session_is_closed_1008(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """Text or binary; the member's other page, and the next one they open, are served."""
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (bot, base, http):
        await two_players(emulator, alice, bob)
        page = await sign_in(emulator, http, base, alice)
        (game,) = await page.games()
        hub = hub_of(bot)
        async with page.live() as kept:
            async with page.live() as chatty:
                await chatty.send_str('{"type": "ping"}')  # what the page sent before
                assert await closed_with(chatty) == ([], 1008)
            async with page.live() as binary:
                await binary.send_bytes(b"\0")
                assert await closed_with(binary) == ([], 1008)
            await eventually(lambda: hub.pages == 1, "the closed pages forgotten")
            assert hub.closed == {1008: 2}
            async with page.live() as again:
                status, body = await page.post(f"/api/games/{game['id']}/move",
                                               {"ply": 0, "cell": 4})  # fmt: skip
                assert status == 200, body
                for ws in (kept, again):
                    assert (await next_game(ws))["cells"][4]["mark"] == "X"


async def raw_page(base: str, session: str) -> socket.socket:
    """A page's socket over a raw connection, its session sent: for frames no client
    library sends."""
    url = urlsplit(base)
    loop = asyncio.get_running_loop()
    raw = socket.socket()
    raw.setblocking(False)
    await loop.sock_connect(raw, (url.hostname, url.port))
    key = base64.b64encode(os.urandom(16)).decode()
    await loop.sock_sendall(raw, (
        f"GET /api/live HTTP/1.1\r\nHost: {url.netloc}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode())  # fmt: skip
    head = b""
    while b"\r\n\r\n" not in head:
        head += await loop.sock_recv(raw, 1)
    assert head.startswith(b"HTTP/1.1 101"), head
    await loop.sock_sendall(raw, masked_text(json.dumps({"type": "session", "session": session})))
    return raw


async def close_code(raw: socket.socket) -> int:
    """The close code of the first close frame the service sends (its frames are not
    masked), after whatever it sent before."""
    loop, data = asyncio.get_running_loop(), b""
    async with asyncio.timeout(10):
        while True:
            while len(data) < 2:
                data += await loop.sock_recv(raw, 65536)
            size, start = data[1] & 0x7F, 2
            if size == 126:
                while len(data) < 4:
                    data += await loop.sock_recv(raw, 65536)
                size, start = int.from_bytes(data[2:4], "big"), 4
            while len(data) < start + size:
                data += await loop.sock_recv(raw, 65536)
            if data[0] & 0x0F == 0x8:
                return int.from_bytes(data[start : start + 2], "big")
            data = data[start + size :]


async def test_frames_that_never_reach_a_handler_are_counted_and_close_the_page(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """A message begun and never finished (empty continuation frames: aiohttp parses
    each and hands none on), and pings: past what a page sends, the socket is closed."""
    alice = emulator.create_user("alice")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (bot, base, http):
        page = await sign_in(emulator, http, base, alice)
        hub = hub_of(bot)
        raw = await raw_page(base, page.session)
        try:
            await eventually(lambda: hub.pages == 1, "the page accepted")
            loop = asyncio.get_running_loop()
            begun = bytes([0x01, 0x80]) + b"\0" * 4  # text, not final, empty
            empty = bytes([0x00, 0x80]) + b"\0" * 4  # continuation, not final, empty
            await loop.sock_sendall(raw, begun + empty * (SENT_BYTES // len(empty) + 1))
            assert await close_code(raw) == 1008
        finally:
            raw.close()
        async with page.live() as pinging:
            for _ in range(CONTROL_FRAMES + 1):
                await pinging.ping()
            assert (await closed_with(pinging))[1] == 1008
        await eventually(lambda: hub.pages == 0, "the pages forgotten")
        assert hub.closed == {1008: 2}
        async with page.live() as quiet:  # a page that keeps to the rules stays
            await quiet.ping()
            await quiet.pong()
            status, body = await page.post("/api/games", {"difficulty": "easy"})
            assert status == 200, body
            assert (await next_game(quiet))["id"] == body["game"]["id"]


async def test_a_fourth_page_spends_no_connect_and_the_process_total_refuses_4029(
    emulator: DiscordEmulator, tmp_path
) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    carol = emulator.create_user("carol", locale="fr")
    limits = WebLimits(connects_per_member=5, pages_overall=4)
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3", web_limits=limits) as (
        bot, base, http,
    ):  # fmt: skip
        connects_frozen(bot)
        a, b = await sign_in(emulator, http, base, alice), await sign_in(emulator, http, base, bob)
        c = await sign_in(emulator, http, base, carol)
        hub = hub_of(bot)
        async with a.live(), a.live(), a.live():
            for _ in range(3):  # once spent, connects would refuse these with 4029
                assert (await refused(a))[1] == 4008
            async with b.live():  # the process's fourth page
                said, code = await refused(c)
                assert code == 4029 and said == [{
                    "type": "closing", "code": 4029, "retry_after": FULL_WAIT,
                    "reason": plain(text("web.live.full", "fr", seconds=FULL_WAIT)),
                }]  # fmt: skip
            async with c.live():  # bob's page closed: room for hers
                assert hub.pages == 4
        assert hub.closed == {4008: 3, 4029: 1}
        assert connects_left(bot, a.user_id) == 2  # her three pages' credits only
        assert connects_left(bot, c.user_id) == 4  # her one page's


async def test_a_member_whose_sessions_were_revoked_has_their_pages_closed_4001(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """As at the session's end: the page signs in again, if it still may (forget-me and
    a ban revoke sessions, in any process: bot/web/sessions.py's Gate tells the hub)."""
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (bot, base, http):
        a, b = await sign_in(emulator, http, base, alice), await sign_in(emulator, http, base, bob)
        hub = hub_of(bot)
        async with a.live() as one, a.live() as two, b.live() as bobs:
            hub.revoked(None)  # news that may have been missed: nobody's pages
            hub.revoked(int(a.user_id))
            for ws in (one, two):
                assert await closed_with(ws) == ([], 4001)
            await eventually(lambda: hub.pages == 1, "her pages forgotten")
            assert not bobs.closed


async def test_sockets_that_never_send_their_session_cannot_keep_a_page_out(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """As many may wait for their first message as pages may be open; past that the
    longest waiting is closed (4001), not the newest: a page sends its session at once."""
    alice = emulator.create_user("alice")
    limits = WebLimits(pages_overall=2)
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3", web_limits=limits) as (
        bot, base, http,
    ):  # fmt: skip
        page = await sign_in(emulator, http, base, alice)
        hub = hub_of(bot)
        hub.limits = replace(hub.limits, first_wait=600)  # only a newer socket closes them
        async with http.ws_connect(f"{base}/api/live") as first:
            await eventually(lambda: len(hub.waiting) == 1, "the first socket waiting")
            async with http.ws_connect(f"{base}/api/live") as second:
                await eventually(lambda: len(hub.waiting) == 2, "the second socket waiting")
                async with page.live():  # the third: the longest waiting makes room
                    assert await closed_with(first) == ([], 4001)
                    assert hub.pages == 1 and len(hub.waiting) == 1 and not second.closed
        assert hub.closed == {4001: 1}
