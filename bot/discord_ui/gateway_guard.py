"""A malformed gateway event is logged and dropped, never the end of the connection."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger("bot.app")  # the app's log, as before the move


def guard_gateway_parsers(parsers: dict[str, Callable[[Any], None]]) -> None:
    """Make every gateway event parser log a malformed payload instead of raising.

    discord.py calls them bare in ``DiscordWebSocket.received_message``: one
    INTERACTION_CREATE without ``data`` (a KeyError inside the library) would end the
    connection's task and with it the process. ``parsers`` is the client's
    ``_connection.parsers``, the table the gateway looks events up in.
    """
    for event, parse in list(parsers.items()):
        parsers[event] = _guarded(event, parse)


def _guarded(event: str, parse: Callable[[Any], None]) -> Callable[[Any], None]:
    def run(data: Any) -> None:
        try:
            parse(data)
        except Exception:
            log.exception("ignored a malformed %s event from the gateway", event)

    return run
