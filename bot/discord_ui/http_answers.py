"""Interactions that came over HTTP (``POST /interactions``), handed to discord.py as the
gateway hands them, their answer taken as the HTTP response.

discord.py answers an interaction by POSTing its callback through the webhook adapter in
``async_context``, a context variable. An interaction from the endpoint is parsed by the
same ``parse_interaction_create`` the gateway's INTERACTION_CREATE reaches, with that
variable set to :class:`CapturingAdapter`, which every task discord.py starts for it
inherits: the command tree, the router and the controllers run unchanged, and the first
callback they POST becomes the endpoint's response instead of a request. Everything else
(follow-ups, ``@original`` edits, a second callback) goes to Discord as before, and so
does a callback with files: Discord fails a multipart response (discord-api-docs#5933),
so it is POSTed and the endpoint answers 202, as Discord documents for that case.

discord.py asks for the callback's result (``?with_response=1``) when it sends a message
(``send_message``, ``defer``): the message Discord made of an HTTP response is read back
(``GET .../messages/@original``) once the response is written, so a controller gets the
same ``InteractionCallbackResponse`` ``message_id`` either way. Its ``resource`` (the
message as a discord.py object, which ttt never reads) is left out: parsing it cost
more than the read.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import weakref
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import discord
from discord.http import Route
from discord.state import ConnectionState
from discord.webhook.async_ import AsyncWebhookAdapter, async_context

from bot.discord_ui.internals import Used, problems

log = logging.getLogger(__name__)

USED: tuple[Used, ...] = (
    ("the webhook adapter's request", lambda: AsyncWebhookAdapter.request,
     frozenset({"route", "session", "payload", "multipart", "params"})),
    ("Route", lambda: Route.__init__,
     frozenset({"method", "path", "webhook_id", "webhook_token"})),
    ("ConnectionState.parse_interaction_create",
     lambda: ConnectionState.parse_interaction_create, frozenset({"data"})),
)  # fmt: skip
"""The discord.py internals this module leans on, and the parameters it passes them."""


def internals_problems() -> list[str]:
    """What this discord.py lacks of them (checked at start-up when interactions come
    over HTTP: without them none could be answered)."""
    found = problems(USED)
    if not isinstance(async_context, contextvars.ContextVar):
        found.append("async_context is no longer a context variable")
    elif not isinstance(getattr(async_context.get(), "_locks", None), weakref.WeakValueDictionary):
        found.append("the webhook adapter keeps its rate limits' locks elsewhere")
    return found


CALLBACK = "/interactions/{webhook_id}/{webhook_token}/callback"
ORIGINAL = "/webhooks/{webhook_id}/{webhook_token}/messages/@original"
MESSAGE_MADE = (4, 5)
"""Callback types that make a message (a reply, a deferral's "thinking…")."""
EPHEMERAL = 64


@dataclass
class Answer:
    """A callback taken instead of sent (``bot.web.interactions.Answer``)."""

    payload: dict[str, Any] | None
    """The callback, for the response; None once POSTed to the REST API instead."""
    posting: asyncio.Future[Any] | None = None
    """That POST, with no payload."""
    delivered: asyncio.Event = field(default_factory=asyncio.Event)
    written: bool = False


class CapturingAdapter(AsyncWebhookAdapter):
    """The webhook adapter of one interaction that came over HTTP: its first callback is
    the HTTP response; every other request is sent."""

    def __init__(
        self, interaction: dict[str, Any], answered: asyncio.Future[Answer],
        shared: AsyncWebhookAdapter,
    ) -> None:  # fmt: skip
        super().__init__()
        # the rate limits' locks are ``shared``'s, the adapter every other webhook request
        # of the process goes through (as over the gateway), not a table of this
        # interaction's own that a timer's edit of the same message would miss
        self._locks = shared._locks
        self.interaction = interaction
        self.answered = answered

    async def request(self, route: Route, session: aiohttp.ClientSession, *,
                      payload: dict[str, Any] | None = None,
                      multipart: list[dict[str, Any]] | None = None,
                      params: dict[str, Any] | None = None, **kwargs: Any) -> Any:  # fmt: skip
        ours = (
            route.method == "POST" and route.path == CALLBACK
            and str(route.webhook_id) == str(self.interaction["id"])
        )  # fmt: skip
        if not ours or self.answered.done():
            return await super().request(route, session, payload=payload, multipart=multipart,
                                         params=params, **kwargs)  # fmt: skip
        if multipart:  # files: Discord fails a multipart response (discord-api-docs#5933)
            return await self._post(route, session, multipart, params, kwargs)
        answer = Answer(payload)
        self.answered.set_result(answer)
        with contextlib.suppress(TimeoutError):  # the endpoint always says; a bound anyway
            async with asyncio.timeout(DELIVERY):
                await answer.delivered.wait()
        if not answer.written:  # as Discord refuses a callback after its 3 s
            raise discord.NotFound(_Refused(), {"code": 10062, "message": "Unknown interaction"})
        if not params or not params.get("with_response"):
            return None
        assert payload is not None
        return await self._result(payload, session, kwargs)

    async def _post(
        self, route: Route, session: aiohttp.ClientSession, multipart: list[dict[str, Any]],
        params: dict[str, Any] | None, kwargs: dict[str, Any],
    ) -> Any:  # fmt: skip
        """The callback sent as over the gateway (its result, the message made, comes
        back with it). The endpoint is handed the request at once, not held to its own
        deadline while the files go up, and answers 202 with no body once the callback
        went, as Discord documents for an interaction answered this way (a 503 if it
        failed). An error is the controller's to handle, as over the gateway."""
        posting = asyncio.ensure_future(
            super().request(route, session, multipart=multipart, params=params, **kwargs)
        )
        if not self.answered.done():  # done: the endpoint gave up on it meanwhile
            self.answered.set_result(Answer(None, posting=posting))
        return await posting

    async def _result(
        self, sent: dict[str, Any], session: aiohttp.ClientSession, kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        """What ``?with_response=1`` would have returned for the callback ``sent``: the
        interaction, and the message the answer made (read back from Discord)."""
        kind = int(sent["type"])
        data = self.interaction
        interaction: dict[str, Any] = {"id": str(data["id"]), "type": data["type"]}
        out: dict[str, Any] = {"interaction": interaction}
        flags = int((sent.get("data") or {}).get("flags") or 0)
        if kind in MESSAGE_MADE and not flags & EPHEMERAL:  # only a public one's id is kept
            route = Route("GET", ORIGINAL, webhook_id=data["application_id"],
                          webhook_token=data["token"])  # fmt: skip
            kept = {k: v for k, v in kwargs.items() if k in ("proxy", "proxy_auth")}
            message = await self._read_back(route, session, kept)
            if message is None:  # posted, but not to be read yet: no id to keep
                return out
            interaction |= {"response_message_id": message["id"],
                            "response_message_loading": kind == 5,
                            "response_message_ephemeral": bool(message.get("flags", 0)
                                                               & EPHEMERAL)}  # fmt: skip
        elif kind == 7 and data.get("message"):
            interaction["response_message_id"] = data["message"]["id"]
        return out

    async def _read_back(
        self, route: Route, session: aiohttp.ClientSession, kept: dict[str, Any]
    ) -> Any:
        """``GET …/messages/@original``, tried again while Discord does not have it yet;
        None if it never does (the message stays unknown to ttt, which then shows the
        game through the interaction's token instead)."""
        for pause in (*READ_BACK, None):
            try:
                return await super().request(route, session, **kept)
            except discord.NotFound:
                if pause is None:
                    return None
                await asyncio.sleep(pause)
            except discord.HTTPException:  # the answer was given: only its id is missing
                log.warning("could not read back the message of interaction %s",
                            self.interaction.get("id"), exc_info=True)  # fmt: skip
                return None
        return None


READ_BACK = (0.05, 0.1, 0.2, 0.4, 0.8)
"""Seconds between the tries to read back a message the answer made: Discord may take a
moment after the response to make it (the emulator as well), and until then says
Unknown Message; the answer was given all the same."""


DELIVERY = 10.0
"""Seconds an answer waits to hear whether it was written (the endpoint tells at once;
this bounds it, so that nothing waits for ever holding a game's lock)."""


class _Refused:
    """What :class:`discord.NotFound` reads of a response, for an answer that was never
    written: Discord's own refusal of a callback too late."""

    status = 404
    reason = "Not Found"


class HttpAnswers:
    """The endpoint's ``answer``: an interaction's payload in, its callback out."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client

    async def __call__(self, interaction: dict[str, Any]) -> Answer:
        answered: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        token = async_context.set(CapturingAdapter(interaction, answered, async_context.get()))
        try:  # the tasks discord.py starts for it are made here, with the adapter set
            self.client._connection.parse_interaction_create(interaction)  # type: ignore[arg-type]
        finally:
            async_context.reset(token)
        try:
            return await asyncio.shield(answered)
        except asyncio.CancelledError:  # the endpoint gave up: an answer taken meanwhile
            if answered.done() and not answered.cancelled():  # is never written
                answered.result().delivered.set()
            else:  # a later one goes to Discord, which refuses it as too late
                answered.cancel()
            raise
