"""The one place that decides a game: starting, challenges, turns, resigning, rematches.

Every method validates, updates state, stores it, and returns what to show. A request
that cannot be honoured raises :class:`Refusal` with a catalog key; nothing is changed
then. Discord and SQL never appear here: storage is the injected repository, time the
injected clock, chance the injected RNG.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Collection
from typing import Literal

from bot.core import rules
from bot.core.locks import LockRegistry
from bot.core.models import Challenge, Game, GameUpdate, XChoice, other
from bot.core.opponent import BotOpponent
from bot.core.policies import PolicyBook
from bot.core.refusals import Refusal
from bot.core.repository import Conflict, Repository
from bot.core.start_rules import check_start
from engine import Board, IllegalMove

log = logging.getLogger(__name__)

First = Literal["random", "me", "opponent"]
Clock = Callable[[], float]
ShowEarly = Callable[[GameUpdate], Awaitable[None]]


class GameService:
    def __init__(
        self,
        repo: Repository,
        policies: PolicyBook,
        opponent: BotOpponent,
        *,
        bot_user_id: int,
        clock: Clock = time.time,
        rng: random.Random | None = None,
        patience: float = 1.0,
    ) -> None:
        self.repo = repo
        self.policies = policies
        self.opponent = opponent
        self.bot_user_id = bot_user_id
        self.clock = clock
        self.rng = rng or random.Random()
        self.patience = patience
        """Seconds the bot's reply may take before the member's move is shown on its own."""
        self.locks = LockRegistry()
        self.deadlines_changed = asyncio.Event()
        """Set whenever a deadline may have moved, to wake the timekeeper."""

    async def update(self, game: Game) -> GameUpdate:
        """``game`` with what showing it needs (its server's marks)."""
        return GameUpdate(game, (await self.policies.policy(game.guild_id)).emoji_set)

    def _first_is_me(self, first: First) -> bool:
        return {"me": True, "opponent": False}.get(first, self.rng.random() < 0.5)

    # --- starting -----------------------------------------------------------------------

    async def start_bot_game(
        self, *, guild_id: int | None, channel_id: int, user_id: int, difficulty: str,
        first: First, size: int = 3, role_ids: Collection[int] = (),
    ) -> GameUpdate:  # fmt: skip
        """A game against the bot; if the bot moves first its move is already made.

        Raises:
            Refusal: the server's start rules say no (see :func:`check_start`).
        """
        policy = await self.policies.policy(guild_id)
        human_x = self._first_is_me(first)
        human, bot = (user_id, self.bot_user_id)
        game = rules.new_game(
            guild_id=guild_id, channel_id=channel_id, size=size, now=self.clock(),
            player_x=human if human_x else bot, player_o=bot if human_x else human,
            bot_side="O" if human_x else "X", difficulty=difficulty,
        )  # fmt: skip
        if human_x:
            game = rules.start_clock(game, self.clock(), policy.turn_timeout)
        else:
            game = await self._advance(game, await self.opponent.move(game.board, difficulty))
        async with self.repo.atomic() as tx:
            await check_start(tx, policy, guild_id=guild_id, channel_id=channel_id,
                              user_id=user_id, role_ids=role_ids, now=self.clock())  # fmt: skip
            game = await tx.create_game(game)
        self.deadlines_changed.set()
        return await self.update(game)

    async def challenge(
        self, *, guild_id: int | None, channel_id: int, user_id: int, opponent_id: int,
        first: First, size: int = 3, rematch_of: int | None = None,
        role_ids: Collection[int] = (),
    ) -> Challenge:  # fmt: skip
        """Challenge a member; it waits for their answer until it expires.

        Raises:
            Refusal: a self-challenge, or the server's start rules say no.
        """
        if opponent_id == user_id:
            raise Refusal("start.self")
        policy = await self.policies.policy(guild_id)
        x_player: XChoice = {"me": "challenger", "opponent": "opponent"}.get(first, "random")
        board, now = Board.new(size), self.clock()
        challenge = Challenge(
            id=0, guild_id=guild_id, channel_id=channel_id, message_id=None,
            challenger_id=user_id, opponent_id=opponent_id, x_player=x_player,
            size=board.size, k=board.k, status="pending",
            expires_at=now + policy.challenge_timeout, created_at=now, rematch_of=rematch_of,
        )  # fmt: skip
        async with self.repo.atomic() as tx:
            await check_start(tx, policy, guild_id=guild_id, channel_id=channel_id,
                              user_id=user_id, role_ids=role_ids, now=now)  # fmt: skip
            try:
                challenge = await tx.create_challenge(challenge)
            except Conflict:  # another process's challenge reached the channel first
                raise Refusal("start.busy_challenge") from None
        self.deadlines_changed.set()
        return challenge

    async def attach_game_message(self, game: Game, message_id: int) -> Game:
        await self.repo.set_game_message(game.id, message_id)
        return game.with_changes(message_id=message_id)

    async def attach_challenge_message(self, challenge: Challenge, message_id: int) -> Challenge:
        await self.repo.set_challenge_message(challenge.id, message_id)
        return challenge.with_changes(message_id=message_id)

    # --- challenges ---------------------------------------------------------------------

    async def accept(self, challenge_id: int, user_id: int, message_id: int | None) -> GameUpdate:
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
        game = rules.new_game(
            guild_id=challenge.guild_id, channel_id=challenge.channel_id, size=challenge.size,
            now=now, player_x=challenger if challenger_x else opponent,
            player_o=opponent if challenger_x else challenger,
            message_id=message_id or challenge.message_id, rematch_of=challenge.rematch_of,
        )  # fmt: skip
        policy = await self.policies.policy(challenge.guild_id)
        game = rules.start_clock(game, now, policy.turn_timeout)
        try:
            game = await self.repo.accept_challenge(challenge, game)
        except Conflict:
            raise Refusal("challenge.closed") from None
        self.deadlines_changed.set()
        return await self.update(game)

    async def decline(self, challenge_id: int, user_id: int) -> Challenge:
        """Raises: Refusal: not the challenged member, or the challenge is closed."""
        challenge = await self._open_challenge(challenge_id, user_id)
        try:
            await self.repo.close_challenge(challenge, "declined")
        except Conflict:
            raise Refusal("challenge.closed") from None
        return challenge.with_changes(status="declined")

    async def expire(self, challenge: Challenge) -> Challenge | None:
        """Close a challenge whose time ran out (or whose message could not be posted);
        None if it was answered meanwhile."""
        try:
            await self.repo.close_challenge(challenge, "expired")
        except Conflict:
            return None
        return challenge.with_changes(status="expired")

    async def _open_challenge(self, challenge_id: int, user_id: int) -> Challenge:
        challenge = await self.repo.get_challenge(challenge_id)
        if challenge is None or not challenge.pending:
            raise Refusal("challenge.closed")
        if user_id != challenge.opponent_id:
            raise Refusal("challenge.not_for_you", opponent=f"<@{challenge.opponent_id}>")
        if challenge.expires_at <= self.clock():
            raise Refusal("challenge.closed")
        return challenge

    # --- turns --------------------------------------------------------------------------

    async def play_turn(
        self, game_id: int, ply: int, cell: int, user_id: int, *,
        show_early: ShowEarly | None = None,
    ) -> GameUpdate:  # fmt: skip
        """A member's move and, against the bot, the bot's reply: each stored as it is
        made, so nothing shown is ever lost. If the reply takes longer than
        :attr:`patience`, ``show_early`` is called with the member's move meanwhile.

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
            game = await self._bot_turn(game, show_early)
        self.deadlines_changed.set()
        return await self.update(game)

    async def _bot_turn(self, game: Game, show_early: ShowEarly | None = None) -> Game:
        """The bot's move if it is the bot's turn (the caller holds the game's lock)."""
        if not game.running or game.bot_side != game.board.to_move:
            return game
        reply = asyncio.ensure_future(self.opponent.move(game.board, self._level(game)))
        if show_early is not None:
            done, _ = await asyncio.wait({reply}, timeout=self.patience)
            if not done:
                try:
                    await show_early(await self.update(game))
                except Exception:  # the reply must still be made and stored
                    log.exception("game %s: showing the move early failed", game.id)
        return await self._save(game, await self._advance(game, await reply))

    async def resume_bot_turn(self, game_id: int) -> GameUpdate | None:
        """Make a bot move that a crash interrupted (the member's move was stored, the
        bot's reply was not); None if there was none to make."""
        async with self.locks.game(game_id):
            game = await self.repo.get_game(game_id)
            if game is None or not game.running or game.bot_side != game.board.to_move:
                return None
            game = await self._bot_turn(game)
        self.deadlines_changed.set()
        return await self.update(game)

    async def resign(
        self, user_id: int, *, game_id: int | None = None, channel_id: int | None = None
    ) -> GameUpdate:
        """End the user's game as a loss, by game id (button) or channel (command).

        Raises:
            Refusal: no such running game, or the user does not play in it.
        """
        if game_id is None:
            games = await self.repo.running_games_in(channel_id or 0)
            mine = [g for g in games if g.mark_of(user_id)]
            if not mine:
                raise Refusal("resign.none")
            game_id = mine[0].id
        async with self.locks.game(game_id):
            game = await self._running_game(game_id)
            mark = game.mark_of(user_id)
            if mark is None:
                raise Refusal("move.not_player")
            game = await self._save(game, rules.ended(game, "resign", mark, self.clock()))
        self.deadlines_changed.set()
        return await self.update(game)

    async def time_out(self, game_id: int) -> GameUpdate | None:
        """End a game whose mover let the turn deadline pass; None if it moved or ended
        meanwhile."""
        now = self.clock()
        async with self.locks.game(game_id):
            game = await self.repo.get_game(game_id)
            if game is None or not game.running or (game.turn_deadline or now) > now:
                return None
            ended = rules.ended(game, "timeout", game.board.to_move, now)
            game = await self._save(game, ended)
        return await self.update(game)

    async def abandon(self, game_id: int) -> Game | None:
        """End a running game with no result: its message is gone (deleted, or it could
        never be posted). Returns the ended game, or None if it was already over."""
        async with self.locks.game(game_id):
            game = await self.repo.get_game(game_id)
            if game is None or not game.running:
                return None
            game = await self._save(game, rules.ended(game, "abandoned", None, self.clock()))
        log.info("game %s abandoned: its message is gone", game_id)
        self.deadlines_changed.set()
        return game

    async def rematch(
        self, game_id: int, user_id: int, role_ids: Collection[int] = ()
    ) -> GameUpdate | Challenge:
        """Same players, sides swapped: a new bot game at once, or a challenge to the other
        member.

        Raises:
            Refusal: not a player, the game still runs, or the server's start rules.
        """
        game = await self.repo.get_game(game_id)
        if game is None:
            raise Refusal("game.unknown")
        if game.running:
            raise Refusal("rematch.running")
        mark = game.mark_of(user_id)
        if mark is None:
            raise Refusal("rematch.not_player")
        first: First = "me" if mark == "O" else "opponent"  # whoever played O moves first
        if game.bot_side is not None:
            return await self.start_bot_game(
                guild_id=game.guild_id, channel_id=game.channel_id, size=game.size,
                role_ids=role_ids, user_id=user_id, difficulty=self._level(game), first=first,
            )  # fmt: skip
        return await self.challenge(
            guild_id=game.guild_id, channel_id=game.channel_id, size=game.size,
            role_ids=role_ids, user_id=user_id, opponent_id=game.player(other(mark)),
            first=first, rematch_of=game.id,
        )  # fmt: skip

    # --- internals ----------------------------------------------------------------------

    def _level(self, game: Game) -> str:
        return game.difficulty or self.policies.defaults.default_difficulty

    async def _running_game(self, game_id: int) -> Game:
        game = await self.repo.get_game(game_id)
        if game is None:
            raise Refusal("game.unknown")
        if not game.running:
            raise Refusal("move.over")
        return game

    async def _advance(self, game: Game, cell: int) -> Game:
        policy = await self.policies.policy(game.guild_id)
        return rules.advance(game, cell, self.clock(), policy.turn_timeout)

    async def _save(self, before: Game, after: Game) -> Game:
        await self.repo.save_game(after, expected_ply=before.ply)
        return after
