"""The Activity's parts built together for a process: the sign-in, the sessions, the API,
the live hub listening to the store's game notifications, and the server."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import aiohttp

from bot.core.lobby import Lobby
from bot.core.models import GameUpdate
from bot.core.my_games import MyGames
from bot.core.puzzles.service import PuzzleService
from bot.core.records import RecordsService
from bot.core.repository import GAMES_TOPIC, SESSIONS_TOPIC, Repository
from bot.core.service import GameService
from bot.settings import WebLimits
from bot.web.api import ActivityApi, Show
from bot.web.bot_rest import BotRest
from bot.web.discord_auth import DiscordAuth, sign_in_limits
from bot.web.instances import Instances
from bot.web.interactions import InteractionsEndpoint
from bot.web.limits import WebBudgets
from bot.web.live import LiveHub, LiveLimits
from bot.web.my_games_api import MyGamesApi
from bot.web.places import Places
from bot.web.puzzles_api import PuzzlesApi
from bot.web.service import WebService
from bot.web.sessions import Gate, Session, Sessions


@dataclass(frozen=True, slots=True)
class WebCounts:
    """The Activity's limits at work, for /metrics."""

    refused: dict[str, int]
    """Requests each budget refused since start."""
    closed: dict[int, int]
    """Live sockets closed or refused on purpose since start, by close code."""
    pages: int
    """Live sockets open."""


class Activity:
    """The running web service and what it holds open."""

    def __init__(
        self, service: WebService, http: aiohttp.ClientSession, budgets: WebBudgets | None = None
    ) -> None:
        self.service = service
        self.http = http
        self.budgets = budgets

    def counts(self) -> WebCounts:
        api = self.service.api
        if api is None or self.budgets is None:  # interactions over HTTP only
            return WebCounts({}, {}, 0)
        return WebCounts(self.budgets.refused(), dict(api.hub.closed), api.hub.pages)

    async def stop(self) -> None:
        await self.service.stop()
        await self.http.close()


async def start_activity(
    *, repo: Repository, games: GameService, lobby: Lobby, records: RecordsService, show: Show,
    api_base: str | None, client_id: int, client_secret: str | None, bot: BotRest, host: str,
    port: int, sign_ins_overall: int, sign_ins_per_member: int,
    sign_ins_per_instance: int | None = None, instance_lookups: int = 60,
    interactions: InteractionsEndpoint | None = None, limits: WebLimits | None = None,
    traces: Sequence[aiohttp.TraceConfig] = (), clock: Callable[[], float] = time.time,
    monotonic: Callable[[], float] = time.monotonic,
    sign_in_clock: Callable[[], float] = time.monotonic, puzzles: PuzzleService | None = None,
    my_games: MyGames | None = None,
) -> Activity:  # fmt: skip
    """Serve on ``host:port`` the Activity (with a client secret to sign members in) and
    the Interactions Endpoint (when given). ``bot``: the bot's REST client, for the calls
    made with its token; the OAuth2 calls go through a session of their own, traced by
    ``traces``, within ``sign_ins_overall`` sign-ins a minute (``sign_ins_per_instance``
    of them from one Activity instance) and ``sign_ins_per_member`` a member in ten
    minutes, and ``instance_lookups`` reads a minute of instances not kept (on
    ``sign_in_clock``, which a test moves with Discord's, as it moves the instances kept).
    ``limits``: what a member's pages may ask (None: the defaults); ``clock`` the
    sessions' time, ``monotonic`` the budgets'. ``puzzles``: the page plays them too;
    ``my_games``: its home view lists the member's games everywhere.

    What it opened is closed again when it fails or is cancelled.

    Raises:
        WebServiceError: the port cannot be listened on.
    """
    http = aiohttp.ClientSession(trace_configs=list(traces) or None)
    if client_secret is None:  # interactions over HTTP only
        service = WebService(None, repo.doubts, host=host, port=port, interactions=interactions)
        try:
            await service.start()
        except BaseException:  # a port in use, or a stop during the start
            await Activity(service, http).stop()
            raise
        return Activity(service, http)
    sign_ins = sign_in_limits(overall=sign_ins_overall, per_member=sign_ins_per_member,
                              per_instance=sign_ins_per_instance, lookups=instance_lookups,
                              clock=sign_in_clock)  # fmt: skip
    instances = Instances(bot, client_id, sign_ins.lookups, sign_in_clock)
    auth = DiscordAuth(http, bot, sign_ins, api_base=api_base, client_id=client_id,
                       client_secret=client_secret, instances=instances)  # fmt: skip
    api: ActivityApi

    async def render(update: GameUpdate, session: Session) -> dict[str, Any]:
        return await api.render(update, session)

    async def games_for(session: Session) -> list[dict[str, Any]]:
        return await api.games_for(session)

    limits = limits or WebLimits()
    live = LiveLimits(pages_per_member=limits.pages_per_member,
                      pages_overall=limits.pages_overall,
                      presence_every=limits.presence_every, page_queue=limits.page_queue,
                      send_timeout=limits.send_timeout)  # fmt: skip
    hub = LiveHub(games.current, render, games_for, instance=auth.instance, limits=live,
                  clock=clock)  # fmt: skip
    budgets = WebBudgets.of(limits, monotonic)
    gate = Gate(Sessions(client_secret, clock), repo.sessions_not_before, instances)
    places = Places(bot)
    more = []
    if puzzles is not None:
        more.append(PuzzlesApi(puzzles=puzzles, gate=gate, places=places,
                               budgets=budgets).routes)  # fmt: skip
    if my_games is not None:
        more.append(MyGamesApi(my_games=my_games, gate=gate, auth=auth).routes)
    api = ActivityApi(games=games, lobby=lobby, records=records, auth=auth, gate=gate,
                      show=show, hub=hub, places=places, budgets=budgets, more=more)  # fmt: skip
    service = WebService(api, repo.doubts, host=host, port=port, interactions=interactions)
    try:
        await repo.listen(GAMES_TOPIC, hub.heard)
        gate.revoked.append(hub.revoked)  # a revoked member's pages close at once
        await repo.listen(SESSIONS_TOPIC, gate.heard)
        await service.start()
    except BaseException:  # a port in use, or a stop during the start
        await Activity(service, http).stop()
        raise
    hub.start()
    return Activity(service, http, budgets)
