"""A stand-in for the Activity's web service (docs/develop/activity-api.md) for the page's
browser tests: it serves the built page (bot/web/static) under / and /.proxy/, answers the
API with canned games, records every request, and pushes on the live socket when told."""

from __future__ import annotations

import asyncio
import copy
import json
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from aiohttp import WSMsgType, web

from bot.i18n import text
from bot.web.ultimate_json import ultimate_json
from engine import UltimateBoard

if TYPE_CHECKING:
    from activity_frame.fixtures import ActivityClient, ActivityPage

STATIC = Path(__file__).resolve().parents[1] / "bot" / "web" / "static"
CLIENT_ID = "424242"
CODE = "code-from-discord"
ACCESS_TOKEN = "discord-access-token"
SESSION = "stub-session"
ME = {"id": "1001", "name": "Alice", "avatar": None}
TEXTS = {
    "title": "Tic-tac-toe", "pick": "Games in this channel",
    "none": "No game is running here. Start one:", "start_bot": "Play the bot",
    "challenge": "Challenge", "difficulty": "Difficulty", "size": "Board",
    "spectating": "You are watching.", "your_turn": "Your move", "connecting": "Connecting…",
    "reconnecting": "Connection lost, reconnecting…", "prev": "Previous", "next": "Next",
    "back": "All games", "clock": "Time left",
    "error": "Something went wrong on my side. Try again.",
    "challenge_sent": "Challenge posted in the channel.",
    "difficulty.easy": "easy", "difficulty.medium": "medium", "difficulty.hard": "hard",
    "difficulty.unbeatable": "unbeatable",
    "size.3": "3×3, three in a row", "size.4": "4×4, four in a row",
    "size.5": "5×5, four in a row",
    "resign": "Resign", "rematch": "Rematch", "hint": "Hint", "review": "Review",
    "variant.ultimate": "Ultimate: nine boards in one", "rules": "Rules",
    "rules.ultimate": text("web.ultimate.rules", "en"),
}  # fmt: skip
AVATAR = (
    "data:image/svg+xml,"
    "%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 40 40'%3E"
    "%3Crect width='40' height='40' fill='%23eb459e'/%3E"
    "%3Ccircle cx='20' cy='16' r='7' fill='%23fff'/%3E"
    "%3Cpath d='M6 38c2-9 8-12 14-12s12 3 14 12z' fill='%23fff'/%3E%3C/svg%3E"
)


def cell_name(cell: int, size: int) -> str:
    return f"{chr(ord('A') + cell % size)}{cell // size + 1}"


def game(
    game_id: str, board: str, *, you: str | None = "X", to_move: str | None = "X",
    opponent: dict[str, Any] | None = None, deadline: float | None = None,
    running: bool = True, win: tuple[int, ...] = (), status: str | None = None,
    actions: list[str] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """A Game as the server shows it; ``board`` is row-major, ``.`` for an empty cell."""
    size = int(len(board) ** 0.5)
    players = {
        "X": {"id": ME["id"], "name": "Alice", "avatar": AVATAR, "bot": False},
        "O": opponent or {"id": None, "name": "the bot (hard)", "avatar": None, "bot": True},
    }
    if you is None:
        players["X"] = {"id": "2002", "name": "Bob", "avatar": None, "bot": False}
    cells = [
        {"mark": None if c == "." else c, "win": i in win,
         "label": f"{cell_name(i, size)}, {'empty' if c == '.' else c}"}
        for i, c in enumerate(board)
    ]  # fmt: skip
    mover = players[to_move]["name"] if to_move else ""
    parts: list[dict[str, str]] | None = None
    if status is None and to_move:  # as bot/web/game_json.py words it, in parts
        status = f"{mover} to move ({to_move})"
        parts = [{"name": mover}, {"text": " to move ("}, {"mark": to_move}, {"text": ")"}]
    return {
        "id": game_id, "ply": sum(c != "." for c in board), "size": size, "running": running,
        "status": status or "", "players": players,
        "status_parts": parts if parts is not None else [{"text": status or ""}],
        "to_move": to_move if running else None, "you": you,
        "can_move": running and you is not None and you == to_move, "deadline": deadline,
        "cells": cells, "hinted": False, "ended": None if running else status,
        "actions": actions if actions is not None else (
            (["resign", "hint"] if you == to_move else ["resign"]) if running and you
            else (["rematch", "review"] if you else [])),
    }  # fmt: skip


def ultimate(
    game_id: str, moves: tuple[int, ...], *, you: str | None = "X",
    opponent: dict[str, Any] | None = None, deadline: float | None = None,
    actions: list[str] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """An ultimate Game as the server shows it after ``moves`` (cell numbers, board by
    board), its board fields made by the server's own bot/web/ultimate_json.py."""
    board = UltimateBoard()
    for cell in moves:
        board = board.play(cell)
    winner = board.outcome()
    running = winner is None
    shown = game(game_id, "." * 9, you=you, to_move=board.to_move, opponent=opponent,
                 deadline=deadline if running else None, running=running)  # fmt: skip
    if winner in ("X", "O"):
        name = shown["players"][winner]["name"]
        shown |= {"status": f"{name} wins with three boards in a row! ({winner})", "status_parts": [
            {"name": name}, {"text": " wins with three boards in a row! ("}, {"mark": winner},
            {"text": ")"}]}  # fmt: skip
        shown["ended"] = shown["status"]
    # a hint only against the bot: games here are against a member unless told
    shown["actions"] = actions if actions is not None else (
        (["resign"] if running else ["rematch", "review"]) if you else [])  # fmt: skip
    return shown | ultimate_json(board, "en", running) | {
        "variant": "ultimate", "size": 9, "ply": len(moves), "moves": list(moves),
        "last_move": board.last_move,
    }  # fmt: skip


class StubActivityServer:
    """The web service's API over canned games; ``requests`` records what the page sent."""

    def __init__(self, games: list[dict[str, Any]]) -> None:
        self.games = {g["id"]: g for g in games}
        self.order = [g["id"] for g in games]
        self.requests: list[dict[str, Any]] = []
        self.sockets: list[web.WebSocketResponse] = []
        self.connects = 0
        self.runner: web.AppRunner | None = None
        self.port = 0
        self.review_steps: list[dict[str, Any]] = []
        self.review_summary = "One mistake."
        self.hint: dict[str, Any] = {
            "text": "Hint for X, just for you:\nC3 — completes your line: you win.",
            "parts": [{"text": "Hint for "}, {"mark": "X"},
                      {"text": ", just for you:\nC3 — completes your line: you win."}],
            "cells": [8],
        }  # fmt: skip
        self.sessions = 0
        self.session = SESSION  # the one session token accepted now
        self.down = False
        """The process behind the proxy is down: the API and the socket answer 502, as
        Discord's proxy does, and ``refused`` counts the sockets refused."""
        self.refused = 0
        self.codes = {CODE}
        """The sign-in codes accepted."""
        self.sign_in_refusals: list[dict[str, Any]] = []
        """The bodies of the 429s the next sign-ins get, in turn (as the web service's
        limits refuse one: ``retry_after``, ``code_spent``)."""

    def expire_session(self) -> None:
        """The session lapses (its hour is up): calls with it get 401 bad_session."""
        self.session = f"{SESSION}-lapsed"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def intents(self, kind: str) -> list[dict[str, Any]]:
        """The recorded calls whose path ends with ``kind`` (e.g. ``/move``)."""
        return [r for r in self.requests if r["path"].endswith(kind)]

    async def push(self, message: dict[str, Any]) -> None:
        if message.get("type") == "game":
            self.games[message["game"]["id"]] = message["game"]
        for socket in list(self.sockets):
            await socket.send_json(message)

    async def drop_sockets(self) -> None:
        for socket in list(self.sockets):
            await socket.close()

    # --- the API ------------------------------------------------------------------------

    def _record(self, request: web.Request, body: Any = None) -> None:
        self.requests.append({"method": request.method, "path": request.path, "body": body,
                              "auth": request.headers.get("Authorization"),
                              "query": dict(request.query)})  # fmt: skip
        if self.down:
            raise web.HTTPBadGateway()

    def _signed_in(self, request: web.Request) -> None:
        if request.headers.get("Authorization") != f"Bearer {self.session}":
            raise web.HTTPUnauthorized(
                text=json.dumps({"error": "bad_session", "reason": "sign in again"}),
                content_type="application/json",
            )

    async def _body(self, request: web.Request) -> dict[str, Any]:
        body = await request.json() if request.can_read_body else {}
        self._record(request, body)
        return body

    async def config(self, request: web.Request) -> web.Response:
        self._record(request)
        return web.json_response({"client_id": CLIENT_ID})

    async def sign_in(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        if self.sign_in_refusals:
            return web.json_response(self.sign_in_refusals.pop(0), status=429)
        if body.get("code") not in self.codes or not body.get("instance_id"):
            return web.json_response({"error": "bad_code", "reason": "bad code"}, status=400)
        self.sessions += 1
        self.session = SESSION if self.sessions == 1 else f"{SESSION}-{self.sessions}"
        return web.json_response({
            "access_token": ACCESS_TOKEN, "session": self.session, "user": ME,
            "channel_id": "10", "guild_id": "20", "locale": "en",
        })  # fmt: skip

    async def list_games(self, request: web.Request) -> web.Response:
        self._record(request)
        self._signed_in(request)
        return web.json_response({"games": self._running(), "texts": TEXTS})

    def _running(self) -> list[dict[str, Any]]:
        return [self.games[i] for i in self.order if self.games[i]["running"]]

    async def start(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        self._signed_in(request)
        if "opponent_id" in body:
            return web.json_response({"challenge": True})
        if body.get("variant") == "ultimate":
            new = ultimate("900", ())
        else:
            new = game("900", "." * (int(body.get("size", 3)) ** 2), deadline=None)
        self.games[new["id"]] = new
        self.order.insert(0, new["id"])
        return web.json_response({"game": new})

    async def intent(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        self._signed_in(request)
        held = self.games.get(request.match_info["id"])
        if held is None:
            return web.json_response({"error": "unknown_game", "reason": "no such game"},
                                     status=404)  # fmt: skip
        kind = request.match_info["intent"]
        if kind == "move":
            if body.get("ply") != held["ply"]:
                return web.json_response({"error": "stale", "reason": "The board changed.",
                                          "game": held}, status=409)  # fmt: skip
            if held.get("variant") == "ultimate":
                after = ultimate(held["id"], (*held["moves"], body["cell"]), you=held["you"],
                                 opponent=held["players"]["O"])  # fmt: skip
                if after["running"]:  # the other side to move
                    after |= {"can_move": False, "actions": ["resign"]}
                self.games[after["id"]] = after
                return web.json_response({"game": after})
            after = copy.deepcopy(held)
            cell = after["cells"][body["cell"]]
            cell["mark"], cell["label"] = held["you"], cell["label"].replace("empty", "X")
            other = "O" if held["you"] == "X" else "X"
            after |= {"ply": held["ply"] + 1, "to_move": other, "can_move": False,
                      "actions": ["resign"], "status": "the bot (hard) is thinking…",
                      "status_parts": [{"name": "the bot (hard)"},
                                       {"text": " is thinking…"}]}  # fmt: skip
            self.games[after["id"]] = after
            return web.json_response({"game": after})
        if kind == "hint":
            return web.json_response(self.hint)
        if kind == "resign":
            ended = copy.deepcopy(held)
            ended |= {"running": False, "to_move": None, "can_move": False,
                      "status": "Alice resigned. the bot (hard) wins.",
                      "status_parts": [{"text": "Alice resigned. the bot (hard) wins."}],
                      "ended": "Alice resigned. the bot (hard) wins.",
                      "actions": ["rematch", "review"], "deadline": None}  # fmt: skip
            self.games[ended["id"]] = ended
            return web.json_response({"game": ended})
        if kind == "rematch":
            return web.json_response({"challenge": True})
        return web.json_response({"error": "bad_request", "reason": "?"}, status=400)

    async def review(self, request: web.Request) -> web.Response:
        self._record(request)
        self._signed_in(request)
        return web.json_response({"steps": self.review_steps,
                                  "summary": self.review_summary})  # fmt: skip

    async def live(self, request: web.Request) -> web.StreamResponse:
        """As bot/web/live.py: the session in the first message (4001 if it is not the
        one accepted now); anything the page sends after it is recorded (``WS``: the
        service would close the socket with 1008, and a test asserts there is none)."""
        self.refused += self.down
        self._record(request)
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        try:
            first = await socket.receive_json(timeout=10)
        except (TypeError, ValueError, TimeoutError):
            first = None
        if first != {"type": "session", "session": self.session}:
            await socket.close(code=4001)
            return socket
        self.connects += 1
        self.sockets.append(socket)
        try:
            shown = self.games.get(request.query.get("game", ""))
            if shown is not None and not shown["running"]:  # as bot/web/live.py does
                await socket.send_json({"type": "game", "game": shown})
            await socket.send_json({"type": "games", "games": self._running()})
            async for message in socket:
                if message.type in (WSMsgType.TEXT, WSMsgType.BINARY):
                    self.requests.append({"method": "WS", "path": request.path,
                                          "body": message.data, "auth": None})  # fmt: skip
        finally:
            self.sockets.remove(socket)
        return socket

    # --- serving ------------------------------------------------------------------------

    def app(self) -> web.Application:
        app = web.Application()

        async def page(request: web.Request) -> web.FileResponse:
            return web.FileResponse(STATIC / "index.html")

        async def asset(request: web.Request) -> web.StreamResponse:
            path = STATIC / request.match_info["name"]
            if not path.is_file():
                raise web.HTTPNotFound()
            return web.FileResponse(path)

        for prefix in ("/", "/.proxy/"):
            api = f"{prefix}api"
            app.router.add_get(f"{api}/config", self.config)
            app.router.add_post(f"{api}/session", self.sign_in)
            app.router.add_get(f"{api}/games", self.list_games)
            app.router.add_post(f"{api}/games", self.start)
            app.router.add_post(f"{api}/games/{{id}}/{{intent}}", self.intent)
            app.router.add_get(f"{api}/games/{{id}}/review", self.review)
            app.router.add_get(f"{api}/live", self.live)
            app.router.add_get(prefix, page)
            app.router.add_get(prefix + "{name:[A-Za-z0-9_-][A-Za-z0-9._-]*}", asset)
        return app

    async def start_serving(self) -> None:
        self.runner = web.AppRunner(self.app(), access_log=None)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", 0).start()
        self.port = self.runner.addresses[0][1]

    async def stop(self) -> None:
        await self.drop_sockets()
        if self.runner is not None:
            await self.runner.cleanup()


# --- for the page's tests -----------------------------------------------------------------

ALICE = {"id": ME["id"], "username": "alice", "global_name": "Alice", "avatar": None}
BOB = {"id": "2002", "username": "bob", "global_name": "Bob", "avatar": None}
CAROL = {"id": "3003", "username": "carol", "global_name": "Carol", "avatar": None}
HUMAN_O = {"id": "2002", "name": "Bob", "avatar": None, "bot": False}


@pytest.fixture
async def stub() -> AsyncIterator[StubActivityServer]:
    server = StubActivityServer([])
    await server.start_serving()
    yield server
    await server.stop()


async def open_page(
    client: ActivityClient, stub: StubActivityServer, games: list[dict[str, Any]],
    **options: Any,
) -> ActivityPage:  # fmt: skip
    stub.games = {g["id"]: g for g in games}
    stub.order = [g["id"] for g in games]
    options.setdefault("participants", [ALICE, BOB, CAROL])
    return await client.open(
        f"{stub.url}/.proxy/", client_id=CLIENT_ID, instance_id="i-77", channel_id="10",
        guild_id="20", code=CODE, access_token=ACCESS_TOKEN,
        user={"id": ME["id"], "username": "alice"}, **options,
    )  # fmt: skip


async def eventually(check: Callable[[], Any], timeout: float = 5.0) -> Any:
    """Waits until ``check()`` is truthy (the stub hears the page asynchronously)."""
    deadline = time.monotonic() + timeout
    while not (result := check()):
        if time.monotonic() > deadline:
            raise AssertionError("never happened")
        await asyncio.sleep(0.02)
    return result


def cells(page: ActivityPage) -> Any:
    return page.activity.locator(".board button")


async def labels(page: ActivityPage) -> list[str | None]:
    return await attributes(page, "aria-label")


async def attributes(page: ActivityPage, name: str) -> list[str | None]:
    """Attribute ``name`` of every square, in one call into the page (one call a square
    took a second for the 81 of ultimate on a busy machine)."""
    found = await cells(page).evaluate_all(
        "(cells, name) => cells.map(c => c.getAttribute(name))", name
    )
    return list(found)


async def sizes(page: ActivityPage) -> list[tuple[float, float]]:
    """``(width, height)`` of every square as drawn, in CSS pixels (one call, as above)."""
    found = await cells(page).evaluate_all(
        "cells => cells.map(c => [c.getBoundingClientRect().width,"
        " c.getBoundingClientRect().height])"
    )
    return [(w, h) for w, h in found]


async def focused(page: ActivityPage) -> str | None:
    return await page.frame.evaluate("document.activeElement.getAttribute('aria-label')")
