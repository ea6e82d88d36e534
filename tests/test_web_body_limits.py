"""Bodies the web service takes (issue 53): never an encoded one (a gzip bomb is refused
with a 415 before a byte of it is read, and nothing in the server ever inflates it), a
size per route (16 KB for the page's API, :data:`MAX_INTERACTION_BODY` for Discord's
interactions), and the whole body within a total time, however slowly it trickles in
(a 408, the connection closed). Through the real bot and its emulator; the total time
on a service of the bot's own parts with a short total injected."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import http_parser, web

from bot.web.bodies import MAX_API_BODY, MAX_INTERACTION_BODY
from bot.web.service import make_app, runner

from bot_harness import free_port
from discord_emulator import DiscordEmulator
from web_harness import bot_with_web

INFLATED = 10_000_000
BOMB = gzip.compress(b"\0" * INFLATED, compresslevel=9)
"""10 MB of zeros in about 10 KB (under the API's 16 KB): the issue's bomb, smaller."""
CODINGS = ["gzip", "GZip", "deflate", "br", "x-gzip", "identity, gzip", " gzip "]


class Inflations:
    """Counts the decompressors aiohttp's parsers make for request bodies (the C parser
    and the Python one both make :class:`aiohttp.http_parser.DeflateBuffer`)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.made = 0
        made = http_parser.DeflateBuffer.__init__

        def counted(buffer: http_parser.DeflateBuffer, *args: object, **kwargs: object) -> None:
            self.made += 1
            made(buffer, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(http_parser.DeflateBuffer, "__init__", counted)


async def post(
    http: aiohttp.ClientSession, url: str, body: bytes, headers: dict[str, str]
) -> tuple[int, dict[str, str], bytes]:
    async with http.post(url, data=body, headers=headers) as res:
        return res.status, dict(res.headers), await res.read()


async def test_an_encoded_body_is_refused_and_never_inflated(
    emulator: DiscordEmulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A gzip bomb to the API (under its size limit: only its encoding refuses it) and to
    /interactions (signed: only its encoding refuses it), in every spelling of an
    encoding: a 415 each, with the reason as JSON, and no decompressor made; a body that
    is no gzip at all, sent as gzip, likewise (inflating it would have failed with a
    400 of aiohttp's). Nothing reached Discord: the sign-in was never tried."""
    alice = emulator.create_user("alice")
    inflations = Inflations(monkeypatch)
    broken = b"\x1f\x8b not gzip at all"
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3",
                            public_key=emulator.public_key) as (_bot, base, http):  # fmt: skip
        instance = emulator.launch_activity(alice)
        sign_in = json.dumps({"code": emulator.authorize(alice), "instance_id": instance})
        sign_in_bomb = gzip.compress(sign_in.encode()) + BOMB  # members of one gzip stream
        assert len(sign_in_bomb) < MAX_API_BODY  # what would refuse it is its encoding only
        assert len(gzip.decompress(sign_in_bomb)) > INFLATED  # inflated here, by the test
        signed = emulator.http_mode.headers(BOMB)
        for coding in CODINGS:
            for url, body, headers in (
                (f"{base}/api/session", sign_in_bomb, {}),
                (f"{base}/.proxy/api/session", broken, {}),
                (f"{base}/interactions", BOMB, signed),
                (f"{base}/interactions", broken, emulator.http_mode.headers(broken)),
            ):
                sent = headers | {"Content-Type": "application/json", "Content-Encoding": coding}
                status, answer_headers, raw = await post(http, url, body, sent)
                assert status == 415, (coding, url, status, raw[:200])
                assert json.loads(raw)["error"] == "encoded_body", raw
                assert answer_headers.get("Connection") == "close"
        assert inflations.made == 0
        assert [r.path for r in emulator.requests if r.path == "/oauth2/token"] == []
        # an encoding said as none is none: a PING is answered
        ping = b'{"type": 1}'
        status, _, raw = await post(http, f"{base}/interactions", ping,
                                    emulator.http_mode.headers(ping) |
                                    {"Content-Encoding": "identity"})  # fmt: skip
        assert (status, json.loads(raw)) == (200, {"type": 1})

    # the count is no dead letter: a server on aiohttp's defaults inflates the same bomb
    async def swallow(request: web.Request) -> web.Response:
        return web.Response(status=413)

    app = web.Application()
    app.router.add_post("/", swallow)
    async with served(web.AppRunner(app)) as url, aiohttp.ClientSession() as http:
        await post(http, url, BOMB, {"Content-Encoding": "gzip"})
    assert inflations.made >= 1


async def test_bodies_past_their_routes_limit_are_refused(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    """16 KB for the API, :data:`MAX_INTERACTION_BODY` for an interaction: a byte more
    is a 413 (and a body announced past it is refused before it is sent); the limit
    itself is read and judged."""
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3",
                            public_key=emulator.public_key) as (_bot, base, http):  # fmt: skip
        for path in ("/api/session", "/.proxy/api/session"):
            status, _, raw = await post(http, base + path, b" " * MAX_API_BODY, {})
            assert (status, json.loads(raw)["error"]) == (400, "bad_json")  # read, judged
            status, headers, raw = await post(http, base + path, b" " * (MAX_API_BODY + 1), {})
            assert (status, json.loads(raw)["error"]) == (413, "too_large")
            assert headers.get("Connection") == "close"
        ping = b'{"type": 1, "pad": "'
        ping += b"x" * (MAX_INTERACTION_BODY - len(ping) - 2) + b'"}'
        assert len(ping) == MAX_INTERACTION_BODY
        status, _, raw = await post(http, f"{base}/interactions", ping,
                                    emulator.http_mode.headers(ping))  # fmt: skip
        assert (status, json.loads(raw)) == (200, {"type": 1})
        more = ping[:-2] + b'x"}'
        status, _, raw = await post(http, f"{base}/interactions", more,
                                    emulator.http_mode.headers(more))  # fmt: skip
        assert (status, json.loads(raw)["error"]) == (413, "too_large")
        # announced past the limit, never sent: refused on its headers alone
        port = int(base.rsplit(":", 1)[1])
        for path, size in (("/api/session", MAX_API_BODY + 1),
                           ("/interactions", MAX_INTERACTION_BODY + 1)):  # fmt: skip
            async with dripping(port, path, size, gap=None) as answer:
                status_line, _, raw = await answer
            assert status_line.startswith(b"HTTP/1.1 413"), (path, status_line)
            assert json.loads(raw)["error"] == "too_large"


async def test_a_body_that_trickles_in_is_cut_off_at_its_total(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    """A client sending its body a byte at a time, each byte in time for any gap between
    reads, is answered 408 once the total (0.3 s here, 10 s as shipped) is spent, and
    its connection closed; on the API as on /interactions, with the bot's own parts. A
    request in time is answered as ever, beside it."""
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3",
                            public_key=emulator.public_key) as (bot, _base, http):  # fmt: skip
        assert bot.web is not None
        own = bot.web.service
        app = make_app(own.api, own.doubts, interactions=own.interactions, body_within=0.3)
        async with served(runner(app)) as url:
            port = int(url.rstrip("/").rsplit(":", 1)[1])
            for path in ("/api/session", "/interactions", "/.proxy/api/games"):
                async with dripping(port, path, 4096, gap=0.02) as answer:
                    status_line, head, raw = await answer
                assert status_line.startswith(b"HTTP/1.1 408"), (path, status_line)
                assert json.loads(raw)["error"] == "slow_body"
                assert b"connection: close" in head.lower()
            ping = b'{"type": 1}'
            status, _, raw = await post(http, f"{url}interactions", ping,
                                        emulator.http_mode.headers(ping))  # fmt: skip
            assert (status, json.loads(raw)) == (200, {"type": 1})


@contextlib.asynccontextmanager
async def served(app_runner: web.AppRunner) -> AsyncIterator[str]:
    await app_runner.setup()
    port = free_port()
    await web.TCPSite(app_runner, "127.0.0.1", port).start()
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        await app_runner.cleanup()


@contextlib.asynccontextmanager
async def dripping(
    port: int, path: str, size: int, gap: float | None
) -> AsyncIterator[asyncio.Future[tuple[bytes, bytes, bytes]]]:
    """A POST announcing ``size`` bytes of body, then sending one every ``gap`` seconds
    (None: none at all) until the server closes the connection; yields its answer (the
    status line, the headers and the body read to the connection's end)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 f"Content-Length: {size}\r\n\r\n".encode())  # fmt: skip

    async def drip() -> None:
        if gap is None:
            return
        with contextlib.suppress(ConnectionError):
            for _ in range(size):
                writer.write(b" ")
                await writer.drain()
                await asyncio.sleep(gap)

    async def answer() -> tuple[bytes, bytes, bytes]:
        async with asyncio.timeout(30):  # a bound for a broken server, not a measure
            status_line = await reader.readline()
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:"))  # fmt: skip
            body = await reader.readexactly(length)
            # then closed by the server: an end, or a reset (bytes it left unread)
            with contextlib.suppress(ConnectionResetError):
                assert await reader.read() == b""
        return status_line, head, body

    sending = asyncio.create_task(drip())
    answered = asyncio.ensure_future(answer())
    try:
        yield answered
    finally:
        sending.cancel()
        answered.cancel()
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
