"""Interactions over HTTP, as Discord sends them to an app's Interactions Endpoint URL:
each interaction POSTed to the bot's endpoint, signed with Ed25519 over the timestamp and
the raw body, and the HTTP response taken as its initial callback (validated against the
spec like a callback POSTed to the REST API, and held to the same 3-second deadline, from
when the interaction was created to when its response arrived). As Discord, it takes
JSON there, never multipart/form-data (files fail: discord-api-docs#5933); an endpoint
that POSTed the callback to the REST API itself answers 202 with no body.

``emu.use_http(url)`` turns it on; ``emu.public_key`` is the key the bot checks with. The
forgeries Discord's documentation says an endpoint must refuse are sent raw with
:meth:`HttpMode.post_raw`; a request as it went, captured and sent again (to any
process), with :meth:`HttpMode.replay`.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import TYPE_CHECKING, Any

import aiohttp
from nacl.signing import SigningKey

from . import interactions as ix
from .errors import ApiError
from .rest import RequestRecord
from .validation import BodyError

if TYPE_CHECKING:
    from .server import DiscordEmulator


USER_AGENT = "Discord-Interactions/1.0 (+https://discord.com)"
"""What Discord's requests to an endpoint say they are (not in its documentation: as seen
in requests captured from it)."""


class HttpMode:
    def __init__(self, emu: DiscordEmulator) -> None:
        self.emu = emu
        self.key = SigningKey.generate()
        self.url: str | None = None
        self._session: aiohttp.ClientSession | None = None
        self._sending: set[asyncio.Task[None]] = set()
        self.answered: list[int] = []
        """The interactions answered in an HTTP response, in order."""
        self.sent: dict[int, tuple[bytes, dict[str, str]]] = {}
        """Each interaction's request as it went: its body and headers (for :meth:`replay`)."""
        self._checked: str | None = None
        """The URL that passed the Developer Portal's check (:meth:`_portal_check`)."""
        self._checking = asyncio.Lock()
        self.apply_lag = 0.0
        """Seconds between an answer's arrival and its message existing: Discord makes it
        after the response, and a read of it meanwhile is Unknown Message."""

    @property
    def public_key(self) -> str:
        return self.key.verify_key.encode().hex()

    def sign(self, timestamp: str, body: bytes) -> str:
        return self.key.sign(timestamp.encode() + body).signature.hex()

    def headers(self, body: bytes, *, at: float | None = None) -> dict[str, str]:
        timestamp = str(int(time.time() if at is None else at))
        return {"Content-Type": "application/json", "User-Agent": USER_AGENT,
                "X-Signature-Timestamp": timestamp,
                "X-Signature-Ed25519": self.sign(timestamp, body)}  # fmt: skip

    async def post_raw(
        self, body: bytes, headers: dict[str, str], url: str | None = None
    ) -> tuple[int, Any]:
        """POST ``body`` with ``headers`` as given, to ``url`` (the endpoint's if None):
        the status and JSON (its text when it is not JSON)."""
        url = url or self.url
        assert url is not None, "emu.use_http(url) first"
        async with self.session().post(url, data=body, headers=headers) as resp:
            raw = await resp.read()
            try:
                return resp.status, json.loads(raw)
            except ValueError:  # not the bot's answer (a proxy's error page, say)
                return resp.status, raw.decode(errors="replace")

    async def replay(self, interaction_id: int, url: str | None = None) -> tuple[int, Any]:
        """POST an interaction already sent again, as it went (the same bytes, the same
        signature and timestamp), to ``url`` (the endpoint's if None): what someone who
        captured the request (from a log, a proxy) can do. Its answer is returned, never
        applied: this is not Discord sending it."""
        body, headers = self.sent[interaction_id]
        return await self.post_raw(body, dict(headers), url)

    def session(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession()
        return self._session

    async def close(self) -> None:
        for task in list(self._sending):
            task.cancel()
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def delivered(self) -> None:
        """Until every interaction POSTed has its response read and judged (a 202 may
        come well after the callback that answered it)."""
        if self._sending:
            await asyncio.wait(set(self._sending))

    def send(self, rec: ix.InteractionRecord) -> None:
        """Deliver ``rec`` in the background, as Discord does when a member acts."""
        task = asyncio.create_task(self.deliver(rec))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def deliver(self, rec: ix.InteractionRecord) -> None:
        """POST the interaction, then apply the response as its callback."""
        emu = self.emu
        assert self.url is not None
        body = json.dumps(rec.payload).encode()
        headers = self.headers(body)
        self.sent[rec.id] = (body, headers)
        try:
            async with self.session().post(self.url, data=body, headers=headers) as resp:
                arrived = time.monotonic()
                if resp.status == 202:  # answered by a callback POSTed meanwhile
                    self._check_answered_by_request(rec, await resp.read())
                    return
                if resp.status != 200:
                    text = await resp.text()
                    emu.violation(f"{rec.describe()}: the endpoint answered {resp.status}: {text}")
                    return
                if resp.content_type == "multipart/form-data":
                    emu.violation(
                        f"{rec.describe()}: its HTTP answer is multipart/form-data, which "
                        "Discord fails (discord-api-docs#5933): files go in a callback "
                        "POSTed to the REST API, the request answered 202 with no body"
                    )
                    return
                if resp.content_type != "application/json":
                    emu.violation(f"{rec.describe()}: its HTTP answer is {resp.content_type}, "
                                  "not JSON")  # fmt: skip
                    return
                answer = await resp.json()
        except aiohttp.ClientError as exc:
            emu.violation(f"{rec.describe()}: the endpoint could not be reached: {exc}")
            return
        self.answered.append(rec.id)
        if self.apply_lag:
            await asyncio.sleep(self.apply_lag)
        path = f"/interactions/{rec.id}/{rec.token}/callback"
        emu.requests.append(RequestRecord("POST", path, answer, {}))
        try:
            emu.rest._validate("POST", path, answer, None, [])
            await ix.handle_callback(emu, str(rec.id), rec.token, answer, False,
                                     received_at=arrived)  # fmt: skip
        except ApiError as err:
            emu.violation(f"{rec.describe()}: its HTTP answer: {err.violation or err.to_json()}")
        except BodyError as err:
            emu.violation(f"{rec.describe()}: its HTTP answer: invalid body: {err.summary}")

    async def portal_check(self) -> None:
        """What the Developer Portal does before it saves an Interactions Endpoint URL, and
        Discord again now and then after: a signed PING must be answered PONG, and one
        signed with another key refused with a 401. An endpoint failing either is not
        saved (or is removed, its owner told). Once a URL, before its first interaction
        (whose 3 seconds it does not use: Discord's check came when the URL was saved)."""
        url = self.url
        if url is None or self._checked == url:
            return
        async with self._checking:
            if self._checked == url:
                return
            try:
                await self._check_url(url)
            except aiohttp.ClientError as exc:
                self.emu.violation(f"{url}: the endpoint could not be reached: {exc}")
            self._checked = url

    async def _check_url(self, url: str) -> None:
        ping = b'{"type": 1}'
        status, body = await self.post_raw(ping, self.headers(ping))
        if (status, body) != (200, {"type": 1}):
            self.emu.violation(f"{url}: a signed PING was answered {status} {body!r}, not "
                               "a PONG: Discord would not save this URL")  # fmt: skip
        forged = self.headers(ping)
        forged["X-Signature-Ed25519"] = (
            SigningKey.generate()
            .sign(forged["X-Signature-Timestamp"].encode() + ping)
            .signature.hex()
        )
        status, _ = await self.post_raw(ping, forged)
        if status != 401:
            self.emu.violation(f"{url}: a PING signed with another key was answered "
                               f"{status}, not 401: Discord would remove this URL")  # fmt: skip

    def _check_answered_by_request(self, rec: ix.InteractionRecord, body: bytes) -> None:
        """A 202: Discord's documented answer of an endpoint that POSTed the interaction's
        callback itself ("respond to the original HTTP request with a 202 and no body"),
        which must have come first. The callback is the answer, held to the deadline; the
        202 itself is not (Discord does not document what it does with a late one)."""
        if body:
            self.emu.violation(f"{rec.describe()}: the endpoint answered 202 with a body")
        if rec.response_type is None:
            self.emu.violation(
                f"{rec.describe()}: the endpoint answered 202, but no callback was POSTed "
                "before it: the interaction has no answer"
            )
