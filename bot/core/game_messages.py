"""A running game's messages besides the moves: its board posted again when it scrolled
away (/ttt board), and the turn ping that mentions the member to move.

Both are stored with the game (``games.message_id``, ``games.ping_message_id``) and
written with a compare-and-set, so whichever process handles a game next, after a restart
or on another shard, finds the board that is live and the ping that is due to go.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.core.locks import LockRegistry
from bot.core.models import Game, GameUpdate
from bot.core.policies import PolicyBook
from bot.core.refusals import Refusal
from bot.core.repository import Store
from bot.core.service import GameService

Post = Callable[[GameUpdate], Awaitable[int]]
"""Posts a game's board as a new message and returns the message's id."""


@dataclass(frozen=True, slots=True)
class Reposted:
    update: GameUpdate
    """The game as now stored: ``update.game.message_id`` is the live board."""
    old_message_id: int | None
    """The board it replaced, to disable (None if it never had one)."""
    posted_id: int
    """The message just posted; when it is not the live board (another process posted
    one first, or the game ended meanwhile), it is to be disabled too."""

    @property
    def live(self) -> bool:
        return self.update.game.running and self.update.game.message_id == self.posted_id


class GameMessages:
    def __init__(
        self, games: GameService, *, repo: Store, policies: PolicyBook, locks: LockRegistry
    ) -> None:
        self.games = games
        self.repo = repo
        self.policies = policies
        self.locks = locks

    # --- the board, posted again ---------------------------------------------------------

    async def repost(self, user_id: int, channel_id: int, post: Post) -> Reposted:
        """Post the board of the user's running game in the channel again (``post``) and
        make the new message the live one; moves on the old one are refused from then on.

        Raises:
            Refusal: ``repost.none``, the user plays no running game in the channel.
        """
        mine = [g for g in await self.repo.running_games_in(channel_id) if g.mark_of(user_id)]
        if not mine:
            raise Refusal("repost.none")
        game_id = mine[0].id
        # The game's lock holds this process's moves off between posting and storing, so
        # none lands on the old board after it was shown on the new one.
        async with self.locks.game(game_id):
            game = await self.repo.get_game(game_id)
            if game is None or not game.running:
                raise Refusal("repost.none")
            posted = await post(await self.games.update(game))
            await self.repo.move_game_message(game.id, game.message_id, posted)
            # read again, and so remembered with its new message: a click on the old one
            # is refused as made on a board posted again, whatever square it was on
            current = await self.games.read_again(game.id) or game
        return Reposted(await self.games.update(current), game.message_id, posted)

    # --- the turn ping -------------------------------------------------------------------

    async def ping_due(self, game: Game, actor_id: int | None = None) -> int | None:
        """The member to mention now that the turn passed to them: in a running game
        between members, on a server with the turn ping on, unless they are the one who
        just acted (who accepted a challenge and moves first is watching already). In a
        correspondence game, also where the ping is off, a member who chose reminders
        that Discord does not deliver (50007): the mention stands in for the DM, every
        turn until they choose again (read from the game's marks: no query)."""
        if not game.running or game.bot_side is not None or game.guest:
            return None  # the bot answers at once; a guest can post nothing of its own
        mark = game.board.to_move
        mover = game.player(mark)
        if mover == actor_id:
            return None
        if game.mentioned_instead(mark):
            return mover
        return mover if (await self.policies.policy(game.settings_guild)).turn_ping else None

    async def keep_ping(self, game: Game, message_id: int) -> bool:
        """Store the ping just sent for ``game`` as it is now; False if the game moved on
        or ended meanwhile (the ping is stale: delete it)."""
        return await self.repo.set_ping_message(game.id, game.ply, message_id)

    async def take_ping(self, game: Game) -> int | None:
        """The ping to delete now that the game changed (None if none), forgotten at once so
        that exactly one process deletes it. The bot's games never have one, nor a game
        that had none when its change was stored (``game`` as the save returned it: a
        ping sent later, for the turn before, could not have been kept)."""
        ping = game.ping_message_id
        if game.bot_side is not None or ping is None:
            return None
        return ping if await self.repo.take_ping_message(game.id, ping) else None
