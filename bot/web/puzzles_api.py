"""The Activity's puzzles (issue 49, "on the live board too"): each handler reads the
session, asks :class:`~bot.core.puzzles.service.PuzzleService` once and answers with the
attempt as the member sees it (:mod:`bot.web.puzzle_json`). The attempt is the one the
chat's ``/ttt puzzle`` plays: started in chat, it shows here; moved here, the chat's
message shows it at its next click (the service answers that click ``stale``).

Routes (under ``/api`` and ``/.proxy/api``; docs/develop/activity-api.md):

- ``GET puzzles``: ``{"puzzle": Puzzle | null, "today": {"number", "kind", "title"} |
  null, "texts": {...}}``, the member's open attempt, today's daily (none before #1)
  and the page's puzzle words;
- ``POST puzzles`` ``{"mode": "daily" | "training", "board": "any" | "3x3" | ...}``
  (``board`` for training only): ``{"puzzle": Puzzle}``, started or resumed;
- ``POST puzzles/{id}/move`` ``{"ply", "cell"}``: ``{"puzzle": Puzzle}``; a ply the
  attempt is past, or an attempt already over: 409 ``stale`` with the ``puzzle``;
- ``POST puzzles/{id}/retry``: ``{"puzzle": Puzzle}``, a new unrated attempt.
"""

from __future__ import annotations

from typing import Any, cast

from aiohttp import web

from bot.core.puzzles.models import Mode, PuzzleKind, PuzzleView
from bot.core.puzzles.service import PuzzleService
from bot.core.refusals import Refusal
from bot.i18n import text
from bot.web.api import refusal
from bot.web.errors import WebRefusal
from bot.web.fields import int_field, is_id, json_object, str_field
from bot.web.limits import WebBudgets, charge
from bot.web.page_text import plain
from bot.web.places import Places
from bot.web.puzzle_json import CHOICES, page_texts, puzzle_json, title
from bot.web.sessions import Gate, Session

MODES = ("daily", "training")
"""What the page may start: today's puzzle, or training (own-game puzzles are chat's)."""
REFUSALS = {
    "puzzle.not_yours": (403, "not_yours"), "puzzle.unknown": (404, "unknown_puzzle"),
    "puzzle.off": (403, "off"), "puzzle.busy": (429, "busy"), "puzzle.bad_cell": (400, "taken"),
    "puzzle.none_left": (409, "none_left"), "puzzle.none_left_dailies": (409, "none_left"),
    "puzzle.no_daily": (404, "no_daily"),
    "puzzle.no_own": (404, "no_own"), "puzzle.still_open": (409, "still_open"),
    "puzzle.retry.open_daily": (409, "rated_open"),
    "puzzle.retry.open_training": (409, "rated_open"),
}  # fmt: skip
BUSY_WAIT = 1
"""Seconds a page is told to wait when the engine is busy (its queue drains in less)."""


class PuzzlesApi:
    def __init__(
        self, *, puzzles: PuzzleService, gate: Gate, places: Places,
        budgets: WebBudgets,
    ) -> None:  # fmt: skip
        self.puzzles = puzzles
        self.gate = gate
        self.places = places
        self.budgets = budgets

    def routes(self, prefix: str) -> list[web.RouteDef]:
        return [
            web.get(f"{prefix}/puzzles", self.current),
            web.post(f"{prefix}/puzzles", self.start),
            web.post(f"{prefix}/puzzles/{{id}}/move", self.move),
            web.post(f"{prefix}/puzzles/{{id}}/retry", self.retry),
        ]

    async def current(self, request: web.Request) -> web.Response:
        session = await self._session(request)
        view = await self.puzzles.current(session.user_id)
        return web.json_response({"puzzle": self._json(view, session),
                                  "today": self._today(session.locale),
                                  "texts": page_texts(session.locale)})  # fmt: skip

    async def start(self, request: web.Request) -> web.Response:
        session = await self._session(request)
        charge(self.budgets.puzzles, session)
        body = await json_object(request)
        mode = str_field(body, "mode", MODES, default="daily")
        if mode == "training":
            board = str_field(body, "board", CHOICES, default="any")
        elif "board" in body:
            raise WebRefusal(400, "bad_request", "board is for training only")
        else:
            board = "any"
        # a server that did not add ttt (a member's own install) has no say in puzzles
        # and no leaderboard: the attempt is started through no server, as from a DM
        place = await self.places.of(session)
        guild_id = None if place.guest else session.guild_id
        kind = None if board == "any" else cast(PuzzleKind, board)
        view = await self._ask(session, self.puzzles.open(session.user_id, guild_id,
                                                          cast(Mode, mode), kind))  # fmt: skip
        return web.json_response({"puzzle": self._json(view, session)})

    async def move(self, request: web.Request) -> web.Response:
        session, attempt_id = await self._attempt_of(request)
        body = await json_object(request)
        ply, cell = int_field(body, "ply"), int_field(body, "cell")
        view = await self._ask(session, self.puzzles.move(session.user_id, attempt_id, ply, cell))
        shown = self._json(view, session)
        if view.stale:  # played elsewhere first (chat, another page), or a double click
            reason = plain(text("web.puzzle.stale", session.locale))
            raise WebRefusal(409, "stale", reason, puzzle=shown)
        return web.json_response({"puzzle": shown})

    async def retry(self, request: web.Request) -> web.Response:
        session, attempt_id = await self._attempt_of(request)
        await json_object(request)  # none is read, but a bad one is refused as anywhere
        view = await self._ask(session, self.puzzles.retry(session.user_id, attempt_id))
        return web.json_response({"puzzle": self._json(view, session)})

    # --- internals -----------------------------------------------------------------------

    async def _session(self, request: web.Request) -> Session:
        """As :meth:`ActivityApi._session <bot.web.api.ActivityApi._session>`: a POST
        only from a member still in the session's Activity instance."""
        header = request.headers.get("Authorization", "")
        token = header.removeprefix("Bearer ").strip() or None
        return await self.gate.read(token, present=request.method == "POST")

    async def _attempt_of(self, request: web.Request) -> tuple[Session, int]:
        """The session and the attempt's id in the path, a credit spent first (whose the
        attempt is, the service checks).

        Raises:
            WebRefusal: 401 without a session; 429, the budget spent; 404, no id at all.
        """
        session = await self._session(request)
        charge(self.budgets.puzzles, session)
        raw = request.match_info["id"]
        if not is_id(raw):
            raise refusal(Refusal("puzzle.unknown"), session.locale, REFUSALS)
        return session, int(raw)

    async def _ask(self, session: Session, call: Any) -> PuzzleView:
        try:
            view: PuzzleView = await call
        except Refusal as error:
            refused = refusal(error, session.locale, REFUSALS)
            if refused.status == 429:  # as a spent budget says it: Retry-After
                refused.extra["retry_after"] = BUSY_WAIT
            raise refused from None
        return view

    def _today(self, locale: str) -> dict[str, Any] | None:
        """Today's daily (the service's), or None before daily #1."""
        today = self.puzzles.today()
        if today is None:
            return None
        number, puzzle = today
        return {"number": number, "kind": puzzle.kind,
                "title": title("daily", number, puzzle.kind, locale)}  # fmt: skip

    def _json(self, view: PuzzleView | None, session: Session) -> dict[str, Any] | None:
        return None if view is None else puzzle_json(view, session.locale)
