"""Answering a click by editing its message, without asking for the message back.

discord.py's ``InteractionResponse.edit_message`` always asks Discord to send the edited
message back (``?with_response=1``, since 2.5) and parses it into a ``Message``: about a
tenth of the bot's CPU on every click (issue 35), for a message nothing reads.
:func:`update_message` sends the same UPDATE_MESSAGE callback, its body built by
discord.py's own function, through discord.py's own webhook adapter (no bot token, no
global rate limit, as discord.py answers), without that parameter; Discord then answers
204 with no body. The interaction is then marked answered, as ``edit_message`` marks it.

Three names here are discord.py's internals. Where one is missing (another discord.py),
:data:`AVAILABLE` is False and clicks are answered by ``edit_message`` as before.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord.http import Route

log = logging.getLogger(__name__)

try:
    from discord.webhook.async_ import async_context, interaction_message_response_params

    AVAILABLE = all(
        name in getattr(cls, "__slots__", ())
        for cls, name in ((discord.InteractionResponse, "_response_type"),
                          (discord.Interaction, "_session"))
    )  # fmt: skip
except ImportError:  # pragma: no cover - another discord.py
    AVAILABLE = False

if not AVAILABLE:  # pragma: no cover - another discord.py
    log.warning("this discord.py has no quiet interaction callback: clicks parse their answer")


async def update_message(
    interaction: discord.Interaction,
    *,
    content: str | None,
    view: discord.ui.View | discord.ui.LayoutView,
    allowed_mentions: discord.AllowedMentions,
) -> None:
    """Answer a component interaction by editing its message to ``content`` and ``view``,
    as ``interaction.response.edit_message`` does (the same errors: ``NotFound`` for an
    expired interaction or a deleted message, ``InteractionResponded`` if answered)."""
    response = interaction.response
    if not AVAILABLE:  # pragma: no cover - another discord.py
        await response.edit_message(content=content, view=view, allowed_mentions=allowed_mentions)
        return
    if response.is_done():
        raise discord.InteractionResponded(interaction)
    state: Any = interaction._state
    params = interaction_message_response_params(
        type=discord.InteractionResponseType.message_update.value,
        content=content,
        view=view,
        previous_allowed_mentions=state.allowed_mentions,
        allowed_mentions=allowed_mentions,
    )
    route = Route(
        "POST",
        "/interactions/{webhook_id}/{webhook_token}/callback",
        webhook_id=interaction.id,
        webhook_token=interaction.token,
    )
    await async_context.get().request(
        route,
        session=interaction._session,
        proxy=state.http.proxy,
        proxy_auth=state.http.proxy_auth,
        payload=params.payload,
    )
    response._response_type = discord.InteractionResponseType.message_update
