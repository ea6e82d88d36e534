"""The Activity's web service under test: the bot with its web service on, against the
emulator (which plays Discord's OAuth2, its Activity instances and its client), and a
member's page reduced to its HTTP calls."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp

from bot.app import TTTBot

from bot_harness import free_port, running_bot, settings_for
from discord_emulator import DiscordEmulator


@dataclass
class Page:
    """One member's page: signed in from an Activity instance in a channel."""

    base: str
    session: str
    user_id: str
    channel_id: str
    http: aiohttp.ClientSession

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.session}"}

    async def get(self, path: str) -> tuple[int, Any]:
        async with self.http.get(f"{self.base}{path}", headers=self.headers) as res:
            return res.status, await res.json()

    async def post(self, path: str, body: Any = None) -> tuple[int, Any]:
        async with self.http.post(f"{self.base}{path}", json=body or {},
                                  headers=self.headers) as res:  # fmt: skip
            return res.status, await res.json()

    async def games(self) -> list[dict[str, Any]]:
        status, body = await self.get("/api/games")
        assert status == 200, body
        return list(body["games"])

    @contextlib.asynccontextmanager
    async def live(self) -> AsyncIterator[aiohttp.ClientWebSocketResponse]:
        async with live_socket(self.http, self.base, self.session) as ws:
            # the channel's games come once the service listens for this page: a move made
            # before that (the handshake done, the page not yet registered) is in the list,
            # not pushed, and a test waiting for its push would wait in vain
            first = await ws.receive_json(timeout=10)
            assert first["type"] == "games", first
            yield ws


@contextlib.asynccontextmanager
async def live_socket(
    http: aiohttp.ClientSession, base: str, session: str, query: str = ""
) -> AsyncIterator[aiohttp.ClientWebSocketResponse]:
    """A live socket opened as the page opens it: ``/api/live`` (``query``: what follows,
    as ``?game=12``), then the session as its first message."""
    async with http.ws_connect(f"{base}/api/live{query}") as ws:
        await ws.send_json({"type": "session", "session": session})
        yield ws


def masked_text(text: str) -> bytes:
    """A text frame as a client sends it (masked, here with a zero mask), for a test that
    speaks WebSocket over a raw socket."""
    data = text.encode()
    if len(data) < 126:
        head = bytes([0x81, 0x80 | len(data)])
    else:
        head = bytes([0x81, 0x80 | 126]) + len(data).to_bytes(2, "big")
    return head + b"\0\0\0\0" + data


async def next_game(ws: aiohttp.ClientWebSocketResponse, seconds: float = 5.0) -> dict[str, Any]:
    """The next ``game`` pushed to a page (``games`` lists are skipped)."""
    async with asyncio.timeout(seconds):
        while True:
            message = await ws.receive_json()
            if message["type"] == "game":
                return dict(message["game"])


async def sign_in(
    emu: DiscordEmulator, http: aiohttp.ClientSession, base: str, user, channel=None
) -> Page:
    """Open the Activity as ``user`` in ``channel`` and sign in as the page does."""
    instance = emu.launch_activity(user, channel)
    code = emu.authorize(user)
    async with http.post(
        f"{base}/api/session", json={"code": code, "instance_id": instance}
    ) as res:
        body = await res.json()
        assert res.status == 200, body
    return Page(base, body["session"], body["user"]["id"], body["channel_id"], http)


@contextlib.asynccontextmanager
async def bot_with_web(
    emu: DiscordEmulator, database: Path, port: int | None = None, **overrides: object
) -> AsyncIterator[tuple[TTTBot, str, aiohttp.ClientSession]]:
    """The bot with its web service on (on ``port``, or a free one); yields it, the
    service's base URL and a client."""
    port = port or free_port()
    settings = settings_for(emu, database, web_port=port, client_secret=emu.client_secret,
                            **overrides)  # fmt: skip
    async with running_bot(emu, settings) as bot, aiohttp.ClientSession() as http:
        yield bot, f"http://127.0.0.1:{port}", http


@contextlib.asynccontextmanager
async def bot_over_http(
    emu: DiscordEmulator, database: Path, port: int | None = None, **overrides: object
) -> AsyncIterator[tuple[TTTBot, str, aiohttp.ClientSession]]:
    """The bot with no gateway connection (TTT_GATEWAY=off): the emulator POSTs every
    interaction to its endpoint, signed. Yields what :func:`bot_with_web` yields."""
    async with bot_with_web(emu, database, port, public_key=emu.public_key, web_only=True,
                            **overrides) as (bot, base, http):  # fmt: skip
        yield bot, base, http  # running_bot points the emulator at its endpoint


@contextlib.asynccontextmanager
async def bot_and_web_only(
    emu: DiscordEmulator, dsn: str, workdir: Path
) -> AsyncIterator[tuple[str, aiohttp.ClientSession]]:
    """Two processes' worth on one PostgreSQL: the bot (gateway, chat buttons, no pages)
    and a web-only one serving the pages; yields the pages' base URL and a client."""
    bots = settings_for(emu, workdir / "unused.sqlite3", database_url=dsn)
    async with (
        running_bot(emu, bots),
        bot_with_web(emu, workdir / "unused2.sqlite3", database_url=dsn, web_only=True) as (
            _web, base, http,
        ),
    ):  # fmt: skip
        yield base, http
