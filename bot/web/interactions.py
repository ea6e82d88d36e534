"""``POST /interactions``: Discord's Interactions Endpoint URL. Discord POSTs each
interaction here, signed, and takes the HTTP response as the interaction's answer.

The raw bytes are checked first, cheapest first: their encoding (none), size and
arrival within a total time (:mod:`bot.web.bodies`, before this handler), the
timestamp's age, then the Ed25519 signature; nothing is parsed, stored, logged or looked
up before the signature holds, so a forgery costs one signature check and nothing more.
A PING is answered here;
every other interaction is claimed (:mod:`bot.web.replays`: a replay of a request
Discord signed is refused, whatever process it reaches), then goes to ``answer``, the
same router the gateway's events reach,
whose answer (the callback discord.py would have POSTed) is this response's body; one
with files is POSTed after all (Discord takes no multipart response), and the response
is then the 202 Discord's documentation asks for.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from aiohttp import web

from bot.core.doubts import journal
from bot.i18n import text
from bot.web.bodies import MAX_INTERACTION_BODY
from bot.web.replays import Replays
from bot.web.signature import Verifier

log = logging.getLogger(__name__)

PING, PONG = 1, 1
DEADLINE = 2.9
"""Seconds an answer may take before the endpoint gives up on it (the claim's included):
Discord waits 3."""
CLAIM_WITHIN = 1.5
"""Seconds the claim may take: a database slower than that leaves the answer too little
of Discord's 3, and the apology in time is the better answer."""
EPHEMERAL = 64
TELL_EVERY = 60.0
"""Seconds between two warnings that replays were refused."""


class Answer(Protocol):
    """An interaction's callback as the router made it: its JSON for the response, or
    None when the callback goes to Discord's REST API instead (one with files: Discord
    fails a multipart response), which Discord documents as answered by a 202 with no
    body. The event is set once the response is written."""

    payload: dict[str, Any] | None
    posting: asyncio.Future[Any] | None
    """With no payload: the callback's POST to the REST API, under way."""
    delivered: asyncio.Event
    written: bool
    """Set before :attr:`delivered`: whether the response reached the connection (False:
    the connection was gone, or the answer came too late to be sent)."""


Answerer = Callable[[dict[str, Any]], Awaitable[Answer]]


class InteractionsEndpoint:
    def __init__(self, verifier: Verifier, answer: Answerer, replays: Replays) -> None:
        self.verifier = verifier
        self.answer = answer
        self.replays = replays
        self.replays_refused = 0
        """Copies of interactions refused since the start."""
        self._untold = 0
        self._told_at = -TELL_EVERY

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()  # read whole by bot.web.bodies, within its limits
        if len(body) > MAX_INTERACTION_BODY:  # held there already: said again for the reader
            return _refusal(413, "too_large", f"the body is over {MAX_INTERACTION_BODY} bytes")
        headers = request.headers
        refused = self.verifier.refusal(
            headers.get("X-Signature-Ed25519"), headers.get("X-Signature-Timestamp"), body
        )
        if refused is not None:
            return _refusal(401, "bad_signature", refused)
        try:
            interaction = json.loads(body)
            kind = interaction["type"]
        except (ValueError, TypeError, KeyError, RecursionError):  # the last: nested deep
            return _refusal(400, "bad_request", "the body is not an interaction")
        if kind == PING:  # answers the same however often it comes
            return web.json_response({"type": PONG})
        try:
            interaction_id = int(interaction["id"])
        except (ValueError, TypeError, KeyError):
            return _refusal(400, "bad_request", "the interaction has no id")
        until = asyncio.get_running_loop().time() + DEADLINE
        turned_away = await self._claim(interaction, interaction_id)
        if turned_away is not None:
            return turned_away
        try:
            async with asyncio.timeout_at(until):  # no task of its own, as wait_for makes
                answer = await self.answer(interaction)
        except TimeoutError:
            log.warning("interaction %s (type %s) had no answer within %.1f s",
                        interaction.get("id"), kind, DEADLINE)  # fmt: skip
            return _refusal(503, "no_answer", "the interaction had no answer in time")
        try:
            response = _response(answer) if answer.posting is None else await _posted(answer)
            await response.prepare(request)
            await response.write_eof()
            answer.written = True
        finally:  # whatever happened, whoever answered is told: it may hold a game's lock
            answer.delivered.set()
        return response

    async def _claim(self, interaction: dict[str, Any], interaction_id: int) -> web.Response | None:
        """None once the interaction is claimed, here first; otherwise the response: a
        replay's refusal, which holds nothing of what the interaction would show; or,
        when the claim cannot be made (the database out of reach, or too slow), the
        member's apology in place of the answer. Refused rather than answered unclaimed:
        a flood of one captured request would otherwise slow the claims past their bound
        and be answered; and the apology is true (nothing was changed), as the router's
        own would have been with the database out, and in time."""
        try:
            with journal():  # the claim is no write of the interaction's: it shows nothing
                async with asyncio.timeout(CLAIM_WITHIN):
                    first = await self.replays.first(interaction_id)
        except Exception:
            log.warning("interaction %s could not be claimed: answered with an apology",
                        interaction_id, exc_info=True)  # fmt: skip
            return web.json_response(_apology(interaction))
        if first:
            return None
        self.replays_refused += 1
        self._untold += 1
        now = time.monotonic()
        if now - self._told_at >= TELL_EVERY:  # a flood of copies: a line a minute
            log.warning("refused %d interaction(s) already received (the latest %s): a request "
                        "Discord signed was sent again by someone who has a copy of it",
                        self._untold, interaction_id)  # fmt: skip
            self._told_at, self._untold = now, 0
        return _refusal(409, "replayed", "this interaction was already received")


def _response(answer: Answer) -> web.StreamResponse:
    return web.json_response(answer.payload)


async def _posted(answer: Answer) -> web.StreamResponse:
    """For a callback POSTed to the REST API: "respond to the original HTTP request with a
    202 and no body" once it went (however long its files took); a 503 if it failed."""
    assert answer.posting is not None
    try:
        await asyncio.shield(answer.posting)  # the controller awaits it too
    except Exception:  # the controller's to handle (and log), as over the gateway
        return _refusal(503, "no_answer", "the interaction's callback could not be sent")
    return web.Response(status=202)


def _apology(interaction: dict[str, Any]) -> dict[str, Any]:
    """A private reply, in the member's language, that nothing was changed."""
    content = text("error.generic", interaction.get("locale"))
    return {"type": 4, "data": {"content": content, "flags": EPHEMERAL}}


def _refusal(status: int, code: str, reason: str) -> web.Response:
    return web.json_response({"error": code, "reason": reason}, status=status)
