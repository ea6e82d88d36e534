"""``/ttt games`` and the live board's "My games": a member's running games and open
challenges in every place they play, in the order they need the member.

Those waiting for the member's move come first, the soonest deadline first (a live game
against the bot has the server's turn timeout, a correspondence game days); then those
waiting for the opponent, the turn that began longest ago first; then the challenges
that name the member (theirs to answer), then the member's own, each the soonest to lapse
first. A list is values: the chat and the page each draw it their way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.core.models import Challenge, Game, GameUpdate
from bot.core.refusals import Refusal
from bot.core.repository import Store
from bot.core.service import Clock, GameService

Waiting = Literal["you", "opponent", "to_you", "from_you"]
"""What an entry waits for: the member's move, the opponent's, the member's answer to a
challenge that names them, or an answer to the member's own challenge."""
ORDER: tuple[Waiting, ...] = ("you", "opponent", "to_you", "from_you")


@dataclass(frozen=True, slots=True)
class Listed:
    """One entry: a running game or a pending challenge, and what it waits for."""

    waiting: Waiting
    item: Game | Challenge
    opponent_id: int | None
    """The other player (the bot's id in a game against it); None for an open challenge,
    which anyone in its channel may take."""

    @property
    def game(self) -> Game | None:
        return self.item if isinstance(self.item, Game) else None

    @property
    def challenge(self) -> Challenge | None:
        return self.item if isinstance(self.item, Challenge) else None

    @property
    def deadline(self) -> float | None:
        """The turn's deadline, or the challenge's expiry."""
        item = self.item
        return item.turn_deadline if isinstance(item, Game) else item.expires_at

    @property
    def against_bot(self) -> bool:
        return isinstance(self.item, Game) and self.item.bot_side is not None


def _key(entry: Listed) -> tuple[int, float, int]:
    rank = ORDER.index(entry.waiting)
    item = entry.item
    if entry.waiting == "opponent" and isinstance(item, Game):
        when = item.updated_at  # oldest first: the turn that began longest ago
    else:  # soonest first; a game with no deadline (none in force) after those with one
        when = entry.deadline if entry.deadline is not None else float("inf")
    return rank, when, item.id


def listed(
    user_id: int, games: list[Game], challenges: list[Challenge], now: float
) -> list[Listed]:
    """The member's entries in the list's order; challenges past their time (not yet
    closed by the timekeeper) are left out, as a click on them would be refused."""
    entries: list[Listed] = []
    for game in games:
        mark = game.mark_of(user_id)
        if mark is None or not game.running:
            continue
        waiting: Waiting = "you" if game.board.to_move == mark else "opponent"
        rival = game.player("O" if mark == "X" else "X")
        entries.append(Listed(waiting, game, rival))
    for challenge in challenges:
        if not challenge.pending or challenge.expires_at <= now:
            continue
        if challenge.challenger_id == user_id:
            entries.append(Listed("from_you", challenge, challenge.opponent_id))
        elif challenge.opponent_id == user_id:
            entries.append(Listed("to_you", challenge, challenge.challenger_id))
    return sorted(entries, key=_key)


class MyGames:
    """A member's list, read in one query of the store; and a game of theirs to show them
    privately (where its own message cannot be reached or kept up to date)."""

    def __init__(self, repo: Store, games: GameService, clock: Clock) -> None:
        self.repo = repo
        self.games = games
        self.clock = clock

    async def of(self, user_id: int) -> list[Listed]:
        """The member's running games and pending challenges, in the list's order."""
        now = self.clock()
        games, challenges = await self.repo.games_list_of(user_id, now)
        return listed(user_id, games, challenges, now)

    async def board(self, game_id: int, user_id: int) -> GameUpdate:
        """One of the member's games as stored, to show them privately with its buttons.

        Raises:
            Refusal: no such game, or the member does not play in it.
        """
        update = await self.games.current(game_id)
        if update is None:
            raise Refusal("game.unknown")
        if update.game.mark_of(user_id) is None:
            raise Refusal("move.not_player")
        return update
