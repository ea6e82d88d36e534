"""Discord gateway (v10) over aiohttp websockets: HELLO/IDENTIFY/READY/RESUME, zlib-stream,
and sharding: one session per ``[shard_id, shard_count]``, each guild's events on shard
``(guild_id >> 22) % shard_count``, and, when ``emu.identify_spacing`` is set
(Discord's 5 s), at most one IDENTIFY per bucket (``shard_id % max_concurrency``) in that
time, answered with INVALID_SESSION beyond it as Discord does."""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

if TYPE_CHECKING:
    from .server import DiscordEmulator

OP_DISPATCH, OP_HEARTBEAT, OP_IDENTIFY, OP_PRESENCE, OP_VOICE = 0, 1, 2, 3, 4
OP_RESUME, OP_RECONNECT, OP_REQUEST_MEMBERS, OP_INVALID_SESSION = 6, 7, 8, 9
OP_HELLO, OP_HEARTBEAT_ACK = 10, 11

INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_MODERATION = 1 << 2  # bans (and audit log entries)
INTENT_GUILD_EMOJIS = 1 << 3  # GUILD_EXPRESSIONS: emoji and sticker updates
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12


class Connection:
    """One websocket; payloads are serialised (and zlib-stream compressed) by a writer task."""

    def __init__(self, ws: web.WebSocketResponse, compress: bool) -> None:
        self.ws = ws
        self._zlib = zlib.compressobj() if compress else None
        self._queue: asyncio.Queue[dict[str, Any] | Callable[[], None] | None] = asyncio.Queue()
        self._task = asyncio.create_task(self._writer())
        self.sent: list[dict[str, Any]] = []

    def send(self, item: dict[str, Any] | Callable[[], None]) -> None:
        self._queue.put_nowait(item)

    async def _writer(self) -> None:
        while True:
            item = await self._queue.get()
            if item is None:
                return
            if callable(item):
                item()
                continue
            if self.ws.closed:
                continue
            raw = json.dumps(item, separators=(",", ":"))
            try:
                if self._zlib is not None:
                    data = self._zlib.compress(raw.encode()) + self._zlib.flush(zlib.Z_SYNC_FLUSH)
                    await self.ws.send_bytes(data)
                else:
                    await self.ws.send_str(raw)
                self.sent.append(item)
            except (ConnectionError, RuntimeError):
                continue

    async def stop(self) -> None:
        self._queue.put_nowait(None)
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(self._task, 2)


IDENTIFY_SPACING = 5.0
"""Seconds between two IDENTIFYs of one concurrency bucket, on Discord."""


def guild_of(event: str, data: Any) -> int | None:
    """The guild an event belongs to (None: not a guild's, e.g. a DM), for routing."""
    if not isinstance(data, dict):
        return None
    raw = data.get("id") if event == "GUILD_CREATE" else data.get("guild_id")
    return int(raw) if raw is not None else None


class GatewaySession:
    def __init__(self, identify: dict[str, Any], shard: tuple[int, int] = (0, 1)) -> None:
        self.session_id = secrets.token_hex(16)
        self.identify = identify
        self.shard = shard
        self.intents: int = int(identify.get("intents") or 0)
        self.seq = 0
        self.events: list[dict[str, Any]] = []
        self.conn: Connection | None = None

    def dispatch(self, t: str, d: Any, after: Callable[[], None] | None = None) -> int:
        self.seq += 1
        payload = {"op": OP_DISPATCH, "t": t, "s": self.seq, "d": d}
        self.events.append(payload)
        if self.conn is not None:
            self.conn.send(payload)
            if after is not None:
                self.conn.send(after)
        return self.seq


class Gateway:
    def __init__(self, emu: DiscordEmulator) -> None:
        self.emu = emu
        self.sessions: dict[str, GatewaySession] = {}
        self.shards: dict[int, GatewaySession] = {}
        """The live session of each shard id."""
        self.last_identify: dict[int, float] = {}
        """When each concurrency bucket last IDENTIFYed (loop time)."""
        self.identify_refused: list[tuple[int, float]] = []
        """(shard id, seconds since the bucket's last IDENTIFY) of refused IDENTIFYs."""
        self.connections: list[Connection] = []
        self.heartbeats = 0
        self.resumes = 0
        self.resumed = asyncio.Event()

    @property
    def current(self) -> GatewaySession | None:
        """Shard 0's session: the only one of a bot that does not shard."""
        return self.shards.get(0)

    @property
    def connected(self) -> bool:
        return self.current is not None and self.current.conn is not None

    def shard_of(self, guild_id: int | None) -> int:
        return 0 if guild_id is None else (guild_id >> 22) % self.emu.shard_count

    def session_for(self, guild_id: int | None) -> GatewaySession | None:
        return self.shards.get(self.shard_of(guild_id))

    def dispatch(self, t: str, d: Any, *, intent: int = 0) -> None:
        """Dispatch to the session of the event's shard (queued for RESUME replay if it
        is disconnected; dropped if that shard has no session)."""
        session = self.session_for(guild_of(t, d))
        if session is None:
            return
        if intent and not session.intents & intent:
            return
        session.dispatch(t, d)

    async def drop(self, code: int = 4000, *, invalidate: bool = False, shard: int = 0) -> None:
        """Close a shard's socket; with invalidate=True its RESUME gets INVALID_SESSION(false)."""
        session = self.shards.get(shard)
        if session is None or session.conn is None:
            raise RuntimeError("no gateway connection to drop")
        conn = session.conn
        session.conn = None
        self.resumed.clear()
        if invalidate:
            self.sessions.pop(session.session_id, None)
        await conn.ws.close(code=code, message=b"emulator drop")

    def request_reconnect(self) -> None:
        """Send op 7 RECONNECT: the client closes and RESUMEs."""
        session = self.current
        if session is None or session.conn is None:
            raise RuntimeError("no gateway connection")
        self.resumed.clear()
        session.conn.send({"op": OP_RECONNECT, "s": None, "t": None, "d": None})

    async def close_all(self) -> None:
        for conn in list(self.connections):
            with contextlib.suppress(Exception):
                await conn.ws.close(code=1001)
            await conn.stop()

    async def handler(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        compress = request.query.get("compress")
        if request.query.get("encoding", "json") != "json" or compress not in (None, "zlib-stream"):
            self.emu.violation(f"gateway: unsupported encoding/compress {dict(request.query)}")
            await ws.close(code=4002, message=b"Error while decoding payload.")
            return ws
        conn = Connection(ws, compress == "zlib-stream")
        self.connections.append(conn)
        conn.send(
            {
                "op": OP_HELLO,
                "s": None,
                "t": None,
                "d": {"heartbeat_interval": self.emu.heartbeat_interval},
            }
        )
        session: GatewaySession | None = None
        try:
            async for msg in ws:
                if msg.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
                    break
                try:
                    payload = json.loads(msg.data)
                except ValueError:
                    await ws.close(code=4002, message=b"Error while decoding payload.")
                    break
                session = await self._handle(conn, session, payload)
        finally:
            if session is not None and session.conn is conn:
                session.conn = None
            await conn.stop()
            self.connections.remove(conn)
        return ws

    async def _handle(
        self, conn: Connection, session: GatewaySession | None, payload: dict[str, Any]
    ) -> GatewaySession | None:
        op, d = payload.get("op"), payload.get("d")
        emu = self.emu
        if op == OP_HEARTBEAT:
            self.heartbeats += 1
            conn.send({"op": OP_HEARTBEAT_ACK, "s": None, "t": None, "d": None})
        elif op == OP_IDENTIFY:
            if session is not None:
                await conn.ws.close(code=4005, message=b"Already authenticated.")
                return session
            emu.identify_payloads.append(d)
            if not isinstance(d, dict) or d.get("token") != emu.token:
                await conn.ws.close(code=4004, message=b"Authentication failed.")
                return None
            if "intents" not in d:
                await conn.ws.close(code=4013, message=b"Invalid intent(s).")
                return None
            shard = d.get("shard") or [0, 1]
            shard_id, count = int(shard[0]), int(shard[1])
            if count != emu.shard_count or not 0 <= shard_id < count:
                emu.violation(f"gateway: IDENTIFY as shard {shard} of {emu.shard_count}")
                await conn.ws.close(code=4010, message=b"Invalid shard.")
                return None
            bucket = shard_id % emu.max_concurrency
            now = asyncio.get_running_loop().time()
            last = self.last_identify.get(bucket)
            spacing = emu.identify_spacing
            if last is not None and now - last < spacing:
                # Discord answers an IDENTIFY over the bucket's rate with INVALID_SESSION
                self.identify_refused.append((shard_id, now - last))
                emu.violation(
                    f"gateway: IDENTIFY of shard {shard_id} {now - last:.2f}s after another "
                    f"of bucket {bucket} (at most one per {spacing:g}s)"
                )
                conn.send({"op": OP_INVALID_SESSION, "s": None, "t": None, "d": False})
                return None
            self.last_identify[bucket] = now
            session = GatewaySession(d, (shard_id, count))
            self.sessions[session.session_id] = session
            self.shards[shard_id] = session
            session.conn = conn
            session.dispatch("READY", emu.ready_payload(session.session_id, (shard_id, count)))
            guilds = [
                g for g in emu.guilds.values() if g.has_bot and self.shard_of(g.id) == shard_id
            ]
            for i, guild in enumerate(guilds):
                done = emu._mark_ready if i == len(guilds) - 1 else None
                session.dispatch("GUILD_CREATE", emu.guild_create_payload(guild), after=done)
            if not guilds:
                conn.send(emu._mark_ready)
        elif op == OP_RESUME:
            if not isinstance(d, dict) or d.get("token") != emu.token:
                await conn.ws.close(code=4004, message=b"Authentication failed.")
                return None
            found = self.sessions.get(str(d.get("session_id")))
            if found is None:
                conn.send({"op": OP_INVALID_SESSION, "s": None, "t": None, "d": False})
                return None
            session = found
            self.shards[session.shard[0]] = session
            session.conn = conn
            last = int(d.get("seq") or 0)
            for event in session.events:
                if event["s"] > last:
                    conn.send(event)
            self.resumes += 1
            session.dispatch("RESUMED", {}, after=self.resumed.set)
        elif op == OP_REQUEST_MEMBERS:
            if session is None:
                await conn.ws.close(code=4003, message=b"Not authenticated.")
                return None
            guild = emu.guilds.get(int(d["guild_id"])) if isinstance(d, dict) else None
            if guild is not None:
                members = emu.guild_create_payload(guild)["members"]
                chunk = {
                    "guild_id": str(guild.id),
                    "members": members,
                    "chunk_index": 0,
                    "chunk_count": 1,
                }
                if d.get("nonce"):
                    chunk["nonce"] = d["nonce"]
                session.dispatch("GUILD_MEMBERS_CHUNK", chunk)
        elif op in (OP_PRESENCE, OP_VOICE):
            if session is None:
                await conn.ws.close(code=4003, message=b"Not authenticated.")
        else:
            emu.violation(f"gateway: unknown opcode {op!r}")
            await conn.ws.close(code=4001, message=b"Unknown opcode.")
        return session
