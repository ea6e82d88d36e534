"""The one place that decides: starting, moving, resigning, challenges, timeouts.

Every method validates, updates state, stores it, and returns the record to show. A
request that cannot be honoured raises :class:`Refusal` with a catalog key; nothing is
changed then. Discord never appears here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Callable, Collection
from typing import Literal

from bot import game_state
from bot.game_state import other
from bot.locks import LockRegistry
from bot.models import Challenge, Game, XChoice
from bot.settings import Settings
from bot.storage import Conflict, GameRepository
from engine import Agent, Board, EnginePool, IllegalMove, choose_move_async, get_agent

log = logging.getLogger(__name__)

First = Literal["random", "me", "opponent"]
SMALL_BOARD_CELLS = 9
"""Boards this small are searched on a thread: the answer takes microseconds."""


class Refusal(Exception):
    """A request refused for a reason the user should read (``key`` in the text catalog)."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


class GameService:
    def __init__(
        self,
        repo: GameRepository,
        settings: Settings,
        bot_user_id: int,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
        pool: EnginePool | None = None,
    ) -> None:
        self.repo = repo
        self.settings = settings
        self.bot_user_id = bot_user_id
        self.clock = clock
        self.rng = rng or random.Random()
        self.pool = pool
        self.locks = LockRegistry()
        self.agents: dict[str, Agent] = {}
        self._policies: dict[int, Settings] = {}
        self.deadlines_changed = asyncio.Event()
        """Set whenever a deadline may have moved, to wake the timekeeper."""

    async def policy(self, guild_id: int | None) -> Settings:
        """The settings in force in a server: the environment's, with what its admins
        chose in /ttt config on top. Cached until :meth:`configure` changes them."""
        if guild_id is None:
            return self.settings
        rules = self._policies.get(guild_id)
        if rules is None:
            overrides = await self.repo.guild_overrides(guild_id)
            rules = self._policies[guild_id] = self.settings.with_overrides(overrides)
        return rules

    async def configure(self, guild_id: int, changes: dict[str, object]) -> Settings:
        """Store a server's new choices (merged into its earlier ones) and return the
        settings now in force there."""
        overrides = await self.repo.guild_overrides(guild_id)
        overrides.update(changes)
        for name, value in changes.items():
            if value is None:
                overrides.pop(name, None)  # back to the environment's default
        await self.repo.set_guild_overrides(guild_id, overrides)
        self._policies.pop(guild_id, None)
        self.deadlines_changed.set()
        return await self.policy(guild_id)

    def _first_is_me(self, first: First) -> bool:
        return {"me": True, "opponent": False}.get(first, self.rng.random() < 0.5)

    # --- starting -----------------------------------------------------------------------

    async def start_bot_game(
        self, *, guild_id: int | None, channel_id: int, user_id: int, difficulty: str,
        first: First, size: int = 3, role_ids: Collection[int] = (),
    ) -> Game:  # fmt: skip
        """A game against the bot; if the bot moves first its move is already made.

        Raises:
            Refusal: the channel is busy.
        """
        human_x = self._first_is_me(first)
        human, bot = (user_id, self.bot_user_id)
        game = game_state.new_game(
            guild_id=guild_id, channel_id=channel_id, size=size, now=self.clock(),
            player_x=human if human_x else bot, player_o=bot if human_x else human,
            bot_side="O" if human_x else "X", difficulty=difficulty,
        )  # fmt: skip
        async with self.locks.channel(channel_id):
            await self.check_start(
                guild_id=guild_id, channel_id=channel_id, user_id=user_id, role_ids=role_ids
            )
            if human_x:
                rules = await self.policy(guild_id)
                game = game_state.start_clock(game, self.clock(), rules.turn_timeout)
            else:
                game = await self._advance(game, await self._bot_move(game))
            game = await self.repo.create_game(game)
        self.deadlines_changed.set()
        return game

    async def challenge(
        self, *, guild_id: int | None, channel_id: int, user_id: int, opponent_id: int,
        first: First, size: int = 3, rematch_of: int | None = None,
        role_ids: Collection[int] = (),
    ) -> Challenge:  # fmt: skip
        """Challenge a member; it waits for their answer until it expires.

        Raises:
            Refusal: self-challenge or a busy channel.
        """
        if opponent_id == user_id:
            raise Refusal("start.self")
        x_player: XChoice = {"me": "challenger", "opponent": "opponent"}.get(first, "random")
        board, now = Board.new(size), self.clock()
        challenge = Challenge(
            id=0, guild_id=guild_id, channel_id=channel_id, message_id=None,
            challenger_id=user_id, opponent_id=opponent_id, x_player=x_player,
            size=board.size, k=board.k, status="pending",
            expires_at=now + (await self.policy(guild_id)).challenge_timeout, created_at=now,
            rematch_of=rematch_of,
        )  # fmt: skip
        async with self.locks.channel(channel_id):
            await self.check_start(
                guild_id=guild_id, channel_id=channel_id, user_id=user_id, role_ids=role_ids
            )
            try:
                challenge = await self.repo.create_challenge(challenge)
            except Conflict:
                raise await self._challenge_won_the_race(channel_id) from None
        self.deadlines_changed.set()
        return challenge

    async def check_start(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        user_id: int,
        role_ids: Collection[int] = (),
    ) -> None:
        """The server's rules for starting a game or a challenge here and now.

        Raises:
            Refusal: a channel games are not allowed in, one game per member, the start
                cooldown, or a busy channel.
        """
        rules = await self.policy(guild_id)
        if rules.start_role is not None and rules.start_role not in role_ids:
            raise Refusal("start.role_required", role=f"<@&{rules.start_role}>")
        if rules.allowed_channels and channel_id not in rules.allowed_channels:
            channels = ", ".join(f"<#{c}>" for c in rules.allowed_channels)
            raise Refusal("start.channel_not_allowed", channels=channels)
        if rules.one_game_per_member:
            running = await self.repo.running_game_of(guild_id, user_id)
            if running is not None:
                raise Refusal("start.member_busy", game=running)
        if rules.start_cooldown:
            last = await self.repo.last_start(guild_id, user_id)
            if last is not None and last + rules.start_cooldown > self.clock():
                raise Refusal("start.cooldown", when=f"<t:{int(last + rules.start_cooldown)}:R>")
        await self._ensure_free(channel_id, rules.games_per_channel)

    async def _ensure_free(self, channel_id: int, games_per_channel: int = 1) -> None:
        running = await self.repo.running_games_in(channel_id)
        if len(running) >= games_per_channel:
            if games_per_channel == 1:
                raise Refusal("start.busy_game", game=running[0])
            raise Refusal("start.channel_full", count=len(running))
        challenge = await self.repo.pending_challenge_in(channel_id)
        if challenge is not None:
            raise Refusal("start.busy_challenge", challenge=challenge)

    async def _challenge_won_the_race(self, channel_id: int) -> Refusal:
        """The refusal when another challenge reached the channel first: the schema keeps
        one pending challenge per channel, so the insert lost."""
        challenge = await self.repo.pending_challenge_in(channel_id)
        return Refusal("start.busy_challenge", challenge=challenge)

    async def attach_game_message(self, game: Game, message_id: int) -> Game:
        await self.repo.set_game_message(game.id, message_id)
        return game.with_changes(message_id=message_id)

    async def attach_challenge_message(self, challenge: Challenge, message_id: int) -> Challenge:
        await self.repo.set_challenge_message(challenge.id, message_id)
        return challenge.with_changes(message_id=message_id)

    # --- challenges ---------------------------------------------------------------------

    async def accept(self, challenge_id: int, user_id: int, message_id: int | None) -> Game:
        """The challenged member accepts: the game starts on the challenge's message.

        Raises:
            Refusal: not the challenged member, or the challenge is closed.
        """
        challenge = await self._open_challenge(challenge_id, user_id)
        if challenge.x_player == "random":
            challenger_x = self.rng.random() < 0.5
        else:
            challenger_x = challenge.x_player == "challenger"
        challenger, opponent = challenge.challenger_id, challenge.opponent_id
        now = self.clock()
        game = game_state.new_game(
            guild_id=challenge.guild_id, channel_id=challenge.channel_id, size=challenge.size,
            now=now, player_x=challenger if challenger_x else opponent,
            player_o=opponent if challenger_x else challenger,
            message_id=message_id or challenge.message_id, rematch_of=challenge.rematch_of,
        )  # fmt: skip
        rules = await self.policy(challenge.guild_id)
        game = game_state.start_clock(game, now, rules.turn_timeout)
        async with self.locks.channel(challenge.channel_id):
            try:
                game = await self.repo.accept_challenge(challenge, game)
            except Conflict:
                raise Refusal("challenge.closed") from None
        self.deadlines_changed.set()
        return game

    async def decline(self, challenge_id: int, user_id: int) -> Challenge:
        """Raises: Refusal: not the challenged member, or the challenge is closed."""
        challenge = await self._open_challenge(challenge_id, user_id)
        async with self.locks.channel(challenge.channel_id):
            try:
                await self.repo.close_challenge(challenge, "declined")
            except Conflict:
                raise Refusal("challenge.closed") from None
        return challenge.with_changes(status="declined")

    async def _open_challenge(self, challenge_id: int, user_id: int) -> Challenge:
        challenge = await self.repo.get_challenge(challenge_id)
        if challenge is None or challenge.status != "pending":
            raise Refusal("challenge.closed")
        if user_id != challenge.opponent_id:
            raise Refusal("challenge.not_for_you", opponent=f"<@{challenge.opponent_id}>")
        if challenge.expires_at <= self.clock():
            raise Refusal("challenge.closed")
        return challenge

    # --- moves --------------------------------------------------------------------------

    async def play(self, game_id: int, ply: int, cell: int, user_id: int) -> Game:
        """Apply a member's move; against the bot, follow with :meth:`bot_reply`.

        The move is stored before this returns, so nothing shown is ever lost.

        Raises:
            Refusal: not a player, a stale board, not their turn, a taken cell, game over.
        """
        async with self.locks.game(game_id):
            game = await self._running_game(game_id)
            mark = game.mark_of(user_id)
            if mark is None:
                raise Refusal("move.not_player")
            if ply != game.ply:  # the board this click was made on has changed since
                raise Refusal("move.stale")
            if game.board.to_move != mark:
                raise Refusal("move.not_your_turn", game=game, mark=game.board.to_move)
            try:
                moved = await self._advance(game, cell)
            except IllegalMove:
                raise Refusal("move.taken") from None
            game = await self._save(game, moved)
        self.deadlines_changed.set()
        return game

    async def bot_reply(self, game: Game) -> Game:
        """The bot's move in ``game`` if it is the bot's turn there, stored; otherwise the
        game as it now stands (someone resigned while the bot thought, say)."""
        if not game.running or game.bot_side != game.board.to_move:
            return game
        async with self.locks.game(game.id):
            current = await self.repo.get_game(game.id)
            if current is None or current.ply != game.ply or not current.running:
                return current or game
            cell = await self._bot_move(current)
            game = await self._save(current, await self._advance(current, cell))
        self.deadlines_changed.set()
        return game

    async def resign(
        self, user_id: int, *, game_id: int | None = None, channel_id: int | None = None
    ) -> Game:
        """End the user's game as a loss, by game id (button) or channel (command).

        Raises:
            Refusal: no such running game, or the user does not play in it.
        """
        if game_id is None:
            mine = [
                g for g in await self.repo.running_games_in(channel_id or 0) if g.mark_of(user_id)
            ]
            if not mine:
                raise Refusal("resign.none")
            game_id = mine[0].id
        async with self.locks.game(game_id):
            game = await self._running_game(game_id)
            mark = game.mark_of(user_id)
            if mark is None:
                raise Refusal("move.not_player")
            game = await self._save(
                game, game_state.finish(game, other(mark), "resign", self.clock())
            )
        self.deadlines_changed.set()
        return game

    async def rematch(
        self, game_id: int, user_id: int, role_ids: Collection[int] = ()
    ) -> Game | Challenge:
        """Same players, sides swapped: a new bot game at once, or a challenge to the other
        member.

        Raises:
            Refusal: not a player, the game still runs, or the channel is busy.
        """
        game = await self.repo.get_game(game_id)
        if game is None:
            raise Refusal("game.unknown")
        if game.running:
            raise Refusal("rematch.running")
        mark = game.mark_of(user_id)
        if mark is None:
            raise Refusal("rematch.not_player")
        # whoever played O now moves first
        first: First = "me" if mark == "O" else "opponent"
        where = {
            "guild_id": game.guild_id, "channel_id": game.channel_id, "size": game.size,
            "role_ids": role_ids,
        }  # fmt: skip
        if game.bot_side is not None:
            difficulty = game.difficulty or self.settings.default_difficulty
            return await self.start_bot_game(
                **where, user_id=user_id, difficulty=difficulty, first=first
            )
        return await self.challenge(**where, user_id=user_id, opponent_id=game.player(other(mark)),
                                    first=first, rematch_of=game.id)  # fmt: skip

    async def abandon(self, game_id: int) -> Game | None:
        """End a running game with no result: its message is gone (a moderator deleted
        it, or it could never be posted). Returns the ended game, or None if it was
        already over."""
        async with self.locks.game(game_id):
            game = await self.repo.get_game(game_id)
            if game is None or not game.running:
                return None
            ended = game_state.finish(game, None, "abandoned", self.clock())
            game = await self._save(game, ended)
        log.info("game %s abandoned: its message is gone", game_id)
        self.deadlines_changed.set()
        return game

    async def withdraw(self, challenge: Challenge) -> None:
        """Close a pending challenge whose message could not be posted."""
        with contextlib.suppress(Conflict):  # answered or expired meanwhile: fine too
            await self.repo.close_challenge(challenge, "expired")

    # --- time ---------------------------------------------------------------------------

    async def next_deadline(self) -> float | None:
        return await self.repo.next_deadline()

    async def expire_due(self) -> list[Game | Challenge]:
        """Resolve every turn timeout and challenge expiry that has passed (also those that
        passed while the bot was down) and return what changed."""
        now = self.clock()
        changed: list[Game | Challenge] = []
        for due in await self.repo.games_due(now):
            async with self.locks.game(due.id):
                game = await self.repo.get_game(due.id)
                if game is None or not game.running or (game.turn_deadline or now) > now:
                    continue  # moved or ended while we waited for the lock
                loser = game.board.to_move
                ended = game_state.finish(game, other(loser), "timeout", now)
                changed.append(await self._save(game, ended))
        for challenge in await self.repo.challenges_due(now):
            async with self.locks.channel(challenge.channel_id):
                try:
                    await self.repo.close_challenge(challenge, "expired")
                except Conflict:
                    continue  # answered while we waited for the lock
                changed.append(challenge.with_changes(status="expired"))
        return changed

    async def resume_bot_turns(self) -> list[Game]:
        """Make the bot moves that a crash interrupted (the member's move was stored, the
        bot's reply was not)."""
        waiting = [g for g in await self.repo.running_games() if g.bot_side == g.board.to_move]
        return [await self.bot_reply(game) for game in waiting]

    # --- internals ----------------------------------------------------------------------

    async def _running_game(self, game_id: int) -> Game:
        game = await self.repo.get_game(game_id)
        if game is None:
            raise Refusal("game.unknown")
        if not game.running:
            raise Refusal("move.over")
        return game

    async def _bot_move(self, game: Game) -> int:
        """The bot's move: 3×3 on the engine thread (microseconds once warm), larger boards
        in the process pool, where a search may use its whole think time."""
        name = game.difficulty or self.settings.default_difficulty
        board, think = game.board, self.settings.think_time
        try:
            if self.pool is not None and board.size * board.size > SMALL_BOARD_CELLS:
                return await self.pool.choose(board, name, seed=self.rng.getrandbits(64),
                                              time_budget=think)  # fmt: skip
            agent = self.agents.get(name)
            if agent is None:
                agent = get_agent(name, seed=self.rng.getrandbits(64), time_budget=think)
                self.agents[name] = agent
            return await choose_move_async(board, agent, time_budget=think)
        except TimeoutError:
            log.warning("game %s: %s took too long; playing a quick move instead", game.id, name)
            return await choose_move_async(board, "easy", seed=self.rng.getrandbits(64))

    async def _advance(self, game: Game, cell: int) -> Game:
        rules = await self.policy(game.guild_id)
        return game_state.advance(game, cell, self.clock(), rules.turn_timeout)

    async def _save(self, before: Game, after: Game) -> Game:
        await self.repo.save_game(after, expected_ply=before.ply)
        return after
