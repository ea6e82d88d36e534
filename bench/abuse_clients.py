"""The clients of bench/abuse_second.py: what an attacker on the internet sends (gzip
bombs, junk sign-ins, dripping requests, a flood of WebSocket frames, written at the
byte level where aiohttp's client would get in the way), a member's page signing in as
web/src/discord.js does, and a process's CPU time read from /proc."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import random
import secrets
import time
import zlib
from collections import Counter
from typing import Any

import aiohttp

PAGE_TRIES = 6
"""web/src/discord.js's SIGN_IN_TRIES: a page gives up after six refused sign-ins."""


def gzip_bomb(expanded_mb: int) -> bytes:
    """A gzip body of zeros that expands to ``expanded_mb`` MiB (250 MiB: 255 KB)."""
    packer, zeros = zlib.compressobj(9, zlib.DEFLATED, 31), bytes(1 << 20)
    return b"".join([*(packer.compress(zeros) for _ in range(expanded_mb)), packer.flush()])


async def bomb_loop(url: str, body: bytes, stop: asyncio.Event, tally: Counter[str]) -> None:
    """POST ``body`` as ``Content-Encoding: gzip`` to ``url``, again and again, one at a
    time, until ``stop``: an attacker with no key (the signature is junk)."""
    headers = {"Content-Type": "application/json", "Content-Encoding": "gzip",
               "X-Signature-Ed25519": "00" * 64,
               "X-Signature-Timestamp": str(int(time.time()))}  # fmt: skip
    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as http:
        while not stop.is_set():
            try:
                async with http.post(url, data=body, headers=headers, timeout=timeout) as res:
                    await res.read()
                    tally[str(res.status)] += 1
            except (aiohttp.ClientError, TimeoutError) as exc:
                tally[type(exc).__name__] += 1
                await asyncio.sleep(0.1)


async def post_json(
    http: aiohttp.ClientSession, url: str, body: Any, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, Any]]:
    """The status and JSON answer (an answer that is not JSON as ``{"text": ...}``)."""
    async with http.post(url, json=body, headers=headers or {}) as res:
        raw = await res.read()
    try:
        answer = json.loads(raw)
    except ValueError:
        answer = None
    return res.status, answer if isinstance(answer, dict) else {"text": raw[:80].decode("latin1")}


def unknown_instance() -> str:
    """An id shaped like an Activity instance's (a snowflake) that names none."""
    return str(random.getrandbits(62))


async def junk_flow(
    http: aiohttp.ClientSession, front: str, rate: float, stop: asyncio.Event,
    tally: Counter[str],
) -> None:  # fmt: skip
    """Junk sign-ins (a made-up code naming an unknown instance) at ``rate`` a second,
    each sent without waiting for the last, until ``stop``; ``tally`` counts answers."""

    async def one() -> None:
        body = {"code": secrets.token_urlsafe(22), "instance_id": unknown_instance()}
        try:
            status, answer = await post_json(http, f"{front}/api/session", body)
            tally[f"{status} {answer.get('error', '')}".strip()] += 1
        except aiohttp.ClientError as exc:
            tally[type(exc).__name__] += 1

    began, sent, running = time.monotonic(), 0, set()
    while not stop.is_set():
        task = asyncio.create_task(one())
        running.add(task)
        task.add_done_callback(running.discard)
        sent += 1
        await asyncio.sleep(max(0.0, began + sent / rate - time.monotonic()))
    if running:
        await asyncio.wait(running, timeout=15)


def page_delay(attempt: int, retry_after: Any, rng: random.Random) -> float:
    """web/src/discord.js's retryDelay, in seconds."""
    told = float(retry_after) if isinstance(retry_after, int | float) else 0.0
    base = min(30.0, max(told, 2.0**attempt))
    return base + rng.random() * base * 0.5


async def page_sign_in(
    emu: Any, http: aiohttp.ClientSession, front: str, user: Any, channel: Any,
    rng: random.Random, tries: int = PAGE_TRIES,
) -> tuple[str | None, int, float, str]:  # fmt: skip
    """A member opens the Activity and signs in as the page does (``tries`` tries, the
    page's waits, a new code when the refused one was spent): the session (None if
    refused every time), the tries, the seconds, and the last refusal."""
    instance = emu.launch_activity(user, channel)
    began, code, last = time.monotonic(), emu.authorize(user), ""
    for attempt in range(tries):
        body = {"code": code, "instance_id": instance}
        status, answer = await post_json(http, f"{front}/api/session", body)
        if status == 200:
            return str(answer["session"]), attempt + 1, time.monotonic() - began, ""
        last = f"{status} {answer.get('error') or answer.get('text', '')}".strip()
        if status != 429 or attempt + 1 >= tries:
            return None, attempt + 1, time.monotonic() - began, last
        await asyncio.sleep(page_delay(attempt, answer.get("retry_after"), rng))
        if answer.get("code_spent") is not False:
            code = emu.authorize(user)
    return None, tries, time.monotonic() - began, last


# --- dripping requests -----------------------------------------------------------------


class Drippers:
    """``count`` connections to nginx that each send ``head`` (a request's line and
    headers, announcing a body) and then one byte of body every ``every`` seconds; one
    the server closes is opened again a second later, as an attacker keeps them up."""

    def __init__(self, port: int, head: bytes, count: int, every: float) -> None:
        self.port, self.head, self.count, self.every = port, head, count, every
        self.held = 0
        self.opened = 0
        self.ended: Counter[str] = Counter()
        """How the server ended a connection: its status line's code, or how it closed."""
        self.lifetimes: list[float] = []
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        self._tasks = [asyncio.create_task(self._one()) for _ in range(self.count)]

    async def stop(self) -> None:
        self._stop.set()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _one(self) -> None:
        while not self._stop.is_set():
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            except OSError:
                self.ended["connect refused"] += 1
                await asyncio.sleep(self.every)
                continue
            self.opened += 1
            self.held += 1
            began = time.monotonic()
            try:
                writer.write(self.head)
                await self._drip(reader, writer)
            except OSError:
                self.ended["reset"] += 1
            finally:
                self.held -= 1
                self.lifetimes.append(time.monotonic() - began)
                writer.close()
                with contextlib.suppress(OSError):
                    await writer.wait_closed()
            if not self._stop.is_set():
                await asyncio.sleep(self.every)

    async def _drip(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while not self._stop.is_set():
            try:
                data = await asyncio.wait_for(reader.read(256), self.every)
            except TimeoutError:
                writer.write(b" ")
                await writer.drain()
                continue
            parts = data.split(b" ", 2)
            answered = parts[1].decode() if data.startswith(b"HTTP/") and len(parts) > 1 else ""
            self.ended[answered or "closed"] += 1
            return


def drip_head(method: str, path: str, body: int = 1000) -> bytes:
    return (f"{method} {path} HTTP/1.1\r\nHost: ttt\r\nContent-Type: application/json\r\n"
            f"Content-Length: {body}\r\n\r\n").encode()  # fmt: skip


# --- a WebSocket at the byte level -----------------------------------------------------


def ws_frame(payload: bytes, opcode: int = 1) -> bytes:
    """One masked frame from a client (RFC 6455 5.2), FIN set."""
    mask, size = os.urandom(4), len(payload)
    head = bytes([0x80 | opcode])
    if size < 126:
        head += bytes([0x80 | size])
    else:
        head += bytes([0x80 | 126]) + size.to_bytes(2, "big")
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return head + mask + masked


async def ws_read(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """One frame from the server (unmasked): its opcode and payload."""
    first, second = await reader.readexactly(2)
    size = second & 0x7F
    if size == 126:
        size = int.from_bytes(await reader.readexactly(2), "big")
    elif size == 127:
        size = int.from_bytes(await reader.readexactly(8), "big")
    mask = await reader.readexactly(4) if second & 0x80 else b""
    payload = await reader.readexactly(size)
    if mask:
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return first & 0x0F, payload


class RawSocket:
    """A live socket opened as the page opens it, then made to flood: the session both
    in the URL (what the server of 3484b14 reads) and in a first text frame (what the
    page sends from issue 53 on); each server ignores the other."""

    def __init__(self) -> None:
        self.close_code: int | None = None
        self.closed_after: float | None = None
        self.frames_sent = 0
        self.status = 0
        self._flood_began = 0.0

    async def open(self, port: int, session: str) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", port)
        key = base64.b64encode(os.urandom(16)).decode()
        self.writer.write(
            f"GET /api/live?session={session} HTTP/1.1\r\nHost: ttt\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        head = await self.reader.readuntil(b"\r\n\r\n")
        self.status = int(head.split(b" ", 2)[1])
        if self.status != 101:
            raise ConnectionError(f"the live socket was answered {head[:60]!r}")
        hello = b'{"type": "session", "session": "%s"}' % session.encode()
        self.writer.write(ws_frame(hello))
        opcode, payload = await asyncio.wait_for(ws_read(self.reader), 10)
        if opcode != 1 or b'"games"' not in payload:
            raise ConnectionError(f"the live socket's first message: {opcode} {payload[:80]!r}")

    async def flood(self, seconds: float, batch: int = 2000) -> None:
        """Frames as fast as the connection takes them, for ``seconds`` or until closed;
        the server's frames read meanwhile (a close frame's code kept)."""
        frames = ws_frame(b'{"type": "x"}') * batch
        self._flood_began = time.monotonic()
        listening = asyncio.create_task(self._listen())
        end = self._flood_began + seconds
        try:
            while time.monotonic() < end and not listening.done():
                self.writer.write(frames)
                await self.writer.drain()
                self.frames_sent += batch
        except OSError:
            pass
        finally:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(listening), 2)
            listening.cancel()
            self.writer.close()

    async def _listen(self) -> None:
        try:
            while True:
                opcode, payload = await ws_read(self.reader)
                if opcode == 8:
                    self.close_code = int.from_bytes(payload[:2], "big") if payload else 1005
                    self.closed_after = time.monotonic() - self._flood_began
                    return
        except (asyncio.IncompleteReadError, OSError):
            self.closed_after = time.monotonic() - self._flood_began


def cpu_seconds(pid: int) -> float:
    """A process's CPU time so far (user + system), from /proc/<pid>/stat."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
