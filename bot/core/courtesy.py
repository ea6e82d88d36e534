"""Courtesy in a correspondence game: the waiting player gives the mover one more pace
period (once a move), and either player offers a draw, which the other accepts or lets
lapse by moving. Part of :class:`~bot.core.service.GameService` (a base class, as
:mod:`bot.core.endings` is), which supplies the reads and writes; the rules themselves
are the pure functions here.

An offer stands until the member it was made to moves: made by the player waiting, it
lapses at the mover's next move; made by the mover, it goes along with their move (as
lichess's does) and lapses at the opponent's move after it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from bot.core import rules
from bot.core.locks import LockRegistry
from bot.core.models import DAY, Ending, Game, GameUpdate
from bot.core.refusals import Refusal
from bot.core.repository import Conflict, Repository

CourtesyAction = Literal["time", "offer", "accept"]
"""Give the mover more time, offer a draw (which accepts the opponent's standing one),
or accept the opponent's offer (refused once it lapsed: never taken as a new offer)."""
Done = Literal["time", "offered", "accepted"]
Offer = Literal["offer", "accept", "standing"]
DRAW_FROM_PLY = 2
"""A draw may be offered once both players have moved: a draw agreed before anybody
played would only trade rating points."""


@dataclass(frozen=True, slots=True)
class CourtesyDone:
    """What an action did (``done``), and the game to show."""

    update: GameUpdate
    done: Done


@dataclass(frozen=True, slots=True)
class CourtesyChoices:
    """What a player may do in the game now: what the private options message offers."""

    update: GameUpdate
    may_give_time: bool
    """The member waits for the mover and has not given more time this move."""
    offer: Offer
    """Offer a draw, accept the opponent's standing offer, or their own offer stands."""


def standing_offer(game: Game) -> int | None:
    """The member whose draw offer stands in ``game`` now, if any."""
    until = game.draw_offer_until
    if game.draw_offer_by is None or until is None or game.ply >= until:
        return None
    return game.draw_offer_by


def time_given(game: Game) -> bool:
    """Whether the waiting player gave the mover more time in this move already."""
    return game.running and game.extra_time_ply == game.ply


def agreed_draw(game: Game) -> bool:
    """Whether ``game`` ended drawn by the players' agreement (its board undecided)."""
    return game.ending == Ending("draw") and game.board.outcome() is None


def choices_of(game: Game, user_id: int) -> tuple[bool, Offer] | None:
    """What the member may do for courtesy in ``game`` now: give more time (waiting,
    none given this move), and offer a draw, accept the opponent's, or their own
    stands; None where none of it applies (not running, not a player, live)."""
    mark = game.mark_of(user_id)
    if not game.running or mark is None or game.days_per_move is None:
        return None
    offer = standing_offer(game)
    state: Offer = "offer" if offer is None else "standing" if offer == user_id else "accept"
    return game.board.to_move != mark and not time_given(game), state


def check_courtesy(game: Game, ply: int, user_id: int, action: CourtesyAction, now: float) -> None:
    """Whether ``user_id`` may take ``action`` in the running ``game`` seen at ``ply``.

    Raises:
        Refusal: not a player (``move.not_player``), not a correspondence game, the
            game moved on since the member looked (``move.stale``), its deadline passed
            (``courtesy.late``); more time: not the waiting player, or given already this
            move; an offer: too early, or the member's own offer stands already; an
            accept: no offer of the opponent's stands (``courtesy.no_offer``).
    """
    mark = game.mark_of(user_id)
    if mark is None:
        raise Refusal("move.not_player")
    if game.days_per_move is None:
        raise Refusal("courtesy.not_correspondence")
    if rules.late(game, now):
        raise Refusal("courtesy.late")
    offer = standing_offer(game)
    if action == "accept":  # the opponent's offer standing now, whenever it was seen
        if offer in (None, user_id):
            raise Refusal("courtesy.no_offer")
        return
    if ply != game.ply:  # more time is for the move the member saw waiting
        raise Refusal("move.stale")
    if action == "time":
        if game.board.to_move == mark:
            raise Refusal("courtesy.time_own_move")
        if time_given(game):
            raise Refusal("courtesy.time_given")
        return
    if offer == user_id:
        raise Refusal("courtesy.draw_standing")
    if offer is None and game.ply < DRAW_FROM_PLY:
        raise Refusal("courtesy.draw_early")


def with_more_time(game: Game) -> Game:
    """``game`` with the mover's deadline one pace period later, given at this ply (its
    ``updated_at`` left: the turn began at the last move, as ``/ttt games`` orders it)."""
    assert game.days_per_move is not None and game.turn_deadline is not None
    deadline = game.turn_deadline + game.days_per_move * DAY
    return game.with_changes(turn_deadline=deadline, extra_time_ply=game.ply)


def with_offer(game: Game, user_id: int) -> Game:
    """``game`` with ``user_id``'s draw offer, standing until the other player moves."""
    moves_first = game.player(game.board.to_move) == user_id
    until = game.ply + (2 if moves_first else 1)
    return game.with_changes(draw_offer_by=user_id, draw_offer_until=until)


class GameCourtesy:
    """The courtesy of :class:`~bot.core.service.GameService`, which provides these:"""

    repo: Repository
    locks: LockRegistry
    clock: Callable[[], float]

    async def update(self, game: Game) -> GameUpdate:
        raise NotImplementedError  # GameService's

    async def _running_game(self, game_id: int, message_id: int | None = None) -> Game:
        raise NotImplementedError  # GameService's

    async def _save(self, before: Game, after: Game) -> Game:
        raise NotImplementedError  # GameService's

    def _stored(self, game: Game) -> Game:
        raise NotImplementedError  # GameService's

    async def courtesy_choices(self, game_id: int, user_id: int) -> CourtesyChoices:
        """What the member may do for courtesy in the game now (changes nothing).

        Raises:
            Refusal: no such running game, not a player, not a correspondence game.
        """
        game = await self._running_game(game_id)
        if game.mark_of(user_id) is None:
            raise Refusal("move.not_player")
        choices = choices_of(game, user_id)
        if choices is None:
            raise Refusal("courtesy.not_correspondence")
        may_give_time, offer = choices
        return CourtesyChoices(await self.update(game), may_give_time, offer)

    async def courtesy(
        self, game_id: int, ply: int, user_id: int, action: CourtesyAction
    ) -> CourtesyDone:
        """The one way in for courtesy: give the mover one more pace period, or offer a
        draw (an offer while the opponent's stands accepts it: the game ends drawn and
        is rated as any draw). ``ply``: the game as the member saw it.

        Raises:
            Refusal: see :func:`check_courtesy`; no such running game; another change
                got in first (``move.stale``). Nothing is changed then.
        """
        now = self.clock()
        async with self.locks.game(game_id):
            game = await self._running_game(game_id)
            check_courtesy(game, ply, user_id, action, now)
            done: Done
            try:
                if action == "time":
                    changed, done = with_more_time(game), "time"
                elif standing_offer(game) is not None:  # the opponent's: accepted
                    ended = rules.finish(game, Ending("draw"), now)
                    return CourtesyDone(await self.update(await self._save(game, ended)),
                                        "accepted")  # fmt: skip
                else:
                    changed, done = with_offer(game, user_id), "offered"
                await self.repo.save_courtesy(changed, game)
            except Conflict:
                raise Refusal("move.stale") from None
            game = self._stored(changed)
        return CourtesyDone(await self.update(game), done)
