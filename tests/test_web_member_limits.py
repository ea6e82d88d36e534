"""Limits per member at the web edge (issue 47): Discord's proxy hides members' addresses,
so each costly route of the page has a budget per member (the session's user) and one for
everyone, refused at once with a 429, a reason in the member's language and the wait; a
member holds at most three live sockets; a socket ends with its session, with its
member's leaving the Activity, and when its page stops reading, which delays no other."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import pytest

from bot.core.repository import MISSED
from bot.i18n import text
from bot.settings import WEB_LIMITS, WEB_SECONDS, Settings, SettingsError, WebLimits
from bot.web.instances import RUNNING_FOR
from bot.web.live import LiveHub
from bot.web.page_text import plain
from bot.web.sessions import LIFETIME

from bot_harness import eventually, free_port
from discord_emulator import DiscordEmulator
from web_harness import Page, bot_with_web, live_socket, masked_text, next_game, sign_in

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "MTA.Gx.abc"


def test_each_limit_is_a_setting_the_example_documents() -> None:
    example = (ROOT / ".env.example").read_text()
    names = [*WEB_LIMITS.values(), *WEB_SECONDS.values()]
    assert all(f"# {name}=" in example for name in names)
    env = {name: str(10 + i) for i, name in enumerate(names)} | {"DISCORD_TOKEN": TOKEN}
    limits = Settings.from_env(env).web_limits
    assert [getattr(limits, f) for f in [*WEB_LIMITS, *WEB_SECONDS]] == [
        10 + i for i in range(len(names))
    ]
    assert Settings.from_env({"DISCORD_TOKEN": TOKEN}).web_limits == WebLimits()
    bad_values = (("TTT_WEB_PAGES_PER_MEMBER", "0"), ("TTT_WEB_HINTS_OVERALL", "1.5"),
                  ("TTT_WEB_SEND_TIMEOUT", "0"), ("TTT_WEB_PRESENCE_EVERY", "nan"))  # fmt: skip
    for name, bad in bad_values:
        with pytest.raises(SettingsError, match=name):
            Settings.from_env({"DISCORD_TOKEN": TOKEN, name: bad})


def hub_of(bot) -> LiveHub:
    assert bot.web is not None and bot.web.service.api is not None
    hub: LiveHub = bot.web.service.api.hub
    return hub


def instance_reads(emu: DiscordEmulator) -> int:
    """``GET .../activity-instances/{id}`` calls the emulator has answered."""
    return sum(1 for r in emu.requests if r.method == "GET" and "/activity-instances/" in r.path)


async def closed_with(ws: aiohttp.ClientWebSocketResponse) -> tuple[list[Any], int | None]:
    """The messages a socket gets until it is closed, and the close code: the one in the
    server's close frame, which is what a browser's close event reports (RFC 6455
    7.1.5). Not ``ws.close_code``: a close made while the server's handler is reading
    ends the connection once the frame is sent (aiohttp's ``close()`` from another
    task), and the client, whose reply then cannot be written, reports 1006."""
    said = []
    async with asyncio.timeout(10):
        while True:
            message = await ws.receive()
            if message.type == aiohttp.WSMsgType.CLOSE:
                return said, message.data
            if message.type != aiohttp.WSMsgType.TEXT:
                return said, ws.close_code
            said.append(message.json())


async def refused(page: Page) -> tuple[list[Any], int | None]:
    """A live socket the service opens only to close: what it says, and the close code."""
    async with live_socket(page.http, page.base, page.session) as ws:
        return await closed_with(ws)


async def two_players(emu: DiscordEmulator, first, second) -> dict:
    """A game of ``first`` (X, to move) and ``second``, from the chat."""
    start = await emu.invoke(first, "ttt start", {"opponent": second, "first": "me"})
    accept = start.message["components"][0]["components"][0]["custom_id"]
    return (await emu.click(second, start.message, accept)).message


async def test_a_members_fourth_page_is_refused_and_their_three_stay_live(
    emulator: DiscordEmulator, tmp_path
) -> None:
    alice = emulator.create_user("alice", locale="de")
    bob = emulator.create_user("bob")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (bot, base, http):
        await two_players(emulator, alice, bob)
        a, b = await sign_in(emulator, http, base, alice), await sign_in(emulator, http, base, bob)
        (game,) = await a.games()
        async with a.live() as one, a.live() as two, a.live() as three:
            reason = plain(text("web.live.too_many", "de", count=3))
            assert await refused(a) == ([{"type": "closing", "code": 4008, "reason": reason}], 4008)
            again = await sign_in(emulator, http, base, alice)  # a new session is the same member
            assert (await refused(again))[1] == 4008
            async with b.live() as bobs:  # another member still connects
                status, body = await a.post(f"/api/games/{game['id']}/move", {"ply": 0, "cell": 4})
                assert status == 200, body
                for ws in (one, two, three, bobs):
                    assert (await next_game(ws))["cells"][4]["mark"] == "X"
                assert not any(ws.closed for ws in (one, two, three))
            await three.close()
            await eventually(lambda: hub_of(bot).pages == 2, "the closed page forgotten")
            async with a.live() as four:  # a page closed frees its place
                status, body = await b.post(f"/api/games/{game['id']}/move", {"ply": 1, "cell": 0})
                assert status == 200, body
                for ws in (one, two, four):
                    assert (await next_game(ws))["cells"][0]["mark"] == "O"


async def test_a_socket_ends_with_its_session_and_the_page_is_told_to_sign_in_again(
    emulator: DiscordEmulator, tmp_path
) -> None:
    alice = emulator.create_user("alice")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (bot, base, http):
        page = await sign_in(emulator, http, base, alice)
        hub = hub_of(bot)
        async with page.live() as older:
            reads = instance_reads(emulator)
            hub.clock = lambda: time.time() + LIFETIME  # the sessions' hour is over
            # a page opened now: its session ends at once (the service read it valid)
            async with live_socket(http, base, page.session) as newer:
                said, code = await closed_with(newer)
                assert code == 4001 and all(m["type"] == "games" for m in said), said
            assert not older.closed  # its own timer has most of an hour to run
            await hub.check()  # the check sees the older's session is over too
            assert await closed_with(older) == ([], 4001)
            assert instance_reads(emulator) == reads  # an expired page costs Discord nothing
        hub.clock = time.time
        again = await sign_in(emulator, http, base, alice)  # what the page does on 4001
        async with again.live():
            assert hub.pages == 1


async def test_a_member_who_left_the_activity_has_their_pages_closed_at_the_next_check(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """One read of each instance per check, however many pages it has; a member no
    longer in theirs is told why; an instance that ended closes its pages."""
    alice = emulator.create_user("alice", locale="fr")
    bob, carol = emulator.create_user("bob"), emulator.create_user("carol")
    elsewhere = emulator.create_channel(emulator.guild, "more-games")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (bot, base, http):
        a, b = await sign_in(emulator, http, base, alice), await sign_in(emulator, http, base, bob)
        c = await sign_in(emulator, http, base, carol, elsewhere)
        here = emulator.launch_activity(alice)  # the one she is in
        there = emulator.launch_activity(carol, elsewhere)
        hub = hub_of(bot)
        async with a.live() as a1, a.live() as a2, b.live() as b1, c.live() as c1:
            reads = instance_reads(emulator)
            emulator.advance(RUNNING_FOR)  # past the instances kept
            await hub.check()
            assert instance_reads(emulator) == reads + 2  # two instances, four pages
            assert hub.pages == 4
            emulator.leave_activity(alice, here)
            emulator.advance(RUNNING_FOR)  # past the instances kept
            await hub.check()
            assert instance_reads(emulator) == reads + 4
            left = plain(text("web.live.left", "fr"))
            for ws in (a1, a2):
                assert await closed_with(ws) == ([{"type": "closing", "code": 4003,
                                                   "reason": left}], 4003)  # fmt: skip
            await eventually(lambda: hub.pages == 2, "alice's pages forgotten")
            assert not b1.closed and not c1.closed
            emulator.leave_activity(carol, there)  # her instance ends with her
            emulator.advance(RUNNING_FOR)  # past the instances kept
            await hub.check()
            assert instance_reads(emulator) == reads + 6
            said, code = await closed_with(c1)
            assert code == 4003 and said[0]["reason"] == plain(text("web.live.left", "en"))
            assert not b1.closed


async def stalled_page(base: str, session: str) -> socket.socket:
    """A page whose socket is opened (the WebSocket handshake done) and never read again:
    its receive buffer, kept small, fills with the updates sent to it."""
    url = urlsplit(base)
    loop = asyncio.get_running_loop()
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    raw.setblocking(False)
    await loop.sock_connect(raw, (url.hostname, url.port))
    key = base64.b64encode(os.urandom(16)).decode()
    await loop.sock_sendall(raw, (
        f"GET /api/live HTTP/1.1\r\nHost: {url.netloc}\r\n"
        f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n"
    ).encode())  # fmt: skip
    head = b""
    while b"\r\n\r\n" not in head:
        head += await loop.sock_recv(raw, 1)
    assert head.startswith(b"HTTP/1.1 101"), head
    await loop.sock_sendall(raw, masked_text(json.dumps({"type": "session", "session": session})))
    return raw


async def test_a_page_that_stops_reading_is_dropped_and_delays_no_other(
    emulator: DiscordEmulator, tmp_path
) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    limits = WebLimits(page_queue=4)
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3", web_limits=limits) as (
        bot, base, http,
    ):  # fmt: skip
        await two_players(emulator, alice, bob)
        a, b = await sign_in(emulator, http, base, alice), await sign_in(emulator, http, base, bob)
        (game,) = await a.games()
        hub = hub_of(bot)
        stalled = await stalled_page(base, b.session)
        try:
            await eventually(lambda: hub.pages == 1, "the stalled page served")
            async with a.live() as reading:
                # every page is sent its channel's games again, until the stalled one's
                # buffers are full and its queue too: it is dropped, the other gets each
                sent = 0
                while not hub.closed[4013] and sent < 20_000:
                    hub.heard(MISSED)
                    assert (await reading.receive_json(timeout=10))["type"] == "games"
                    sent += 1
                assert hub.closed == {4013: 1}, f"the stalled page not dropped after {sent}"
                await eventually(lambda: hub.pages == 1, "the stalled page's socket closed")
                status, body = await a.post(f"/api/games/{game['id']}/move", {"ply": 0, "cell": 4})
                assert status == 200, body
                assert (await next_game(reading))["cells"][4]["mark"] == "X"
            loop = asyncio.get_running_loop()
            with_data = True
            while with_data:  # what it was sent, then the end: the service cut it
                try:
                    with_data = bool(await asyncio.wait_for(loop.sock_recv(stalled, 65536), 10))
                except ConnectionResetError:
                    with_data = False
        finally:
            stalled.close()


def assert_too_many(status: int, body: dict, whose: str, locale: str, most: int) -> None:
    """A 429 that says whose credits ran out, in the member's language, and the wait
    (a credit comes back every ``most`` seconds)."""
    assert status == 429, body
    wait = body["retry_after"]
    assert body == {"error": "too_many", "retry_after": wait,
                    "reason": plain(text(f"web.limit.{whose}", locale, seconds=wait))}  # fmt: skip
    assert type(wait) is int and 1 <= wait <= most, wait


async def test_hints_reviews_and_starts_are_refused_at_once_past_each_budget(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """Two requests a minute for each member, three for everyone (the two members' server
    may spend all three: its share is tests/test_web_fair_shares.py's): a member's third
    is refused, another member's first is not; the next is, everyone's being spent. A
    refused request changes nothing. A member's first hint for the position in front of
    them is free."""
    alice = emulator.create_user("alice", locale="es-ES")
    bob = emulator.create_user("bob", locale="pt-BR")
    limits = WebLimits(hints_per_member=2, hints_overall=3, reviews_per_member=2,
                       reviews_overall=3, starts_per_member=2, starts_overall=3,
                       server_share=100)  # fmt: skip
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3", web_limits=limits,
                            games_per_channel=10) as (bot, base, http):  # fmt: skip
        a, b = await sign_in(emulator, http, base, alice), await sign_in(emulator, http, base, bob)
        for _ in range(2):
            status, body = await a.post("/api/games", {"difficulty": "easy"})
            assert status == 200, body
        async with http.post(f"{base}/api/games", json={"difficulty": "easy"},
                             headers=a.headers) as res:  # fmt: skip
            body = await res.json()
            assert_too_many(res.status, body, "member", "es", 30)
            assert res.headers["Retry-After"] == str(body["retry_after"])  # as HTTP says it
        status, body = await b.post("/api/games", {"difficulty": "easy"})
        assert status == 200, body
        game = body["game"]
        status, body = await b.post(f"/api/games/{game['id']}/rematch")  # a start too
        assert_too_many(status, body, "overall", "pt-BR", 20)
        assert len(await bot.repo.running_games_in(emulator.channel.id)) == 3

        path = f"/api/games/{game['id']}"
        assert game["can_move"]  # bob moves first
        for _ in range(3):  # the first free, then the kept hint for his two credits
            status, body = await b.post(f"{path}/hint", {"ply": game["ply"]})
            assert status == 200 and body["cells"], body
        status, body = await b.post(f"{path}/hint", {"ply": game["ply"]})
        assert_too_many(status, body, "member", "pt-BR", 30)
        status, body = await a.post(f"{path}/hint", {"ply": game["ply"]})
        assert (status, body["error"]) == (403, "not_player")  # her credit, everyone's last
        status, body = await a.post(f"{path}/hint", {"ply": game["ply"]})
        assert_too_many(status, body, "overall", "es", 20)

        status, body = await b.post(f"{path}/resign")
        assert status == 200, body
        for _ in range(2):
            status, body = await b.get(f"{path}/review")
            assert status == 200 and body["summary"], body
        assert_too_many(*await b.get(f"{path}/review"), "member", "pt-BR", 30)
        status, body = await a.get(f"{path}/review")
        assert status == 200, body  # her credit, the last of everyone's
        assert_too_many(*await a.get(f"{path}/review"), "overall", "es", 20)


async def test_live_connects_are_refused_past_the_budget_with_the_wait(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """A socket opened past the connects' budget is closed at once (4029) with the reason
    and the wait: a browser cannot read a refused handshake's status."""
    alice = emulator.create_user("alice", locale="de")
    bob = emulator.create_user("bob")
    limits = WebLimits(connects_per_member=2, connects_overall=3, server_share=100)  # one server
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3", web_limits=limits) as (
        bot, base, http,
    ):  # fmt: skip
        a, b = await sign_in(emulator, http, base, alice), await sign_in(emulator, http, base, bob)
        for _ in range(2):
            async with a.live():
                pass
        said, code = await refused(a)
        (closing,) = said
        wait = closing["retry_after"]
        assert code == 4029 and 1 <= wait <= 30
        assert closing == {
            "type": "closing",
            "code": 4029,
            "retry_after": wait,
            "reason": plain(text("web.limit.member", "de", seconds=wait)),
        }
        async with b.live():
            pass
        said, code = await refused(b)
        assert code == 4029 and said[0]["reason"] == plain(
            text("web.limit.overall", "en", seconds=said[0]["retry_after"])
        )
        assert hub_of(bot).closed == {4029: 2}


async def test_the_limits_at_work_show_in_the_metrics(emulator: DiscordEmulator, tmp_path) -> None:
    alice = emulator.create_user("alice")
    port = free_port()
    limits = WebLimits(hints_per_member=1, pages_per_member=1)
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3", web_limits=limits,
                            health_port=port) as (_bot, base, http):  # fmt: skip
        page = await sign_in(emulator, http, base, alice)
        for _ in range(3):
            await page.post("/api/games/1/hint", {"ply": 0})
        async with page.live():
            assert (await refused(page))[1] == 4008
            async with http.get(f"http://127.0.0.1:{port}/metrics") as res:
                shown = await res.text()
    expected = ['ttt_web_refused_total{budget="hints"} 2.0',
                'ttt_web_refused_total{budget="reviews"} 0.0',
                'ttt_web_live_closed_total{code="4008"} 1.0', "ttt_web_live_pages 1.0"]  # fmt: skip
    assert all(line in shown.splitlines() for line in expected), shown
