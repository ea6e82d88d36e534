"""What a request body may be, checked before any of it is read: the web service's
first middleware after the answers' own (issue 53).

- **No encoding.** aiohttp would inflate a ``Content-Encoding: gzip`` body on the event
  loop as it arrives, even after the route refused it (250 KB that inflate to 250 MB:
  about 650 ms of the loop). The server runs with ``auto_decompress=False``
  (:class:`~bot.web.service.WebService`), and a body with any encoding but ``identity``
  is refused with a 415 before a byte of it is read. Neither the page nor Discord sends
  one (Discord's interactions come as plain JSON: see docs/run/under-abuse.md).
- **A size per route**: :data:`MAX_API_BODY` for the page's API, and
  :data:`MAX_INTERACTION_BODY` for ``/interactions``; past it a 413, the connection
  then closed. nginx (deploy/nginx.conf) holds each location to the same figures.
- **A total time**: the whole body within ``within`` seconds of its request's headers
  (:data:`BODY_WITHIN` by default), however it trickles in; else a 408 and the
  connection closed. A gap between reads (all that aiohttp or nginx's
  ``client_body_timeout`` bound) lets a client dribble a byte every few seconds for ever.

The body is read here, whole, into the request the handler gets (``request.read()``
then returns it): no handler reads a socket.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from aiohttp import hdrs, web
from aiohttp.typedefs import Middleware

MAX_API_BODY = 16 * 1024
"""Bytes a body of the page's API may have (``/api/…``, ``/.proxy/api/…``): an intent is
a few dozen."""
MAX_INTERACTION_BODY = 128 * 1024
"""Bytes an interaction Discord POSTs to ``/interactions`` may have. Discord documents no
maximum; the largest it could send ttt, from its documented limits (a click carries one
of ttt's messages: 2,000 characters of content, 6,000 of embeds, 40 components, each
character at worst a 6-byte JSON escape), is under 100 KB, and ttt's own largest (an
ultimate board's click) about 5 KB: the reckoning is in docs/run/under-abuse.md
("Bodies"). nginx's ``/interactions`` location uses it too."""
BODY_WITHIN = 10.0
"""Seconds from a request's headers to its body's last byte: a page's intent or an
interaction arrives in milliseconds."""
INTERACTIONS = "/interactions"
TELL_EVERY = 60.0
"""Seconds between two warnings that encoded bodies were refused at ``/interactions``."""

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def body_limit(path: str) -> int:
    """The bytes a request to ``path`` may send."""
    return MAX_INTERACTION_BODY if path == INTERACTIONS else MAX_API_BODY


def encoded(request: web.Request) -> str | None:
    """The request's content coding when it is one (``gzip``, ``br``...), None for none or
    ``identity`` (any case; a list of them, or the header repeated, counts each)."""
    for header in request.headers.getall(hdrs.CONTENT_ENCODING, ()):
        for coding in header.split(","):
            if coding.strip().lower() not in ("", "identity"):
                return coding.strip()[:32]
    return None


def refusal(status: int, code: str, reason: str, *, close: bool = False) -> web.Response:
    response = web.json_response({"error": code, "reason": reason}, status=status)
    if close:  # what is left of the body is not read: the connection cannot carry on
        response.force_close()
    return response


def bounded_bodies(within: float = BODY_WITHIN) -> Middleware:
    """The middleware: encoding, then size, then the whole body in ``within`` seconds."""
    untold, told_at = 0, -TELL_EVERY

    def tell(coding: str) -> None:
        """Discord sends its interactions unencoded: should it start to encode them, each
        would fail here, and the owner must hear of it (once a minute at most)."""
        nonlocal untold, told_at
        untold += 1
        if (now := time.monotonic()) - told_at >= TELL_EVERY:
            log.warning("refused %d encoded body(ies) at /interactions (the latest %s): "
                        "Discord sends its interactions unencoded; if these were Discord's, "
                        "interactions are failing", untold, coding)  # fmt: skip
            untold, told_at = 0, now

    @web.middleware
    async def bounded(request: web.Request, handler: Handler) -> web.StreamResponse:
        coding = encoded(request)
        if coding is not None:
            if request.path == INTERACTIONS:
                tell(coding)
            return refusal(415, "encoded_body", f"the body is encoded ({coding}): send it "
                           "as it is, without Content-Encoding", close=True)  # fmt: skip
        if not request.body_exists:
            return await handler(request)
        limit = body_limit(request.path)
        if (request.content_length or 0) > limit:
            return too_large(limit)
        whole = request.clone(client_max_size=limit)  # its read() is held to the limit
        try:
            async with asyncio.timeout(within):
                await whole.read()
        except web.HTTPRequestEntityTooLarge:
            return too_large(limit)
        except TimeoutError:
            return refusal(408, "slow_body", f"the body did not arrive within {within:g} "
                           "seconds", close=True)  # fmt: skip
        return await handler(whole)

    return bounded


def too_large(limit: int) -> web.Response:
    return refusal(413, "too_large", f"the body is over {limit} bytes", close=True)
