"""The Activity's API: each handler reads the session, asks the core once, shows the
change in chat through the handed ``show``, and answers with the game as the member
sees it (``docs/develop/activity-api.md``)."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

from aiohttp import web

from bot.core.budgets import Budget
from bot.core.courtesy import CourtesyAction
from bot.core.lobby import Lobby
from bot.core.models import VARIANTS, Challenge, GameUpdate, other
from bot.core.policy import DIFFICULTIES, SIZES
from bot.core.records import RecordsService
from bot.core.refusals import Refusal
from bot.core.service import GameService
from bot.core.variants import variant_of
from bot.i18n import text, with_keys
from bot.i18n.texts import catalogs, language_of, placeholders
from bot.web.boards import BOARDS
from bot.web.coaching import hint_json, review_json
from bot.web.discord_auth import INSTANCE_ID, DiscordAuth, avatar_url, display_name
from bot.web.errors import WebRefusal
from bot.web.fields import CODE, int_field, str_field
from bot.web.fields import is_id as _is_id
from bot.web.fields import json_object as _body
from bot.web.game_json import Person, game_json
from bot.web.limits import WebBudgets, charge
from bot.web.live import LiveHub
from bot.web.page_text import plain
from bot.web.places import Places
from bot.web.sessions import Gate, Session

Show = Callable[[GameUpdate | Challenge], Awaitable[bool]]
"""Shows a change in chat: the board edited (or posted, for a new game), the turn ping;
whether the chat shows it (where only a member's own install reaches, only while an
interaction's token of the channel is valid)."""

REFUSALS = {
    "move.not_player": (403, "not_player"), "hint.not_player": (403, "not_player"),
    "move.not_your_turn": (403, "not_your_turn"), "move.stale": (409, "stale"),
    "move.over": (409, "over"), "move.taken": (400, "taken"), "game.unknown": (404, "unknown_game"),
    "move.elsewhere": (400, "wrong_board"), "move.elsewhere_any": (400, "wrong_board"),
    "engine.busy": (429, "busy"), "engine.busy_member": (429, "busy"),
}  # fmt: skip
COURTESY_ACTIONS = ("time", "offer", "accept")
"""A correspondence game's courtesy from the page (see :mod:`bot.core.courtesy`)."""
Routes = Callable[[str], list[web.RouteDef]]
"""A part's routes under a prefix (``/api``, ``/.proxy/api``)."""
KNOWN_CHANNELS = 10_000
PAGE_TEXTS = ("title", "pick", "none", "start_bot", "challenge", "difficulty", "size",
              "spectating", "your_turn", "connecting", "reconnecting", "prev", "next", "back",
              "clock", "error", "challenge_sent")  # fmt: skip


def refusal(
    error: Refusal, locale: str, table: dict[str, tuple[int, str]] = REFUSALS
) -> WebRefusal:
    """``error`` as the page reads it: its status and code from ``table``, its reason in
    the member's language."""
    status, code = table.get(error.key, (409, "refused"))
    template = catalogs()[language_of(locale)].get(error.key) or catalogs()["en"][error.key]
    params: dict[str, object] = {name: "" for name in placeholders(template)}
    given = with_keys(error.params, locale)
    params |= {k: v for k, v in given.items() if isinstance(v, str | int | float)}
    return WebRefusal(status, code, plain(text(error.key, locale, **params)).strip())


class ActivityApi:
    def __init__(
        self, *, games: GameService, lobby: Lobby, records: RecordsService, auth: DiscordAuth,
        gate: Gate, show: Show, hub: LiveHub, places: Places, budgets: WebBudgets,
        more: Sequence[Routes] = (),
    ) -> None:  # fmt: skip
        self.games = games
        self.lobby = lobby
        self.records = records
        self.auth = auth
        self.gate = gate
        """Every handler's read of the session (and, for a POST, of the member's presence)."""
        self.sessions = gate.sessions
        self.show = show
        self.hub = hub
        self.places = places
        self.budgets = budgets
        self.more = more
        """Other parts' routes served beside these (the puzzles')."""
        self._channels: OrderedDict[int, int] = OrderedDict()
        """Each game's channel, once read: it never changes, so a move needs no read."""

    def routes(self, prefix: str) -> list[web.RouteDef]:
        return [
            web.get(f"{prefix}/config", self.config),
            web.post(f"{prefix}/session", self.sign_in),
            web.get(f"{prefix}/games", self.list_games),
            web.post(f"{prefix}/games", self.start),
            web.post(f"{prefix}/games/{{id}}/move", self.move),
            web.post(f"{prefix}/games/{{id}}/resign", self.resign),
            web.post(f"{prefix}/games/{{id}}/courtesy", self.courtesy),
            web.post(f"{prefix}/games/{{id}}/rematch", self.rematch),
            web.post(f"{prefix}/games/{{id}}/hint", self.hint),
            web.get(f"{prefix}/games/{{id}}/review", self.review),
            web.get(f"{prefix}/live", self.live),
            *(route for routes in self.more for route in routes(prefix)),
        ]

    # --- signing in ----------------------------------------------------------------------

    async def config(self, request: web.Request) -> web.Response:
        return web.json_response({"client_id": str(self.auth.client_id)})

    async def sign_in(self, request: web.Request) -> web.Response:
        body, asked = await _body(request), "send the sign-in code and the instance id"
        code = str_field(body, "code", CODE, reason=asked)
        instance_id = str_field(body, "instance_id", INSTANCE_ID, reason=asked)
        page = request.headers.get("Accept-Language", "").split(",")[0].split(";")[0].strip()
        member = await self.auth.sign_in(code, instance_id, language_of(page))
        locale = language_of(member.locale)
        session = self.sessions.issue(
            user_id=member.user_id, name=member.name, avatar=member.avatar,
            channel_id=member.channel_id, guild_id=member.guild_id, instance_id=instance_id,
            locale=locale,
        )  # fmt: skip
        return web.json_response({
            "access_token": member.access_token, "session": session,
            "user": {"id": str(member.user_id), "name": member.name, "avatar": member.avatar},
            "channel_id": str(member.channel_id),
            "guild_id": None if member.guild_id is None else str(member.guild_id),
            "locale": locale,
        })  # fmt: skip

    # --- the channel's games -------------------------------------------------------------

    async def list_games(self, request: web.Request) -> web.Response:
        session = await self._session(request)
        texts = {key: text(f"web.{key}", session.locale) for key in PAGE_TEXTS}
        texts |= {f"difficulty.{d}": text(f"choice.difficulty.{d}", session.locale)
                  for d in DIFFICULTIES}  # fmt: skip
        texts |= {f"size.{s}": text(f"choice.size.{s}", session.locale) for s in SIZES}
        for action in ("resign", "rematch", "hint", "review", "more_time", "offer_draw",
                       "accept_draw"):  # fmt: skip
            texts[action] = text(f"button.{action}", session.locale)
        for board in BOARDS.values():
            texts |= board.page_texts(session.locale)
        return web.json_response({"games": await self.games_for(session), "texts": texts})

    async def games_for(self, session: Session) -> list[dict[str, Any]]:
        running = await self.games.repo.running_games_in(session.channel_id)
        shown = []
        for game in sorted(running, key=lambda g: -g.id):
            shown.append(await self._json(await self.games.update(game), session))
        return shown

    async def game_for(self, game_id: int, session: Session) -> dict[str, Any] | None:
        update = await self.games.current(game_id)
        if update is None or update.game.channel_id != session.channel_id:
            return None
        return await self._json(update, session)

    # --- intents -------------------------------------------------------------------------

    async def move(self, request: web.Request) -> web.Response:
        session, game_id = await self._game_of(request)
        body = await _body(request)
        ply, cell = int_field(body, "ply"), int_field(body, "cell")
        try:
            update = await self.games.play_turn(game_id, ply, cell, session.user_id)
        except Refusal as error:
            refused = refusal(error, session.locale)
            if refused.code in ("stale", "over"):
                refused.extra["game"] = await self.game_for(game_id, session)
            raise refused from None
        await self.show(update)
        return web.json_response({"game": await self._json(update, session)})

    async def resign(self, request: web.Request) -> web.Response:
        session, game_id = await self._game_of(request)
        await _body(request)  # none is read, but a bad one is refused as anywhere
        update = await self._ask(session, self.games.resign(session.user_id, game_id=game_id))
        await self.show(update)
        return web.json_response({"game": await self._json(update, session)})

    async def courtesy(self, request: web.Request) -> web.Response:
        """A correspondence game's more time, draw offer or accept, as the chat's Options
        make them (the same service method); the answer's notice says what was done."""
        session, game_id = await self._game_of(request)
        body = await _body(request)
        ply = int_field(body, "ply")
        action = str_field(body, "action", COURTESY_ACTIONS)
        asked = self.games.courtesy(game_id, ply, session.user_id, cast(CourtesyAction, action))
        done = await self._ask(session, asked)
        await self.show(done.update)
        game = await self._json(done.update, session)
        opponent = game["players"][other(game["you"] or "X")]["name"]
        if done.done == "time":  # the page counts down to it; said in UTC here
            at = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(done.update.game.turn_deadline))
            notice = text("courtesy.done.time", session.locale, player=opponent, deadline=at)
        else:
            notice = text(f"courtesy.done.{done.done}", session.locale, opponent=opponent)
        return web.json_response({"game": game, "notice": plain(notice)})

    async def rematch(self, request: web.Request) -> web.Response:
        session, game_id = await self._game_of(request, self.budgets.starts)
        await _body(request)  # as resign's
        place = await self.places.of(session)
        result = await self._ask(session, self.lobby.rematch(game_id, session.user_id,
                                                             place.role_ids))  # fmt: skip
        return await self._started(session, result)

    async def start(self, request: web.Request) -> web.Response:
        session = await self._session(request)
        charge(self.budgets.starts, session)
        body = await _body(request)
        size = int_field(body, "size", SIZES, default=3)
        variant = str_field(body, "variant", VARIANTS, default="classic")
        difficulty = str_field(body, "difficulty", DIFFICULTIES, default="medium")
        place = await self.places.of(session)  # the roles and install a chat start has
        where: dict[str, Any] = {
            "guild_id": session.guild_id, "channel_id": session.channel_id,
            "user_id": session.user_id, "first": "me", "locale": session.locale,
            "role_ids": place.role_ids, "guest": place.guest,
        }  # fmt: skip
        if not variant_of(variant).sized and "size" in body:
            raise WebRefusal(400, "bad_request", "variant is classic (with a size) or ultimate")
        where["variant"] = variant
        if "opponent_id" in body:
            opponent = body["opponent_id"]
            if not (isinstance(opponent, str) and opponent.isascii() and opponent.isdigit()
                    and 0 < int(opponent[:20]) < 1 << 63 and len(opponent) < 20):  # fmt: skip
                raise WebRefusal(400, "bad_request", "opponent_id is a member's id")
            challenge = await self._ask(
                session, self.lobby.challenge(**where, size=size, opponent_id=int(opponent))
            )
            return await self._started(session, challenge)
        update = await self._ask(
            session, self.lobby.start_bot_game(**where, size=size, difficulty=difficulty)
        )
        return await self._started(session, update)

    async def _started(self, session: Session, started: GameUpdate | Challenge) -> web.Response:
        """Show what a page started in chat, and answer with it. Where the chat cannot
        show it (no token of the channel is valid), a game lives on the page, which says
        so; a challenge, which only the chat can accept, is withdrawn and refused."""
        shown = await self.show(started)
        if isinstance(started, Challenge):
            if not shown and started.guest:
                await self.lobby.expire(started)
                raise WebRefusal(409, "no_chat", text("web.challenge_no_chat", session.locale))
            return web.json_response({"challenge": True})
        answer: dict[str, Any] = {"game": await self._json(started, session)}
        if not shown and started.game.guest:  # elsewhere Discord refused it (logged)
            answer["notice"] = text("web.page_only", session.locale)
        return web.json_response(answer)

    async def hint(self, request: web.Request) -> web.Response:
        """The first ask for the position in front of the member is free (never refused);
        any other (that ply again, another, a game not theirs, a bad body) spends a credit:
        docs/run/under-abuse.md, "Fair shares"."""
        budget = self.budgets.hints
        session, game_id = await self._game_of(request, budget, free=True)
        try:
            ply = int_field(await _body(request), "ply")
        except WebRefusal:
            charge(budget, session)
            raise
        asked = self.games.hint(game_id, ply, session.user_id,
                                charge=lambda: charge(budget, session))  # fmt: skip
        update, hint = await self._ask(session, asked)
        await self.show(update)  # the board says a hint was used
        return web.json_response(hint_json(update.game, hint, session.locale))

    async def review(self, request: web.Request) -> web.Response:
        session, game_id = await self._game_of(request, self.budgets.reviews)
        game = await self._ask(session, self.records.review_target(
            session.guild_id, session.user_id, game_id))  # fmt: skip
        review = await self._ask(session, self.records.analyze(game, session.user_id))
        return web.json_response(review_json(review, session.locale))

    async def live(self, request: web.Request) -> web.StreamResponse:
        """The live socket: its session comes in its first message, never in the URL (a
        ``session`` parameter is ignored); a connect credit is spent only once the hub
        accepts the page."""
        shown = request.query.get("game", "")
        return await self.hub.serve(request, self._socket_session, self._connect,
                                    int(shown) if _is_id(shown) else None)  # fmt: skip

    async def _socket_session(self, token: str | None) -> Session:
        """The live socket's session, read as a GET's is (a revoked one refused)."""
        return await self.gate.read(token)

    def _connect(self, session: Session) -> None:
        """Raises: WebRefusal: 429, the member's, their server's or everyone's connects
        spent."""
        charge(self.budgets.connects, session)

    # --- internals -----------------------------------------------------------------------

    async def _session(self, request: web.Request) -> Session:
        """The request's session; a POST (an intent: it changes state) only from a member
        still in the session's Activity instance.

        Raises:
            WebRefusal: 401 ``bad_session``; 403 ``not_in_instance`` (a POST).
        """
        header = request.headers.get("Authorization", "")
        token = header.removeprefix("Bearer ").strip() or None
        return await self.gate.read(token, present=request.method == "POST")

    async def _game_of(
        self, request: web.Request, budget: Budget | None = None, *, free: bool = False
    ) -> tuple[Session, int]:
        """The session, and the game named in the path if it is one of its channel's; a
        credit of ``budget`` spent first (``free``: only for an id that is no game of
        the channel; the route charges the rest itself).

        Raises:
            WebRefusal: 404 for an id that is no game of the channel; 429, ``budget`` spent.
        """
        session = await self._session(request)
        if budget is not None and not free:
            charge(budget, session)
        unknown = WebRefusal(404, "unknown_game", "there is no such game in this channel")
        raw = request.match_info["id"]
        if not _is_id(raw):
            if budget is not None and free:
                charge(budget, session)
            raise unknown
        game_id = int(raw)
        channel = self._channels.get(game_id)
        if channel is None:
            game = await self.games.repo.get_game(game_id)
            channel = None if game is None else game.channel_id
            if channel is not None:
                self._channels[game_id] = channel
                if len(self._channels) > KNOWN_CHANNELS:
                    self._channels.popitem(last=False)
        if channel != session.channel_id:
            if budget is not None and free:
                charge(budget, session)
            raise unknown
        return session, game_id

    async def _ask(self, session: Session, request: Awaitable[Any]) -> Any:
        try:
            return await request
        except Refusal as error:
            raise refusal(error, session.locale) from None

    async def render(self, update: GameUpdate, session: Session) -> dict[str, Any]:
        """``update`` as the session's member sees it."""
        return await self._json(update, session)

    async def _json(self, update: GameUpdate, session: Session) -> dict[str, Any]:
        return await game_json(update, session.user_id, session.locale, self._person)

    async def _person(self, user_id: int) -> Person:
        user = await self.auth.user(user_id)
        return display_name(user), avatar_url(user)
