"""The bot: a thin discord.py client that wires the cogs, the service and the database."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
from collections.abc import Iterator

import discord
from discord.ext import commands

from bot import custom_ids
from bot.commands import TicTacToe
from bot.components import DYNAMIC_ITEMS
from bot.config_controller import ConfigController
from bot.controller import Controller
from bot.records_controller import RecordsController
from bot.service import GameService
from bot.settings import Settings
from bot.storage import GameRepository
from bot.timekeeper import Timekeeper
from bot.translator import CatalogTranslator
from engine import EnginePool

log = logging.getLogger(__name__)

SHUTDOWN_GRACE = 15.0
"""Seconds a shutdown waits for moves in flight (a 5×5 search takes up to 2)."""


def intents() -> discord.Intents:
    """Only guilds: slash commands and buttons need no message content or member list."""
    result = discord.Intents.none()
    result.guilds = True
    return result


class TTTBot(commands.Bot):
    service: GameService
    controller: Controller
    records: RecordsController
    config: ConfigController

    def __init__(self, settings: Settings, repo: GameRepository) -> None:
        # A text-only bot: without this, every start warns that voice libraries are missing.
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
        super().__init__(
            command_prefix=commands.when_mentioned, intents=intents(), help_command=None
        )
        self.settings = settings
        self.repo = repo
        self.pool: EnginePool | None = None
        self._in_flight = 0
        self._idle = asyncio.Event()
        self._idle.set()

    async def setup_hook(self) -> None:
        assert self.user is not None  # setup_hook runs after login
        # Workers start on the first big-board move, not here: most bots only ever play
        # 3×3, which never needs them, and a start-up should not pay for two interpreters.
        self.pool = EnginePool()
        self.service = GameService(self.repo, self.settings, self.user.id, pool=self.pool)
        self.controller = Controller(self)
        self.records = RecordsController(self)
        self.config = ConfigController(self)
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        await self.tree.set_translator(CatalogTranslator())
        await self.add_cog(TicTacToe(self))
        await self.add_cog(Timekeeper(self))
        await self.sync_commands_if_changed()

    @contextlib.contextmanager
    def handling(self) -> Iterator[None]:
        """Count an interaction being handled, so a shutdown can wait for it."""
        self._in_flight += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._in_flight -= 1
            if not self._in_flight:
                self._idle.set()

    async def close(self) -> None:
        """Let the moves being made finish and be stored, then disconnect."""
        if self._in_flight:
            log.info("shutting down: waiting for %d interaction(s) in flight", self._in_flight)
            try:
                await asyncio.wait_for(self._idle.wait(), SHUTDOWN_GRACE)
            except TimeoutError:
                log.warning("shutting down with %d interaction(s) unfinished", self._in_flight)
        await super().close()
        if self.pool is not None:
            self.pool.close()

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """discord.py drops a click whose button is no longer on the message (a member on
        a lagging client clicked a board that has since changed); answer it here, or the
        member would see 'This interaction failed'."""
        if interaction.type is not discord.InteractionType.component or not interaction.data:
            return
        custom_id = str(interaction.data.get("custom_id", ""))
        if not custom_ids.is_ours(custom_id) or interaction.message is None:
            return
        shown = {
            getattr(child, "custom_id", None)
            for row in interaction.message.components
            for child in getattr(row, "children", ())
        }
        if custom_id not in shown:
            await self.controller.on_vanished_button(interaction)

    async def sync_commands_if_changed(self) -> bool:
        """Sync the command tree only when it differs from the last sync (to the dev
        guild at once when TTT_DEV_GUILD_ID is set). Returns whether it synced."""
        guild = None
        if self.settings.dev_guild_id is not None:
            guild = discord.Object(self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
        translator = self.tree.translator
        commands_ = self.tree.get_commands(guild=guild)
        if translator is None:
            payload = [command.to_dict(self.tree) for command in commands_]
        else:  # what sync will send, translations included, so a new wording resyncs
            payload = [await c.get_translated_payload(self.tree, translator) for c in commands_]
        digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
        key = f"commands:{self.application_id}:{guild.id if guild else 'global'}"
        if await self.repo.get_meta(key) == digest:
            log.info("slash commands unchanged since the last sync; not syncing")
            return False
        await self.tree.sync(guild=guild)
        await self.repo.set_meta(key, digest)
        log.info("synced %d slash commands (%s)", len(payload), key)
        return True
