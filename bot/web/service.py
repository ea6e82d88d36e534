"""The Activity's web service: one aiohttp application serving the page, its API and
its live updates, beside the gateway client (or in a process of its own on the same
PostgreSQL). Every refusal is a 4xx with a reason; nothing unexpected shows a traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

from aiohttp import web
from aiohttp.typedefs import Middleware

from bot.core.doubts import Doubts, Journal, journal
from bot.i18n import text
from bot.web.api import ActivityApi
from bot.web.errors import WebRefusal
from bot.web.interactions import InteractionsEndpoint

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
MAX_BODY = 16 * 1024
"""Bytes a request body may have: an intent is a few dozen."""
PREFIXES = ("/api", "/.proxy/api")
"""Discord's proxy serves an Activity's mapped URLs under ``/.proxy/``."""
NO_STORE = {"Cache-Control": "no-store"}


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
                headers["Retry-After"] = str(refused.extra["retry_after"])
            return web.json_response(refused.body(), status=refused.status, headers=headers)
        except web.HTTPRequestEntityTooLarge:
            body = {"error": "too_large", "reason": f"the body is over {MAX_BODY} bytes"}
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


def make_app(
    api: ActivityApi | None, doubts: Doubts, static: Path = STATIC,
    interactions: InteractionsEndpoint | None = None,
) -> web.Application:  # fmt: skip
    """The Activity's page and API (with ``api``), and the Interactions Endpoint (with
    ``interactions``): either, or both on one port."""
    app = web.Application(middlewares=[answering(doubts)], client_max_size=MAX_BODY)
    if interactions is not None:  # its own size limit: it reads the raw bytes itself
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


class WebServiceError(Exception):
    """The web service could not start; the message is one line for the operator."""


class WebService:
    """Runs the application on ``host:port`` until :meth:`stop`."""

    def __init__(
        self, api: ActivityApi | None, doubts: Doubts, *, host: str, port: int,
        interactions: InteractionsEndpoint | None = None,
    ) -> None:  # fmt: skip
        self.api = api
        self.interactions = interactions
        self.doubts = doubts
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        """Listen on ``host:port``; what it set up is left for :meth:`stop`, which a
        failed or cancelled start is followed by.

        Raises:
            WebServiceError: the address cannot be listened on (a port in use, say).
        """
        self._runner = web.AppRunner(
            make_app(self.api, self.doubts, interactions=self.interactions), access_log=None
        )
        await self._runner.setup()
        try:
            await web.TCPSite(self._runner, self.host, self.port).start()
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
