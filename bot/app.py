"""The composition root: a thin discord.py client that builds every part and hands each
one what it uses. Nothing else constructs services, and no part reaches a sibling
through the bot object."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import time
from collections.abc import Callable
from typing import Any, TypeVar

import discord
from discord.ext import commands

from bot.core import hints
from bot.core.engine_advice import EngineHint
from bot.core.engine_gate import EngineGate
from bot.core.hints import Hint
from bot.core.models import Challenge, GameBoard, GameUpdate
from bot.core.my_games import MyGames
from bot.core.opponent import BotOpponent
from bot.core.policies import PolicyBook
from bot.core.puzzles.service import PuzzleService
from bot.core.reconcile import ReadBack
from bot.core.records import RecordsService
from bot.core.repository import Repository
from bot.core.service import GameService
from bot.core.variants import variant_of
from bot.core.wiring import build_core
from bot.discord_calls import DiscordPyRest, InvalidAnswers, answers_trace
from bot.discord_ui.bans import Bans
from bot.discord_ui.board_choice import BoardChoiceController
from bot.discord_ui.challenge_answers import ChallengeAnswers
from bot.discord_ui.commands import TicTacToe
from bot.discord_ui.config_controller import ConfigController
from bot.discord_ui.courtesy_controller import CourtesyController
from bot.discord_ui.entry_point import ENTRY_POINT, entry_point
from bot.discord_ui.game_controller import GameController
from bot.discord_ui.games_list_controller import GamesListController
from bot.discord_ui.gateway_guard import guard_gateway_parsers
from bot.discord_ui.http_answers import HttpAnswers
from bot.discord_ui.moderation_controller import ModerationController
from bot.discord_ui.notify_controller import NotifyController
from bot.discord_ui.publisher import Publisher
from bot.discord_ui.puzzle_controller import PuzzleController
from bot.discord_ui.reconciler import Reconciler
from bot.discord_ui.records_controller import RecordsController
from bot.discord_ui.reminder_clicks import ReminderClicks
from bot.discord_ui.reminder_sender import ReminderSender
from bot.discord_ui.reply_tokens import ReplyTokens
from bot.discord_ui.responder import AnsweringTree, Responder
from bot.discord_ui.router import ComponentRouter
from bot.discord_ui.timekeeper import Timekeeper
from bot.discord_ui.tournament_controller import TournamentController
from bot.discord_ui.tournament_publisher import TournamentPublisher
from bot.discord_ui.turn_pinger import TurnPinger
from bot.health import HealthServer, make_metrics
from bot.i18n.translator import CatalogTranslator
from bot.settings import Settings
from bot.web.interactions import InteractionsEndpoint
from bot.web.replays import Replays
from bot.web.signature import Verifier
from bot.web.wiring import Activity, start_activity
from engine import EnginePool, PoolClosed, known

log = logging.getLogger(__name__)

T = TypeVar("T")

SHUTDOWN_GRACE = 15.0
"""Seconds a shutdown waits for moves in flight (a 5×5 search takes up to 2)."""


def engine_workers() -> int:
    """One engine process fewer than the CPUs (at least one): a flood of 4×4 and 5×5
    moves must not take the core the event loop answers interactions on."""
    return max(1, (os.cpu_count() or 2) - 1)


def intents() -> discord.Intents:
    """Guilds, and bans (to end a banned member's Activity sessions): slash commands and
    buttons need no message content or member list, and neither is privileged."""
    result = discord.Intents.none()
    result.guilds = True
    result.moderation = True
    return result


class TTTBot(commands.Bot):
    games: GameService
    puzzles: PuzzleService
    my_games: MyGames
    """A member's games everywhere (``/ttt games``), callable without Discord (a bench)."""
    router: ComponentRouter

    def __init__(
        self, settings: Settings, repo: Repository, *, settings_source: str = "", **options: Any
    ) -> None:
        # A text-only bot: without this, every start warns that voice libraries are missing.
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
        metrics = make_metrics() if settings.health_port else None
        self.invalid = InvalidAnswers(metrics.invalid_answer if metrics else None)
        """The 401, 403 and 429 answers drawn from Discord, by every session of ours."""
        super().__init__(
            command_prefix=commands.when_mentioned, intents=intents(), help_command=None,
            tree_cls=AnsweringTree, http_trace=answers_trace(self.invalid), **options,
        )  # fmt: skip
        guard_gateway_parsers(self._connection.parsers)
        self.settings = settings
        self.settings_source = settings_source
        self.repo = repo
        self.metrics = metrics
        self.clock: Callable[[], float] = time.monotonic
        """The clock of the Activity's sign-in limits (a test's emulator moves its own)."""
        self.game_clock: Callable[[], float] = time.time
        """The games' clock, read by their deadlines (set before the start: a test moves
        its own across days)."""
        self.tokens = ReplyTokens(self, repo)
        self.responder = Responder(self.metrics.observe if self.metrics else None, repo.doubts,
                                   answered=self.tokens.channel_answered)  # fmt: skip
        self.health: HealthServer | None = None
        self.web: Activity | None = None
        """The Activity's web service (TTT_WEB_PORT), started with the client."""
        self._closing = asyncio.Event()
        self.signed_in = False
        """Whether Discord accepted the token (a start that never got this far created
        nothing worth keeping)."""
        self.starting: str | None = "before signing in"
        """Where the start-up is, as a stop's log line says it ("while signing in"...);
        None once it serves (or stopped): a stop then is :meth:`close`'s."""
        # Post-game reviews of 4×4 and 5×5 in a process of their own: a 5×5 review takes
        # up to a second, which must hold neither the event loop nor the workers choosing
        # the bot's moves.
        self.reviews = EnginePool(1)
        # Hints (and puzzle moves off their stored line) in one of their own, so a member
        # asking for one never waits behind a review. Both are started at start-up when
        # settings.warm_workers (~40 MB each with the 5×5 tables read; a search's table
        # can take one to ~250 MB).
        self.hints = EnginePool(1)
        # What each of the two takes at once, and one request in flight per member (a
        # page asking a long review over and over must not hold everyone's for minutes).
        self.engine_gate = EngineGate(
            {"review": settings.review_queue, "hint": settings.hint_queue}
        )
        self.warming: asyncio.Task[None] | None = None
        # Workers start on the first big-board move, not here: most bots only ever play
        # 3×3, which never needs them, and a start-up should not pay for two interpreters.
        self.pool = EnginePool(settings.engine_workers or engine_workers())

    async def setup_hook(self) -> None:
        assert self.user is not None  # setup_hook runs after login
        settings, repo, responder = self.settings, self.repo, self.responder
        core = build_core(
            repo,
            PolicyBook(repo, settings.policy),
            BotOpponent(think_time=settings.think_time, pool=self.pool),
            bot_user_id=self.user.id,
            clock=self.game_clock,
            correspondence_limit=settings.correspondence_games_per_member,
            patience=settings.defer_after,
            advise=self.hint,
            live_board=settings.client_secret is not None,  # the Activity is set up
            gate=self.engine_gate,
            # a puzzle move off its stored line asks the exact 5×5 solver, whose tables
            # the hint worker holds from start-up (a cold worker reads them: 1.4-2.7 s)
            puzzle_pool=self.hints,
        )
        games, lobby, messages = core.games, core.lobby, core.messages
        pinger = TurnPinger(self, messages)
        tokens = self.tokens
        publisher = Publisher(self, games, lobby, pinger, tokens)
        notify = NotifyController(core.reminders, responder)
        responder.also_answered.append(notify.after_answer)
        game_controller = GameController(games, lobby, responder, publisher, pinger, tokens,
                                         offer_reminders=notify.offer)  # fmt: skip
        moderation = ModerationController(games, messages, responder, publisher, pinger)
        records_service = RecordsService(repo, self.user.id, self.reviews.run, self.engine_gate)
        records = RecordsController(records_service, games.policies, responder, core.puzzles)
        puzzles = PuzzleController(core.puzzles, games.policies, responder,
                                   patience=settings.defer_after)  # fmt: skip
        self.puzzles = core.puzzles
        config = ConfigController(games.policies, responder, self)
        shows = TournamentPublisher(self, core.tournaments, games, publisher, pinger)
        pinger.on_ended.append(shows.game_ended)
        tournaments = TournamentController(core.tournaments, responder, shows)
        self.games = games
        choices = BoardChoiceController(games, responder)
        answers = ChallengeAnswers(lobby, publisher, pinger, tokens)
        lists = GamesListController(core.my_games, answers, responder, self)
        self.my_games = core.my_games
        courtesy = CourtesyController(games, lobby, responder, publisher, pinger)
        reminder_clicks = ReminderClicks(games, responder, publisher, pinger, answers)
        self.router = ComponentRouter(game_controller, records, responder, tournaments, choices,
                                      puzzles, lists, courtesy, notify,
                                      reminder_clicks)  # fmt: skip
        await self.tree.set_translator(CatalogTranslator())
        await self.add_cog(TicTacToe(game_controller, records, config, moderation, tournaments,
                                     puzzles, lists, courtesy, notify))  # fmt: skip
        await games.policies.listen()
        if settings.client_secret is not None:  # the Activity's sessions to end on a ban
            await self.add_cog(Bans(records_service))
        await self.add_cog(Timekeeper(core.deadlines, publisher, pinger, core.tournaments, shows))
        self.reminders = core.reminders
        self.reminder_sender = ReminderSender(self, core.reminders, pinger,
                                              per_minute=settings.dm_per_minute)  # fmt: skip
        await self.add_cog(self.reminder_sender)
        read_back = ReadBack(games, repo=repo)
        await self.add_cog(Reconciler(repo.doubts, read_back, publisher, pinger, shows))
        if settings.warm_workers:
            self.warming = asyncio.create_task(self.warm_exact_workers())
        if settings.web_port is not None:  # the Activity, interactions over HTTP, or both

            async def show(item: GameUpdate | Challenge) -> bool:  # a change from a page
                shown = await publisher.publish(item)
                if isinstance(item, GameUpdate):
                    await pinger.game_changed(item.game)
                return shown

            self.starting = "while starting the web service"
            self.web = await start_activity(
                repo=repo, games=games, lobby=lobby, records=records_service, show=show,
                api_base=settings.api_base, client_id=self.application_id or self.user.id,
                client_secret=settings.client_secret, bot=DiscordPyRest(self.http),
                host=settings.web_host, port=settings.web_port, limits=settings.web_limits,
                sign_ins_overall=settings.sign_ins_overall,
                sign_ins_per_member=settings.sign_ins_per_member,
                sign_ins_per_instance=settings.sign_ins_per_instance,
                instance_lookups=settings.instance_lookups,
                traces=[answers_trace(self.invalid)], sign_in_clock=self.clock,
                puzzles=core.puzzles, my_games=core.my_games,
                interactions=None if settings.public_key is None else InteractionsEndpoint(
                    Verifier(settings.public_key), HttpAnswers(self),
                    Replays(repo.claim_interaction)),
            )  # fmt: skip
            if self.metrics is not None:
                self.metrics.watch_web(self.web.counts)
            self.starting = "while signing in"

    async def warm_exact_workers(self) -> None:
        """Start the hint and review workers with the 5×5 tables read, so the first hint
        or review after a start is answered as fast as any later one."""
        began = time.perf_counter()
        try:
            await asyncio.gather(self.hints.run(known.load), self.reviews.run(known.load))
        except PoolClosed:  # the bot is stopping
            return
        except Exception:  # a worker that cannot start is started again on first use
            log.exception("could not start the hint and review workers ahead of use")
        else:
            log.info("hint and review workers ready in %.1f s", time.perf_counter() - began)

    async def start(self, token: str, *, reconnect: bool = True) -> None:
        """Sign in (which runs :meth:`setup_hook`), say what was set up, sync the commands
        if they changed, then hold the gateway connection until :meth:`close`. Nothing is
        logged before Discord accepted the token; the health server (TTT_HEALTH_PORT)
        serves from before the sign-in, so /healthz answers while the bot connects."""
        try:
            await self._start_up(token)
        finally:
            self.starting = None  # serving from here on (or failed): a stop is close()'s
        if self.settings.web_only:  # Discord's REST API, no gateway
            await self._closing.wait()
        else:  # a close() from here on ends it, its gateway handshake included
            await self.connect(reconnect=reconnect)

    async def _start_up(self, token: str) -> None:
        settings = self.settings
        if settings.health_port is not None and self.health is None:
            self.health = HealthServer(self, self.repo, self.metrics, host=settings.health_host,
                                       port=settings.health_port,
                                       gateway=not settings.web_only)  # fmt: skip
            await self.health.start()
        self.starting = "while signing in"
        await self.login(token)
        self.signed_in = True
        assert self.user is not None
        log.info("signed in as %s (id %s)", self.user, self.user.id)
        count, ids = settings.shard_count, settings.shard_ids
        if count is not None:
            mine = "all" if ids is None else ", ".join(map(str, ids))
            log.info("gateway shards: %s of %d", mine, count)
        if self.health is not None:
            log.info("health: %s", self.health.describe())
        if self.settings_source:
            log.info("settings: %s", self.settings_source)
        log.info("database: %s", await self.repo.describe())
        syncs = settings.shard_ids is None or 0 in settings.shard_ids  # one process: shard 0's
        if settings.web_only:
            if settings.public_key is None:
                log.info("web only: no gateway connection; the pages' changes shown over REST")
                return
            log.info("no gateway connection: interactions over HTTP at /interactions")
            syncs = True  # every process alike: each syncs, and only a change is sent
        if not syncs:
            log.info("slash commands: left to the process running shard 0")
            return
        self.starting = "while syncing the slash commands"
        await self.sync_commands_if_changed()

    async def hint(self, board: GameBoard) -> Hint | EngineHint:
        """A hint on a board past 3×3 (or ultimate's), in a process of its own: an open
        5×5 board can take many seconds, which must not hold the workers choosing the
        bot's moves, nor wait for a review.

        Raises:
            TimeoutError: no answer within :data:`bot.core.hints.TIME_LIMIT`.
        """
        deadline = time.time() + hints.TIME_LIMIT

        async def run(fn: Callable[..., T], /, *args: Any) -> T:
            return await self.hints.run(fn, *args, deadline=deadline)

        return await variant_of(board.variant).hint(board, run)

    async def on_ready(self) -> None:
        """Each time the gateway session is (re)established."""
        assert self.user is not None
        log.info("connected to the gateway as %s; servers: %d", self.user, len(self.guilds))

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Buttons: the router answers every click (commands go to the command tree)."""
        await self.router.route(interaction)

    def begin_close(self) -> None:
        """What a stop does at once, before anything awaits: cancel the warm-up, and start
        no engine pool again (a stop signal to the whole process group, systemd's or
        Ctrl-C's, kills the workers with this process: their moves end as quick ones)."""
        if self.warming is not None:
            self.warming.cancel()
        for pool in (self.pool, self.reviews, self.hints):
            pool.begin_close()

    async def close(self) -> None:
        """Let the moves being made finish and be stored, then disconnect."""
        self.begin_close()
        self._closing.set()
        in_flight = self.responder.in_flight
        if in_flight:
            log.info("shutting down: waiting for %d interaction(s) in flight", in_flight)
            try:
                await asyncio.wait_for(self.responder.idle.wait(), SHUTDOWN_GRACE)
            except TimeoutError:
                log.warning("shutting down with %d interaction(s) unfinished",
                            self.responder.in_flight)  # fmt: skip
        if self.web is not None:
            await self.web.stop()
        # discord.py's close() leaves running the task that waits for the guilds before
        # dispatching 'ready'; ending after close() cleared the loop, it failed with an
        # ERROR ("Task exception was never retrieved") on a stop right after a start.
        ready = self._connection._ready_task
        if ready is not None:
            ready.cancel()
        await super().close()
        if self.health is not None:
            await self.health.stop()
        self.pool.close()
        self.reviews.close()
        self.hints.close()

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
        served = guild is None and self.settings.client_secret is not None
        if served:
            payload.append(ENTRY_POINT)
        digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
        key = f"commands:{self.application_id}:{guild.id if guild else 'global'}"
        where = f"to server {guild.id}" if guild else "globally"
        if await self.repo.get_meta(key) == digest:
            log.info("slash commands: unchanged since the last sync %s; not synced", where)
            return False
        entry = None
        if guild is None:  # an entry point is global, and a sync must not drop it
            existing: Any = await self.http.get_global_commands(self.application_id)  # type: ignore[arg-type]
            entry = entry_point(existing, served)
        if entry is None:
            await self.tree.sync(guild=guild)
        else:  # the tree's commands and the entry point, in one overwrite
            commands_sent = [*(c for c in payload if c is not ENTRY_POINT), entry]
            await self.http.bulk_upsert_global_commands(self.application_id, commands_sent)  # type: ignore[arg-type]
        await self.repo.set_meta(key, digest)
        log.info("slash commands: synced %d %s", len(payload), where)
        return True
