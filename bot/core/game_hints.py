"""A running game's hints: part of :class:`~bot.core.service.GameService` (its base
class), which supplies the reads and the writes. Each position's hint is worked out once
and kept (:mod:`~bot.core.kept_hints`), and the first ask for the position in front of
its member is free of the page's budgets and never refused by the engine's pool."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.core import moves
from bot.core.budgets import place_of
from bot.core.engine_advice import EngineHint
from bot.core.engine_gate import EngineGate
from bot.core.hints import Hint
from bot.core.kept_hints import KeptHints
from bot.core.models import Game, GameUpdate
from bot.core.recent_games import RecentGames
from bot.core.refusals import Refusal
from bot.core.repository import Conflict, Repository
from bot.core.variants import Advisor, variant_of


class GameHints:
    """The hints of :class:`~bot.core.service.GameService`, which provides these:"""

    repo: Repository
    gate: EngineGate
    kept_hints: KeptHints[Hint | EngineHint]
    _recent: RecentGames
    _advise: Advisor

    async def update(self, game: Game) -> GameUpdate:
        raise NotImplementedError  # GameService's

    async def _running_game(self, game_id: int, message_id: int | None = None) -> Game:
        raise NotImplementedError  # GameService's

    async def hint(
        self, game_id: int, ply: int, user_id: int, *,
        searching: Callable[[], Awaitable[None]] | None = None,
        charge: Callable[[], None] | None = None,
    ) -> tuple[GameUpdate, Hint | EngineHint]:  # fmt: skip
        """The best squares for the member to move in a game against the bot (ultimate:
        :mod:`~bot.core.engine_advice`), and the game marked as played with a hint (once
        it is worked out, so a search that fails marks nothing). Each position's hint is
        worked out once and kept (:mod:`~bot.core.kept_hints`). ``searching`` is called
        before a search that may take a while (past 3×3), once the request is valid.
        ``charge`` is called for every ask but the first for the position in front of
        the member, before anything is worked out; what it raises passes through.

        Raises:
            Refusal: hints turned off, not a bot game, not the player, a stale board, not
                their turn, game over; ``hint.slow`` when the search ran out of time;
                ``engine.busy_member`` with a hint or review of theirs in flight, before
                ``searching``. Never ``engine.busy``: a hint waits its turn in the pool
                (:class:`~bot.core.engine_gate.EngineGate`).
        """
        charge = charge or (lambda: None)
        claim = self.kept_hints.claim(self._recent.get(game_id), game_id, ply, user_id,
                                      fresh=False)  # fmt: skip
        if claim is False:
            charge()
        try:
            game = await self._running_game(game_id)
        except Refusal:
            if claim is None:
                charge()
            raise
        if claim is None and not self.kept_hints.claim(game, game_id, ply, user_id, fresh=True):
            charge()
        update = await self.update(game)
        if not update.hints:
            raise Refusal("hint.off")
        if game.bot_side is None:
            raise Refusal("hint.bot_games")
        moves.check_turn(game, ply, user_id, not_player="hint.not_player")
        hint, kept = await self.kept_hints.work_out(
            game.id, ply, lambda: self._work_out_hint(game, user_id, searching), searching
        )
        if not (kept and game.hinted):
            try:
                await self.repo.mark_hinted(game.id, ply)
            except Conflict:  # a move (or an ending) was stored meanwhile
                raise Refusal("move.stale") from None
        return await self.update(game.with_changes(hinted=True)), hint

    async def _work_out_hint(
        self, game: Game, user_id: int, searching: Callable[[], Awaitable[None]] | None
    ) -> Hint | EngineHint:
        """At once on 3×3; past it, away from the event loop, its turn in the hints' pool
        waited for (a hint for the position in front of its member is never refused)."""
        hint = variant_of(game.variant).instant_hint(game.board)
        if hint is not None:
            return hint
        with self.gate.member(user_id):
            turn = self.gate.enter("hint", place_of(game.guild_id, game.channel_id),
                                   patient=True)  # fmt: skip
            try:
                if searching is not None:
                    await searching()
                await turn.wait()
                return await self._advise(game.board)
            except TimeoutError:
                raise Refusal("hint.slow") from None
            finally:
                turn.close()
