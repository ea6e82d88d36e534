"""A challenge answered away from its own message (``/ttt games``, a reminder DM): through
the lobby as the challenge's own buttons are, then shown on the challenge's message as
after any answer there (over REST, or through the challenge's token where only an
install reaches). One place, so the list and the DM cannot drift apart."""

from __future__ import annotations

from bot.core.lobby import Lobby
from bot.core.models import Challenge, GameUpdate
from bot.discord_ui.publisher import Publisher
from bot.discord_ui.reply_tokens import ReplyTokens
from bot.discord_ui.turn_pinger import TurnPinger


class ChallengeAnswers:
    def __init__(
        self, lobby: Lobby, publisher: Publisher, pinger: TurnPinger, tokens: ReplyTokens
    ) -> None:
        self.lobby = lobby
        self.publisher = publisher
        self.pinger = pinger
        self.tokens = tokens

    async def accept(self, challenge_id: int, user_id: int) -> GameUpdate:
        """The game, started on the challenge's message and shown there.

        Raises:
            Refusal: as :meth:`Lobby.accept` (closed, not theirs, a block, the limits).
        """
        update = await self.lobby.accept_elsewhere(challenge_id, user_id)
        await self.tokens.carry(challenge_id, update.game)
        await self.publisher.publish(update)
        await self.pinger.game_changed(update.game, user_id)
        return update

    async def decline(self, challenge_id: int, user_id: int) -> Challenge:
        """The challenge, declined; its message says so and its tokens go.

        Raises:
            Refusal: as :meth:`Lobby.decline`.
        """
        challenge = await self.lobby.decline(challenge_id, user_id)
        await self.publisher.publish(challenge)
        return challenge
