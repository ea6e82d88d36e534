"""Slow requests through deploy/nginx.conf, with a real nginx in front of a real ttt
process (a test's small caps and totals set by tests/nginx_harness.py): many slow
requests from one address (as every member's is, through Discord's proxy) lock no member
out; only the cap for the whole server refuses, as the API refuses, and frees once they
end; a header dripped within every gap is closed at its total; a body dripped within
every gap reaches the process as it comes, which cuts it off at its own total (408)."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest
from aiohttp import web

from bot_harness import eventually, free_port
from discord_emulator import DiscordEmulator
from nginx_harness import answer, behind_nginx, in_front, need_nginx
from web_harness import bot_with_web, sign_in

HELD = 250
"""Slow requests one address holds: more than the 200 per address nginx used to allow,
which then locked out every member behind the same proxy."""


@pytest.fixture(autouse=True)
def nginx_here() -> None:
    need_nginx()


async def hold(port: int, head: bytes, count: int) -> list[asyncio.StreamWriter]:
    """``count`` connections that each send ``head`` (a request whose body is announced
    and never comes) and then nothing: slow requests, held open."""
    held = []
    for _ in range(count):
        _reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(head)
        await writer.drain()
        held.append(writer)
    return held


SLOW_SIGN_IN = (b"POST /api/session HTTP/1.1\r\nHost: ttt\r\nContent-Type: application/json\r\n"
                b"Content-Length: 1000\r\n\r\n{")  # fmt: skip


async def test_many_slow_requests_from_one_address_lock_no_member_out(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    alice = emulator.create_user("alice")
    async with behind_nginx(emulator, tmp_path) as front:
        held = await hold(front.port, SLOW_SIGN_IN, HELD)
        try:
            # the same address (as Discord's proxy is for every member) signs in and plays
            page = await sign_in(emulator, front.http, front.url, alice)
            assert await page.games() == []
        finally:
            for writer in held:
                writer.close()


async def test_past_the_servers_cap_nginx_refuses_as_the_api_does(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    """The caps are for the server as a whole (a test's cap of 3 here), and free again
    once the requests holding them end. (The held bodies wait here without nginx's own
    gap of 5 s between reads, which would free their room too early on a busy machine.)"""
    changes = {"limit_conn api_all": "3", "client_body_timeout": "1h"}
    loop = asyncio.get_running_loop()
    async with behind_nginx(emulator, tmp_path, changes) as front:
        held = await hold(front.port, SLOW_SIGN_IN, 3)
        held_at = loop.time()
        try:

            async def refused() -> tuple[object, str | None] | None:
                nonlocal held, held_at
                if loop.time() - held_at > 5:  # the bot ends a body at 10 s (bodies.py): a
                    for writer in held:  # loaded machine's late try would find the three
                        writer.close()  # ended, so they are held afresh
                    held, held_at = await hold(front.port, SLOW_SIGN_IN, 3), loop.time()
                async with front.http.get(f"{front.url}/api/config") as res:
                    status, body = await answer(res)
                    return (body, res.headers.get("Retry-After")) if status == 429 else None

            # once nginx has read the three requests' headers, a fourth is refused
            body, retry = await eventually(refused, "a request past the cap refused")
            assert isinstance(body, dict) and body["error"] == "too_many" and body["reason"]
            assert retry == "1"
        finally:
            for writer in held:
                writer.close()

        async def served() -> bool:
            async with front.http.get(f"{front.url}/api/config") as res:
                return res.status == 200

        await eventually(served, "the API served once the slow requests closed")
    refused = [row for row in front.reached("GET", "/api/config") if row[0] == "429"]
    assert refused and all(addrs == [] for _, addrs in refused)


async def test_a_header_dripped_within_its_gaps_is_closed_at_its_total(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    """client_header_timeout is one timer for the whole header (a test's 1 s here): a
    client sending a byte every 0.2 s, never a gap as long, is closed all the same,
    long before its header would end."""
    header = b"GET /api/config HTTP/1.1\r\nHost: ttt\r\nX-Drip: " + b"x" * 200
    async with behind_nginx(emulator, tmp_path, {"client_header_timeout": "1s"}) as front:
        reader, writer = await asyncio.open_connection("127.0.0.1", front.port)
        sent, closed = 0, False
        try:
            while sent < len(header) and not closed:
                writer.write(header[sent : sent + 1])
                await writer.drain()
                sent += 1
                with contextlib.suppress(TimeoutError):
                    closed = await asyncio.wait_for(reader.read(1), 0.2) == b""
        except ConnectionError:
            closed = True
        finally:
            writer.close()
    assert closed and sent < len(header), f"still open after {sent} of {len(header)} bytes"


async def test_a_body_dripped_within_its_gaps_reaches_the_process_and_ends_at_its_total(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    """client_body_timeout is only a gap between reads, so nginx passes bodies on as they
    come (proxy_request_buffering off) and the process's own total applies (0.3 s here,
    10 s as shipped): a body sent a byte every 0.05 s is answered 408 slow_body through
    nginx, the connection closed, long before its last byte."""
    bodies = pytest.importorskip("bot.web.bodies", reason="the process's total (issue 53)")
    from bot.web.service import make_app, runner

    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3",
                            public_key=emulator.public_key) as (bot, _base, _http):  # fmt: skip
        assert bot.web is not None
        own = bot.web.service
        app = make_app(own.api, own.doubts, interactions=own.interactions, body_within=0.3)
        served = runner(app)
        await served.setup()
        port = free_port()
        await web.TCPSite(served, "127.0.0.1", port).start()
        try:
            async with in_front(port, tmp_path / "nginx") as front:
                for path in ("/api/session", "/interactions"):
                    status, rest, sent, size = await drip_body(front.port, path)
                    assert status.startswith(b"HTTP/1.1 408"), (path, status)
                    assert b'"slow_body"' in rest, rest
                    assert sent < size, f"{path}: the whole body went through"

                def both_logged() -> bool:
                    paths = ("/api/session", "/interactions")
                    return all(front.reached("POST", path) for path in paths)

                await eventually(both_logged, "both requests in nginx's access log")
        finally:
            await served.cleanup()
    for path in ("/api/session", "/interactions"):  # each reached the process, which ended it
        assert front.reached("POST", path) == [("408", [front.upstream])]
    assert bodies.BODY_WITHIN == 10  # as shipped (docs/run/under-abuse.md states it)


async def drip_body(port: int, path: str, size: int = 4096) -> tuple[bytes, bytes, int, int]:
    """A POST of ``size`` bytes, its body sent a byte every 0.05 s until an answer comes:
    the answer's status line (empty if none), the rest of it to the connection's end,
    and the bytes of body sent."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"POST {path} HTTP/1.1\r\nHost: ttt\r\nContent-Type: application/json\r\n"
                 f"Content-Length: {size}\r\n\r\n".encode())  # fmt: skip
    sent, status = 0, b""
    try:
        while sent < size and not status:
            writer.write(b" ")
            await writer.drain()
            sent += 1
            with contextlib.suppress(TimeoutError):
                status = await asyncio.wait_for(reader.readline(), 0.05)
        rest = await reader.read()  # to its end: nginx closes it after the 408
    finally:
        writer.close()
    return status, rest, sent, size
