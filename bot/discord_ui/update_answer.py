"""Answering a click by editing its message, without asking for the message back.

discord.py's ``InteractionResponse.edit_message`` always asks Discord to send the edited
message back (``?with_response=1``, since 2.5) and parses it into a ``Message``: about a
tenth of the bot's CPU on every click (issue 35), for a message nothing reads.
:func:`update_message` sends the same UPDATE_MESSAGE callback, its body built by
discord.py's own function, through discord.py's own webhook adapter (no bot token, no
global rate limit, as discord.py answers), without that parameter; Discord then answers
204 with no body. The interaction is then marked answered, as ``edit_message`` marks it.

Six names here are discord.py's internals: ``async_context`` and its adapter's
``request``, ``interaction_message_response_params``, ``Route``, ``Interaction._session``
and ``_state``, and ``InteractionResponse._response_type``. ``pyproject.toml`` bounds
discord.py to the minor versions the tests ran; on top of that, :func:`internals_problems`
checks at start-up that each is there with the parameters used here (their signatures,
not only their names). Where one is not, :data:`AVAILABLE` is False, the log says which,
and clicks are answered by ``edit_message`` as before.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord.http import Route

from bot.discord_ui.internals import Used, problems

log = logging.getLogger(__name__)

try:
    from discord.webhook.async_ import async_context, interaction_message_response_params
except ImportError:  # pragma: no cover - another discord.py
    async_context = interaction_message_response_params = None  # type: ignore[assignment]

USED: tuple[Used, ...] = (
    ("interaction_message_response_params", lambda: interaction_message_response_params,
     frozenset({"type", "content", "view", "previous_allowed_mentions", "allowed_mentions"})),
    ("the webhook adapter's request", lambda: type(async_context.get()).request,
     frozenset({"route", "session", "payload", "proxy", "proxy_auth"})),
    ("Route", lambda: Route.__init__,
     frozenset({"method", "path", "webhook_id", "webhook_token"})),
)  # fmt: skip
"""Each callable used here, and the parameters it is passed."""

SLOTS = ((discord.InteractionResponse, "_response_type"),
         (discord.Interaction, "_session"), (discord.Interaction, "_state"))  # fmt: skip


def internals_problems() -> list[str]:
    """What this discord.py lacks of the internals :func:`update_message` uses: one line
    each (empty when all is there, with the parameters it passes)."""
    return problems(USED, SLOTS)


_problems = internals_problems()
AVAILABLE = not _problems
if not AVAILABLE:  # pragma: no cover - another discord.py
    log.warning(
        "discord.py %s lacks what the quiet click answer uses (%s): clicks parse their answer",
        discord.__version__, "; ".join(_problems),
    )  # fmt: skip


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


def on_private_message(interaction: discord.Interaction) -> bool:
    """Whether the click was on an ephemeral message: a board ``/ttt games`` showed the
    member privately, which is not the game's own message."""
    message = interaction.message
    return message is not None and message.flags.ephemeral


def clicked_board(interaction: discord.Interaction) -> int | None:
    """The game's message a click was on, for the service to check it is still the game's
    board; None for a private board (``/ttt games``), which any of the game's boards may
    be, as the ply it carries still says which position it showed."""
    message = interaction.message
    if message is None or message.flags.ephemeral:
        return None
    return message.id
