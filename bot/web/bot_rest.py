"""What the web service asks Discord with the bot's token, and through what: the bot's own
REST client (discord.py's, built by the composition root), so that these calls share its
per-route buckets and its global lock with every other call the process makes."""

from __future__ import annotations

from typing import Any, Protocol


class BotRest(Protocol):
    async def get(self, path: str, /, **params: int | str) -> tuple[int, dict[str, Any]]:
        """``GET`` the route ``path`` (``{name}`` filled from ``params``, so its bucket
        counts its major parameters) with the bot's token, after any wait Discord's
        rate limits ask: Discord's status and JSON body (an error's ``{"code",
        "message"}``; ``{}`` when it sent none).

        Raises:
            OSError: no answer came (TimeoutError, ConnectionError).
        """
        ...
