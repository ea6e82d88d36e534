"""The one place that decides a running game: turns (the member's move and the bot's reply
in one call) here, hints in a base class (:mod:`bot.core.game_hints`), resigning,
stopping, timeouts and abandoning in another (:mod:`bot.core.endings`), the running
games last stored in :mod:`bot.core.recent_games`; starts are the
:class:`~bot.core.lobby.Lobby`'s.

Every method validates, updates state, stores it, and returns what to show. A request that
cannot be honoured raises :class:`Refusal` with a catalog key; nothing is changed then.
Discord and SQL never appear here: the repository, clock and RNG are injected.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Literal

from bot.core import moves, rules
from bot.core.alarm import DeadlineAlarm
from bot.core.courtesy import GameCourtesy
from bot.core.endings import GameEndings
from bot.core.engine_advice import EngineHint
from bot.core.engine_gate import EngineGate
from bot.core.game_hints import GameHints
from bot.core.hints import Hint
from bot.core.kept_hints import KeptHints
from bot.core.locks import LockRegistry
from bot.core.log_lines import describe
from bot.core.models import Game, GameUpdate
from bot.core.opponent import BotOpponent
from bot.core.policies import PolicyBook
from bot.core.recent_games import RecentGames
from bot.core.refusals import Refusal
from bot.core.repository import Conflict, Repository
from bot.core.variants import Advisor, advise_here
from engine import IllegalMove

log = logging.getLogger(__name__)

First = Literal["random", "me", "opponent"]
Clock = Callable[[], float]
ShowEarly = Callable[[GameUpdate], Awaitable[None]]


class GameService(GameHints, GameEndings, GameCourtesy):
    """A game's moves, each one call that checks, stores and returns what to show; its
    hints are :class:`GameHints`', its endings (resign, stop, time out, abandon)
    :class:`GameEndings`', more time and draw offers :class:`GameCourtesy`'s."""

    def __init__(
        self, repo: Repository, policies: PolicyBook, opponent: BotOpponent, *,
        bot_user_id: int, clock: Clock = time.time, rng: random.Random | None = None,
        patience: float = 1.0, advise: Advisor = advise_here, locks: LockRegistry | None = None,
        alarm: DeadlineAlarm | None = None, live_board: bool = False,
        gate: EngineGate | None = None,
    ) -> None:  # fmt: skip
        self.repo = repo
        self.policies = policies
        self.opponent = opponent
        self.bot_user_id = bot_user_id
        self.clock = clock
        self.rng = rng or random.Random()
        self.patience = patience
        """Seconds the bot's reply may take before the member's move is shown on its own."""
        self._advise = advise
        self.gate = gate or EngineGate()
        """Admits the hints worked out away from the event loop (shared with reviews)."""
        self.kept_hints: KeptHints[Hint | EngineHint] = KeptHints()
        self.locks = locks or LockRegistry()
        self.alarm = alarm or DeadlineAlarm()
        """Told of every deadline stored, to wake the timekeeper when one is sooner."""
        self._recent = RecentGames()
        self.reminders_due = asyncio.Event()
        """Set when a correspondence move stored here may have made a reminder due: the
        reminders' sender wakes (one stored by another process waits for its pass)."""
        self.live_board = live_board  # the Activity is served: boards offer it

    async def current(self, game_id: int) -> GameUpdate | None:
        """The game as stored, to show again; None if there is no such game."""
        game = await self.repo.get_game(game_id)
        return None if game is None else await self.update(game)

    async def update(self, game: Game) -> GameUpdate:
        """``game`` with what showing it needs (its server's marks)."""
        policy = await self.policies.policy(game.settings_guild)
        return GameUpdate(game, policy.marks, hints=policy.hints, live_board=self.live_board)

    async def started(self, game: Game) -> GameUpdate:
        """A game the lobby just stored, remembered for its first click."""
        return await self.update(self._stored(game))

    async def read_again(self, game_id: int) -> Game | None:
        """The game as stored now, remembered in place of what this process last knew
        (after a change made around the service, such as the board posted again)."""
        game = await self.repo.get_game(game_id)
        if game is None:
            self._recent.forget(game_id)
            return None
        return self._stored(game)

    def forget_games_of(self, user_id: int) -> None:
        """The games ``user_id`` plays are read again at their next click (their row
        changed around the service: the member's reminders)."""
        self._recent.forget_player(user_id)

    async def attach_game_message(self, game: Game, message_id: int) -> Game:
        await self.repo.set_game_message(game.id, message_id)
        self._recent.message_attached(game, message_id)
        return game.with_changes(message_id=message_id)

    async def claim_game_message(self, game: Game, message_id: int) -> bool:
        """Make ``message_id`` the board of a game posted without an interaction (a
        tournament's), unless one was stored first (another process posted it too)."""
        if not await self.repo.move_game_message(game.id, None, message_id):
            return False
        self._stored(game.with_changes(message_id=message_id))
        return True

    # --- turns --------------------------------------------------------------------------

    async def play_turn(
        self, game_id: int, ply: int, cell: int, user_id: int, *,
        show_early: ShowEarly | None = None, message_id: int | None = None,
        answer_by: float | None = None,
    ) -> GameUpdate:  # fmt: skip
        """A member's move and, against the bot, the bot's reply, stored together in one
        write when the reply comes within :attr:`patience`; otherwise the member's
        move is stored, shown with ``show_early``, and the reply stored when it comes. So
        nothing is shown before it is stored. ``message_id`` is the message clicked, if
        any: it must be the game's board. ``answer_by`` (on :attr:`clock`): when the member
        must be answered; a click that reached us late waits for the reply no longer.

        The game is read from what this process last stored, when that is the position
        clicked: the write's compare-and-set on the ply (and the board's message) refuses
        it if another process changed the game since.

        Raises:
            Refusal: not a player, a board posted again since, a stale board, not their
                turn (at once while this process's bot thinks on the game), the turn's
                deadline passed (``move.late``: the timeout stands), a taken cell (or one
                outside the small board to play), game over.
        """
        self._refuse_while_thinking(game_id, user_id)
        async with self.locks.game(game_id):
            game = await self._clicked_game(game_id, ply, message_id)
            moves.check_turn(game, ply, user_id)
            if rules.late(game, self.clock()):  # the timekeeper's sweep has yet to end it,
                game = await self._running_game(game_id, message_id)  # unless another
                if rules.late(game, self.clock()):  # process gave more time meanwhile
                    raise Refusal("move.late")  # (it is due already: no need to ring)
            try:
                moved = await self.advance(game, cell)
            except IllegalMove:
                raise rules.illegal_move(game, cell) from None
            if not self._bot_to_move(moved):
                game = await self._store_click(moved, game.ply, message_id)
            else:
                wait = self.patience if answer_by is None else answer_by - self.clock()
                reply = await self.opponent.reply_within(
                    moved.board, self.level(moved), max(0.0, min(self.patience, wait)),
                    game=game_id)  # fmt: skip
                if reply.done() and reply.exception() is None:  # both moves, one write
                    replied = await self.advance(moved, reply.result())
                    game = await self._store_click(replied, game.ply, message_id)
                else:  # the member's move is stored and shown while the bot thinks on
                    game = await self._store_click(moved, game.ply, message_id)
                    if show_early is not None:
                        try:
                            await show_early(await self.update(game))
                        except Exception:  # the reply must still be made and stored
                            log.exception("game %s: showing the move early failed", game.id)
                    game = await self._store_reply(game, reply)
        self.alarm.note(game.turn_deadline)
        if game.days_per_move is not None:
            self.reminders_due.set()
        return await self.update(game)

    async def choose_board(
        self, game_id: int, ply: int, board: int | None, user_id: int, message_id: int | None
    ) -> GameUpdate:
        """The game shown with small board ``board``'s squares (None: the boards) for the
        member whose free move it is; changes nothing (refusals: ``check_board_choice``)."""
        game = await self._clicked_game(game_id, ply, message_id)
        moves.check_board_choice(game, ply, board, user_id)
        return replace(await self.update(game), focus=board)

    async def refuse_move(self, game_id: int, ply: int, cell: int, user_id: int) -> Refusal:
        """Why a move the board's message does not offer is refused (a forged click)."""
        return moves.refusal_of(await self._running_game(game_id), ply, cell, user_id)

    async def refuse_board_choice(
        self, game_id: int, ply: int, board: int | None, user_id: int
    ) -> Refusal:
        """Why a board choice the board's message does not offer is refused (forged)."""
        game = await self._running_game(game_id)
        return moves.board_choice_refusal(game, ply, board, user_id)

    def _bot_to_move(self, game: Game) -> bool:
        return game.running and game.bot_side == game.board.to_move

    def _refuse_while_thinking(self, game_id: int, user_id: int) -> None:
        """Refuse a click made while this process's bot thinks on the game (its lock is
        held and the bot is to move, as last stored) at once: waiting for the lock, it
        would be refused only after the reply, as made on a board out of date.

        Raises:
            Refusal: not the member's turn (or not a player); nothing is changed.
        """
        recent = self._recent.get(game_id)
        if recent is not None and self._bot_to_move(recent) and self.locks.game(game_id).locked():
            moves.check_turn(recent, recent.ply, user_id)  # the bot is to move: it raises

    async def _clicked_game(self, game_id: int, ply: int, message_id: int | None) -> Game:
        """The running game a click was made on: as this process last stored it if that
        is the position and board clicked, else as stored."""
        recent = self._recent.clicked(game_id, ply, message_id)
        if recent is not None:
            return recent
        return await self._running_game(game_id, message_id)

    async def _store_click(self, game: Game, clicked_ply: int, message_id: int | None) -> Game:
        """Store what a click changed: one write, whatever moves it made.

        Raises:
            Refusal: another process changed the game first (a move, an ending, or the
                board posted again: the click was made on an old one).
        """
        try:
            return self._stored(await self.repo.save_game(game, clicked_ply, message_id))
        except BaseException as exc:  # a conflict, or stored or not (OutcomeUnknown):
            self._recent.forget(game.id)  # the next click reads what is
            if not isinstance(exc, Conflict):
                raise
            await self._running_game(game.id, message_id)  # the refusal that says why
            raise Refusal("move.stale") from None

    async def _store_reply(self, game: Game, reply: asyncio.Future[int]) -> Game:
        """The bot's reply to ``game`` once it comes; the game as stored if it ended
        meanwhile (resigned or timed out, by another process)."""
        try:
            return await self._save(game, await self.advance(game, await reply))
        except Conflict:
            return await self.repo.get_game(game.id) or game

    def _stored(self, game: Game) -> Game:
        """Remember ``game`` as this process last saw it stored (running games only)."""
        self._recent.remember(game)
        if game.ending is not None and log.isEnabledFor(logging.INFO):
            ending = game.ending
            log.info("game %d ended: %s%s after %d moves and %.0f s (%s)", game.id,
                     ending.reason, f", {ending.winner} wins" if ending.winner else "",
                     game.ply, (game.finished_at or game.updated_at) - game.created_at,
                     describe(game))  # fmt: skip
        return game

    async def resume_bot_turn(self, game_id: int) -> GameUpdate | None:
        """Make a bot move that a crash interrupted (the member's move was stored, the
        bot's reply was not); None if there was none to make."""
        async with self.locks.game(game_id):
            game = await self.repo.get_game(game_id)
            if game is None or not self._bot_to_move(game):
                return None
            level = self.level(game)
            game = await self._store_reply(game, asyncio.ensure_future(
                self.opponent.move(game.board, level, game=game_id)))  # fmt: skip
        self.alarm.note(game.turn_deadline)
        return await self.update(game)

    def level(self, game: Game) -> str:
        """The bot's difficulty in ``game``."""
        return game.difficulty or self.policies.defaults.default_difficulty

    async def _running_game(self, game_id: int, message_id: int | None = None) -> Game:
        game = await self.repo.get_game(game_id)
        if game is None:
            raise Refusal("game.unknown")
        if not game.running:
            self._recent.forget(game_id)
            raise Refusal("move.over")
        self._stored(game)
        if message_id is not None and game.message_id not in (None, message_id):
            raise Refusal("move.moved", game=game)  # an old board, posted again since
        return game

    async def advance(self, game: Game, cell: int) -> Game:
        """``game`` after ``cell`` is played, under its server's turn timeout."""
        policy = await self.policies.policy(game.settings_guild)
        return rules.advance(game, cell, self.clock(), policy.turn_timeout)

    async def _save(self, before: Game, after: Game) -> Game:
        try:
            return self._stored(await self.repo.save_game(after, expected_ply=before.ply))
        except BaseException:
            self._recent.forget(before.id)  # see _store_click
            raise
