"""Answering interactions: exactly once, refusals privately, failures with an apology.

Every controller method runs inside :meth:`Responder.answering`, so no click or command
ever shows 'This interaction failed', and a shutdown can wait for the ones in flight.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import discord
from discord import app_commands

from bot.core.doubts import Doubts, Journal, journal
from bot.core.models import Challenge, Game
from bot.core.refusals import Refusal
from bot.discord_ui.render_common import message_link, player_name
from bot.i18n import text, with_keys

log = logging.getLogger(__name__)

NO_MENTIONS = discord.AllowedMentions.none()
CHANNEL_PERMISSIONS = (
    ("view_channel", "perm.view_channel"),
    ("send_messages", "perm.send_messages"),
    ("embed_links", "perm.embed_links"),
)


def public_locale(interaction: discord.Interaction) -> discord.Locale | None:
    """The language of the messages everyone in the channel sees: the server's; in a DM
    with the bot, where only the member sees them, the member's own."""
    return interaction.guild_locale if interaction.guild_id is not None else interaction.locale


def locale_code(locale: discord.Locale | None) -> str | None:
    """A language as stored with what keeps it (a game, a tournament, a member's choice
    of reminders): Discord's code, e.g. ``fr``."""
    return str(locale.value) if locale else None


def is_guest(interaction: discord.Interaction) -> bool:
    """Whether only a member's own install of ttt reaches here: a DM or group DM between
    members, or a server that did not add ttt. The bot can then neither post nor edit in
    the channel: everything it shows is an interaction's answer (see ``reply_tokens``)."""
    if interaction.context.private_channel:
        return True
    return interaction.guild_id is not None and not interaction.is_guild_integration()


def outside_private_channel(interaction: discord.Interaction, user_id: int) -> bool:
    """Whether ``user_id`` is not in the DM or group DM between users the interaction came
    from, as its recipients list it: they would never see a challenge there. False where
    Discord lists no recipients (nothing to judge by) and outside private channels."""
    if not interaction.context.private_channel:
        return False
    recipients = getattr(interaction.channel, "recipients", None) or []
    ids = {user.id for user in recipients} | {interaction.user.id}
    return len(recipients) > 0 and user_id not in ids


def settings_guild(interaction: discord.Interaction) -> int | None:
    """The server whose settings and records apply: None in DMs and for a guest."""
    return None if is_guest(interaction) else interaction.guild_id


class ServerOnly(app_commands.CheckFailure):
    """A subcommand that means nothing in a DM with the bot (a server's settings or
    leaderboard) was used there. Discord's command contexts apply to the whole /ttt
    group, so this check, answered by :class:`AnsweringTree`, stands in for them."""


class NotAddedHere(app_commands.CheckFailure):
    """A server-only subcommand in a server that did not add ttt (a member's own install
    brought it there): it has no settings, leaderboard or boards of its own."""


def _in_a_server(interaction: discord.Interaction) -> bool:
    if interaction.guild_id is None or interaction.context.private_channel:
        raise ServerOnly()
    if is_guest(interaction):
        raise NotAddedHere()
    return True


server_only = app_commands.check(_in_a_server)
"""Decorates a /ttt subcommand that works in servers that added ttt only (a private
refusal in DMs and where only a member's own install reaches)."""


def role_ids(interaction: discord.Interaction) -> list[int]:
    """The member's roles in the server, from the interaction itself (none outside one)."""
    return [role.id for role in getattr(interaction.user, "roles", ())]


UNKNOWN_INTERACTION = 10062
_EXPIRED = "ttt.expired"  # a key of Interaction.extras, discord.py's room for our data


def expired(interaction: discord.Interaction) -> bool:
    """Whether Discord refused an answer to ``interaction`` as unknown (see
    :func:`note_expired`): nothing can answer it any more."""
    return bool(interaction.extras.get(_EXPIRED))


def note_expired(interaction: discord.Interaction, exc: BaseException) -> bool:
    """Whether ``exc`` is Discord refusing an answer to ``interaction`` as unknown (10062:
    its 3 s passed first). It is then marked :func:`expired`: it takes no other initial
    response, nor a follow-up through its token, never acknowledged (a retry under load
    comes as late); what it changed is shown by editing the channel's message."""
    if not (isinstance(exc, discord.NotFound) and exc.code == UNKNOWN_INTERACTION):
        return False
    if not expired(interaction):
        interaction.extras[_EXPIRED] = True
        log.warning("interaction %s expired before its answer (%s)", interaction.id, exc)
    return True


ANSWER_WITHIN = 1.5
"""Seconds from an interaction's creation (Discord's clock, in its snowflake) by which ttt
means to have answered it: half Discord's 3, the rest kept for the answer's own trip
and a busy machine. A late interaction waits for no search beyond it."""


def created(interaction: discord.Interaction) -> float:
    """When Discord created ``interaction``, in ``time.time()`` seconds: from its
    snowflake's milliseconds, as ``created_at`` gives without building a datetime on
    every interaction."""
    return ((interaction.id >> 22) + discord.utils.DISCORD_EPOCH) / 1000


def answer_by(interaction: discord.Interaction) -> float:
    """When ``interaction`` must be answered at the latest, in ``time.time()`` seconds."""
    return created(interaction) + ANSWER_WITHIN


async def in_time(interaction: discord.Interaction, answer: Awaitable[object]) -> bool:
    """Await ``answer``, the interaction's first response; False if Discord refused it as
    unknown (see :func:`note_expired`): what it would have shown is then for the caller
    to edit into the message over REST, as a game click's board is.

    Raises:
        discord.HTTPException: Discord refused the answer for another reason.
    """
    try:
        await answer
    except discord.NotFound as exc:
        if not note_expired(interaction, exc):
            raise
        return False
    return True


Observer = Callable[[str, float], None]
"""Told of each interaction answered: ``answered``, ``refused`` or ``failed``, and the
seconds from its creation (Discord's clock, from the snowflake) to the answer."""
Answered = Callable[[discord.Interaction], Awaitable[None]]
"""Told of each interaction once its handling is over (its token kept, where it may show
what a page starts: see ``reply_tokens``)."""


class Responder:
    def __init__(
        self, observe: Observer | None = None, doubts: Doubts | None = None,
        answered: Answered | None = None,
    ) -> None:  # fmt: skip
        self.observe = observe
        self.answered = answered
        self.also_answered: list[Answered] = []
        """Told of every interaction answered too, after :attr:`answered` (the notice
        that a member's reminders no longer reach them by DM)."""
        self.doubts = Doubts() if doubts is None else doubts
        """Where what a failed interaction stored goes, for the reconciler to show."""
        self.in_flight = 0
        self.idle = asyncio.Event()
        self.idle.set()

    @contextlib.asynccontextmanager
    async def answering(self, interaction: discord.Interaction) -> AsyncIterator[None]:
        """Turn refusals into private replies and failures into an apology; count the
        interaction as in flight meanwhile.

        The apology says nothing was changed only when that is known: when no write of
        the interaction was stored or may have been (its :class:`~bot.core.doubts.Journal`).
        Otherwise it says the outcome is not confirmed, and what the writes touched is
        left to the reconciler, which shows it as stored."""
        self.in_flight += 1
        self.idle.clear()
        outcome = "answered"
        written = Journal()
        try:
            with journal() as written:
                yield
        except Refusal as refusal:
            outcome = "refused"
            log.debug("interaction %s by %s refused: %s", interaction.id, interaction.user.id,
                      refusal.key)  # fmt: skip
            await self.reply_private(interaction, refusal_text(refusal, interaction.locale))
        except Exception as exc:
            outcome = "failed"
            if not note_expired(interaction, exc):
                log.exception("interaction %s failed", interaction.id)
            key = "error.generic"
            if written.changed_maybe:
                key = "error.unconfirmed"
                self.doubts.add(written.stored)  # those unknown are there already
            with contextlib.suppress(discord.HTTPException):  # not once it expired
                await self.reply_private(interaction, text(key, interaction.locale))
        finally:
            try:
                if self.answered is not None and outcome != "failed":
                    try:
                        await self.answered(interaction)
                    except Exception:  # the answer stands; a page start there shows less
                        log.exception("interaction %s: its token was not kept", interaction.id)
                for also in self.also_answered if outcome != "failed" else ():
                    try:
                        await also(interaction)
                    except Exception:  # the answer stands
                        log.exception("interaction %s: what follows its answer failed",
                                      interaction.id)  # fmt: skip
            finally:  # counted out even if cancelled while keeping its token
                self.in_flight -= 1
                if not self.in_flight:
                    self.idle.set()
                if self.observe is not None:
                    self.observe(outcome, max(0.0, time.time() - created(interaction)))

    @staticmethod
    async def reply_private(interaction: discord.Interaction, message: str) -> None:
        """Answer only the member, or follow up so if answered already; nothing once
        Discord refused an answer to the interaction as unknown (:func:`note_expired`),
        before or now.

        Raises:
            discord.HTTPException: Discord refused the message for another reason.
        """
        if expired(interaction):
            return
        try:
            if interaction.response.is_done():
                await interaction.followup.send(message, ephemeral=True)
            else:
                await interaction.response.send_message(message, ephemeral=True)
        except discord.NotFound as exc:
            if not note_expired(interaction, exc):
                raise

    @staticmethod
    def require_channel_permissions(interaction: discord.Interaction) -> None:
        """Refuse, naming them, when the bot lacks what a game needs in this channel:
        answers reach members regardless, but timeouts and restarts edit or post messages
        on the bot's own account.

        Raises:
            Refusal: ``perm.missing``.
        """
        if interaction.guild_id is None and not interaction.context.private_channel:
            # A DM with the bot: Discord's app_permissions there lack View Channel and
            # Send Messages, yet the bot may always post and edit its messages there.
            return
        if is_guest(interaction):
            # Nothing is posted on the bot's account here; but where the server denies
            # members' own apps public answers, nobody else would see the game.
            if interaction.guild_id is not None and not interaction.permissions.use_external_apps:
                raise Refusal("guest.external_apps")
            return
        granted = interaction.app_permissions
        missing = [key for attr, key in CHANNEL_PERMISSIONS if not getattr(granted, attr)]
        if missing:
            raise Refusal("perm.missing", permission_keys=missing)


SNOWFLAKE_LIMIT = 1 << 64
RESOLVED_KINDS = {6: ("users",), 7: ("channels",), 8: ("roles",), 9: ("users", "roles")}
"""Option types whose value is an id Discord resolves (user, channel, role, mentionable),
and where in ``resolved`` it must be."""


def well_formed(data: object) -> bool:
    """Whether a slash command's data is shaped as Discord sends it: options a list (or
    absent), each id option a snowflake that ``resolved`` holds. discord.py trusts this
    shape and raises outside the tree's error handler when it is not."""
    if not isinstance(data, dict):
        return False
    resolved = data.get("resolved") or {}

    def options_ok(holder: dict[str, object]) -> bool:
        options = holder.get("options", [])
        if not isinstance(options, list):
            return False
        for option in options:
            if not isinstance(option, dict):
                return False
            kind = option.get("type")
            if kind in (1, 2) and not options_ok(option):  # a subcommand (group)
                return False
            if kind in RESOLVED_KINDS:
                raw = str(option.get("value"))
                if not (raw.isascii() and raw.isdigit() and 0 < int(raw) < SNOWFLAKE_LIMIT):
                    return False
                if not any(raw in (resolved.get(kind_of) or {}) for kind_of in
                           RESOLVED_KINDS[kind]):  # fmt: skip
                    return False
        return True

    return options_ok(data)


class AnsweringTree(app_commands.CommandTree):
    """A command tree that answers the commands it cannot run: one a member's client sent
    from an out-of-date copy of the commands (an unknown subcommand, a group with no
    subcommand), an option value that does not convert (a choice that no longer exists),
    or data Discord would never send (an id that is no snowflake or was not resolved,
    options that are not a list). discord.py would only log those, and the member see
    'This interaction failed'."""

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        """Runs before discord.py reads the options: garbled ones are answered here, and
        the Activity's entry point (a command type discord.py does not know) when the app
        handles it (handler 1): Discord is asked to launch the Activity."""
        if isinstance(interaction.data, dict) and interaction.data.get("type") == 4:
            with contextlib.suppress(discord.HTTPException):
                await interaction.response.launch_activity()
            return False
        if well_formed(interaction.data):
            return True
        log.debug("interaction %s: malformed command data", interaction.id)
        with contextlib.suppress(discord.HTTPException):
            await Responder.reply_private(interaction, text("command.outdated", interaction.locale))
        return False

    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        if isinstance(error, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
            message = text("command.outdated", interaction.locale)
        elif isinstance(error, ServerOnly | NotAddedHere):
            key = "dm.server_only" if isinstance(error, ServerOnly) else "guest.server_only"
            group, command = typed_command(interaction.command, interaction.locale)
            message = text(key, interaction.locale, group=group, command=command)
        elif isinstance(error, app_commands.TransformerError):
            message = text("command.bad_option", interaction.locale, value=str(error.value)[:80])
        else:
            log.error("command %s failed", interaction.id, exc_info=error)
            message = text("error.generic", interaction.locale)
        log.debug("interaction %s answered with an error: %r", interaction.id, error)
        with contextlib.suppress(discord.HTTPException):
            await Responder.reply_private(interaction, message)


def typed_command(
    command: app_commands.Command[Any, ..., Any] | app_commands.ContextMenu | None,
    locale: object,
) -> tuple[str, str]:
    """The command as the member typed it, in their language: its top group (``ttt``)
    and the rest (``tournament status``: a subcommand in a group is named whole, or the
    member would look for a ``/ttt status`` that does not exist). Each word of its
    qualified name is the catalog's ``name.<word>``, as Discord was given it at sync.

    Raises:
        KeyError: a word with no ``name.`` entry (a bug: ``commands.name`` names them all).
    """
    group, *rest = command.qualified_name.split() if command else ["ttt"]
    return text(f"name.{group}", locale), " ".join(text(f"name.{w}", locale) for w in rest)


def refusal_text(refusal: Refusal, locale: object) -> str:
    params = with_keys(refusal.params, locale)
    game = params.pop("game", None)
    challenge = params.pop("challenge", None)
    if "member_id" in params:
        member_id = params.pop("member_id")
        params["member"] = f"<@{member_id}>" if member_id is not None else ""
    games = params.pop("games", None)
    if isinstance(games, list):
        params["links"] = ", ".join(
            message_link(g.guild_id, g.channel_id, g.message_id) for g in games
        )
    if "permission_keys" in params:
        keys = params.pop("permission_keys")
        params["permissions"] = ", ".join(text(str(k), locale) for k in keys)  # type: ignore[attr-defined]
    now = params.pop("now", None)  # the position as stored, for a click on an old board
    if refusal.key == "move.not_your_turn" and isinstance(game, Game):
        params["player"] = player_name(game, str(params.pop("mark")), locale)
    elif isinstance(game, Game):
        params["link"] = message_link(game.guild_id, game.channel_id, game.message_id)
    elif isinstance(challenge, Challenge):
        params["link"] = message_link(
            challenge.guild_id, challenge.channel_id, challenge.message_id
        )
    elif refusal.key == "start.busy_challenge":
        params["link"] = ""
    said = text(refusal.key, locale, **params)
    return said if now is None else f"{said}\n{text('move.stale.now', locale, board=now)}"
