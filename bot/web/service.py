"""The Activity's web service: one aiohttp application serving the page, its API and
its live updates, beside the gateway client (or in a process of its own on the same
PostgreSQL). Every refusal is a 4xx with a reason; nothing unexpected shows a traceback.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable
from pathlib import Path

from aiohttp import web
from aiohttp.typedefs import Middleware

from bot.core.doubts import Doubts, Journal, journal
from bot.i18n import text
from bot.web.api import ActivityApi
from bot.web.bodies import BODY_WITHIN, MAX_API_BODY, bounded_bodies
from bot.web.errors import WebRefusal
from bot.web.interactions import InteractionsEndpoint

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
PREFIXES = ("/api", "/.proxy/api")
"""Discord's proxy serves an Activity's mapped URLs under ``/.proxy/``."""
NO_STORE = {"Cache-Control": "no-store"}
LINGER = 1.0
"""Seconds the server goes on reading (and dropping) a refused request's body before it
closes the connection: aiohttp's default is 10, which a client that dribbles its body
holds to the end."""
BACKLOG = 1024
"""Connections the kernel holds for the service before it accepts them (aiohttp's
default is 128): behind nginx, which passes bodies on as they come, a burst of slow
requests beside the members' overflowed 128 and nginx answered members 504."""


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def answering(doubts: Doubts) -> Middleware:
    """Refusals as JSON with a reason; a failure as a 503 that says "nothing was changed"
    only when that is known (as the chat's apology: see :class:`~bot.core.doubts.Journal`),
    what it stored left to the reconciler; nothing else unexpected shows a traceback
    (logged here, without the request's headers: they carry tokens)."""

    @web.middleware
    async def answers(request: web.Request, handler: Handler) -> web.StreamResponse:
        written = Journal()
        try:
            with journal() as written:
                return await handler(request)
        except WebRefusal as refused:
            headers = dict(NO_STORE)
            if "retry_after" in refused.extra:  # a spent budget's wait, as HTTP says it
                headers["Retry-After"] = retry_after(refused.extra["retry_after"])
            return web.json_response(refused.body(), status=refused.status, headers=headers)
        except web.HTTPRequestEntityTooLarge:
            body = {"error": "too_large", "reason": f"the body is over {MAX_API_BODY} bytes"}
            return web.json_response(body, status=413)
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            body = {"error": "not_found" if exc.status == 404 else "bad_request",
                    "reason": exc.reason}  # fmt: skip
            return web.json_response(body, status=exc.status)
        except Exception:
            log.exception("activity: %s %s failed", request.method, request.path)
            if written.changed_maybe:
                doubts.add(written.stored)  # those unknown are there already
                code, key = "unconfirmed", "error.unconfirmed"
            else:
                code, key = "unavailable", "error.generic"
            return web.json_response({"error": code, "reason": text(key, "en")}, status=503)

    return answers


def retry_after(seconds: float) -> str:
    """A wait as HTTP's ``Retry-After`` says it: whole seconds (delta-seconds), at least
    one, rounded up (``0.5`` is no value a client must understand)."""
    return str(max(1, math.ceil(seconds)))


def make_app(
    api: ActivityApi | None, doubts: Doubts, static: Path = STATIC,
    interactions: InteractionsEndpoint | None = None, body_within: float = BODY_WITHIN,
) -> web.Application:  # fmt: skip
    """The Activity's page and API (with ``api``), and the Interactions Endpoint (with
    ``interactions``): either, or both on one port. Each body is whole within
    ``body_within`` seconds of its headers (:mod:`bot.web.bodies`)."""
    middlewares = [answering(doubts), bounded_bodies(body_within)]
    app = web.Application(middlewares=middlewares, client_max_size=MAX_API_BODY)
    if interactions is not None:  # its own size limit (bot.web.bodies.body_limit)
        app.router.add_post("/interactions", interactions.handle)
    if api is None:
        return app
    for prefix in PREFIXES:
        app.add_routes(api.routes(prefix))

    async def page(request: web.Request) -> web.StreamResponse:
        return web.FileResponse(static / "index.html", headers=NO_STORE)

    async def asset(request: web.Request) -> web.StreamResponse:
        path = static / request.match_info["name"]
        if not path.is_file():
            raise WebRefusal(404, "not_found", "no such file")
        return web.FileResponse(path)

    for root in ("/", "/.proxy/"):
        app.router.add_get(root, page)
        app.router.add_get(root + "{name:[A-Za-z0-9_-][A-Za-z0-9._-]*}", asset)
    return app


def runner(app: web.Application) -> web.AppRunner:
    """How the service runs ``app``: no request body is ever inflated (bot.web.bodies
    refuses encoded ones; this holds for the bytes it leaves unread too), and what is
    left of a refused body is not waited for past :data:`LINGER`."""
    return web.AppRunner(app, access_log=None, auto_decompress=False, lingering_time=LINGER)


class WebServiceError(Exception):
    """The web service could not start; the message is one line for the operator."""


class WebService:
    """Runs the application on ``host:port`` until :meth:`stop`."""

    def __init__(
        self, api: ActivityApi | None, doubts: Doubts, *, host: str, port: int,
        interactions: InteractionsEndpoint | None = None, body_within: float = BODY_WITHIN,
    ) -> None:  # fmt: skip
        self.api = api
        self.interactions = interactions
        self.doubts = doubts
        self.host = host
        self.port = port
        self.body_within = body_within
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        """Listen on ``host:port``; what it set up is left for :meth:`stop`, which a
        failed or cancelled start is followed by.

        Raises:
            WebServiceError: the address cannot be listened on (a port in use, say).
        """
        self._runner = runner(make_app(self.api, self.doubts, interactions=self.interactions,
                                       body_within=self.body_within))  # fmt: skip
        await self._runner.setup()
        try:
            await web.TCPSite(self._runner, self.host, self.port, backlog=BACKLOG).start()
        except OSError as exc:
            raise WebServiceError(
                f"cannot serve the web service on {self.host}:{self.port} (TTT_WEB_HOST, "
                f"TTT_WEB_PORT): {exc.strerror or exc}"
            ) from None
        served = [
            what
            for what, on in (("the Activity", self.api), ("/interactions", self.interactions))
            if on
        ]
        log.info("web: serving %s on http://%s:%s/", " and ".join(served), self.host, self.port)

    async def stop(self) -> None:
        if self.api is not None:
            await self.api.hub.close()
        # taken before the wait: a second stop (the signal's, then the client's own on
        # the way out) must not clean the same runner up twice
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
