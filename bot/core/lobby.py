"""Starting games: against the bot, by challenge (accept, decline, expiry), and rematches.

The server's start rules are checked with the insert, under the channel's and the
member's locks (:mod:`bot.core.start_rules`), so two starts cannot both pass them. An
accepted correspondence challenge counts both players' games under both members' locks:
two accepts of one member's challenges in two channels take turns.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Collection

from bot.core import blocks, rules
from bot.core.alarm import DeadlineAlarm, deadline_added
from bot.core.log_lines import describe
from bot.core.models import Challenge, GameUpdate, Variant, XChoice, other
from bot.core.policies import PolicyBook
from bot.core.policy import CORRESPONDENCE_GAMES_PER_MEMBER
from bot.core.refusals import Refusal
from bot.core.repository import Conflict, Repository, Store
from bot.core.service import Clock, First, GameService
from bot.core.start_rules import check_player, check_role, check_room, start_game

log = logging.getLogger(__name__)


class Lobby:
    """Starts games; a started game is the :class:`GameService`'s (``games``)."""

    def __init__(
        self, games: GameService, *, repo: Repository, policies: PolicyBook, clock: Clock,
        alarm: DeadlineAlarm, rng: random.Random,
        correspondence_limit: int = CORRESPONDENCE_GAMES_PER_MEMBER,
    ) -> None:  # fmt: skip
        self.games = games
        self.correspondence_limit = correspondence_limit
        """Running correspondence games a member may play at once, everywhere together."""
        self.repo = repo
        self.policies = policies
        self.clock = clock
        self.alarm = alarm
        self.rng = rng

    def _first_is_me(self, first: First) -> bool:
        return {"me": True, "opponent": False}.get(first, self.rng.random() < 0.5)

    # --- starting -----------------------------------------------------------------------

    async def start_bot_game(
        self, *, guild_id: int | None, channel_id: int, user_id: int, difficulty: str,
        first: First, size: int = 3, role_ids: Collection[int] = (), locale: str | None = None,
        guest: bool = False, answer_by: float | None = None, variant: Variant = "classic",
        days_per_move: int | None = None,
    ) -> GameUpdate:  # fmt: skip
        """A game against the bot; if the bot moves first its move is already made.
        ``guest``: where only the member's own install reaches (see ``Game.guest``); no
        server's settings apply there. ``answer_by`` (on the clock): when the member must
        be answered; the bot's opening search gets until then, then a quick move is made.

        Raises:
            Refusal: a pace asked (``days_per_move``: the bot plays live only), or the
                server's start rules say no (see :mod:`~bot.core.start_rules`).
        """
        rules.check_pace(days_per_move, vs_bot=True)
        policy = await self.policies.policy(None if guest else guild_id)
        locale = policy.public_locale(locale)
        human_x = self._first_is_me(first)
        human, bot = (user_id, self.games.bot_user_id)
        game = rules.new_game(
            guild_id=guild_id, channel_id=channel_id, size=size, now=self.clock(),
            player_x=human if human_x else bot, player_o=bot if human_x else human,
            bot_side="O" if human_x else "X", difficulty=difficulty, locale=locale, guest=guest,
            variant=variant,
        )  # fmt: skip
        if human_x:
            game = rules.start_clock(game, self.clock(), policy.turn_timeout)
        else:
            within = None if answer_by is None else answer_by - self.clock()
            game = await self.games.advance(
                game, await self.games.opponent.move(game.board, difficulty, within=within)
            )
        game = await start_game(self.repo, policy, game, user_id=user_id, role_ids=role_ids,
                                now=self.clock())  # fmt: skip
        if log.isEnabledFor(logging.INFO):  # describe() builds its line even when not logged
            log.info("game %d started: %s", game.id, describe(game))
        await self._deadline_added(game.turn_deadline)
        return await self.games.started(game)

    async def challenge(
        self, *, guild_id: int | None, channel_id: int, user_id: int, opponent_id: int | None,
        first: First, size: int = 3, rematch_of: int | None = None,
        role_ids: Collection[int] = (), locale: str | None = None, guest: bool = False,
        variant: Variant = "classic", days_per_move: int | None = None,
    ) -> Challenge:  # fmt: skip
        """Challenge a member, or anyone in the channel (``opponent_id`` None: an open
        challenge); it waits for an answer until it expires: the server's challenge
        timeout, or a correspondence game's pace (``days_per_move``, see
        :data:`~bot.core.models.PACES`).

        Raises:
            Refusal: in a DM with the bot (only the member and the bot are there), a
                self-challenge, an unknown pace, a block between the two (see
                :mod:`bot.core.blocks`), the member's limits of correspondence games, or
                the server's start rules say no.
        """
        if guild_id is None and not guest:
            raise Refusal("dm.no_challenge")
        if opponent_id == user_id:
            raise Refusal("start.self")
        policy = await self.policies.policy(None if guest else guild_id)
        locale = policy.public_locale(locale)
        x_player: XChoice = (
            "challenger" if first == "me" else "opponent" if first == "opponent" else "random"
        )
        now = self.clock()
        challenge = rules.new_challenge(
            guild_id=guild_id, channel_id=channel_id, challenger_id=user_id,
            opponent_id=opponent_id, x_player=x_player, size=size, now=now,
            timeout=policy.challenge_timeout, rematch_of=rematch_of, locale=locale, guest=guest,
            variant=variant, days_per_move=days_per_move,
        )  # fmt: skip
        if opponent_id is not None:
            await blocks.check_blocks(self.repo, user_id, opponent_id)
        async with self.repo.atomic() as tx:
            await check_player(tx, policy, guild_id=guild_id, channel_id=channel_id,
                               user_id=user_id, role_ids=role_ids, now=now)  # fmt: skip
            if days_per_move is None:
                await check_room(tx, policy, channel_id)
            else:  # waiting days, it holds no channel: the member's own limit bounds it
                await self._check_correspondence(tx, user_id, challenge.settings_guild,
                                                 policy.correspondence_games)  # fmt: skip
            try:
                challenge = await tx.create_challenge(challenge)
            except Conflict:  # another process's challenge reached the channel first
                raise Refusal("start.busy_challenge") from None
        await self._deadline_added(challenge.expires_at)
        return challenge

    async def attach_challenge_message(self, challenge: Challenge, message_id: int) -> Challenge:
        await self.repo.set_challenge_message(challenge.id, message_id)
        if challenge.days_per_move is not None and challenge.opponent_id is not None:
            # its DM, if they chose one, links here now: due at once, even if a sender
            # had put it back for want of this link
            await self.repo.reminder_challenge_posted(challenge.id, self.clock())
            self.games.reminders_due.set()
        return challenge.with_changes(message_id=message_id)

    # --- challenges ---------------------------------------------------------------------

    async def accept(
        self, challenge_id: int, user_id: int, message_id: int | None,
        role_ids: Collection[int] = (),
    ) -> GameUpdate:  # fmt: skip
        """The challenged member (anyone but the challenger, for an open challenge)
        accepts: the game starts on the challenge's message. Of two members accepting an
        open challenge at once, the first stored plays; the other is told it is closed.
        Whoever takes an open challenge is held to the server's rules for who may play
        (the role, one game per member), as its challenger was.

        Raises:
            Refusal: not the challenged member, one's own open challenge, a block
                between the two, the server's rules for who may play, the limits of
                correspondence games, or the challenge is closed.
        """
        challenge = await self._pending(challenge_id)
        if challenge.opponent_id is None and user_id == challenge.challenger_id:
            raise Refusal("challenge.own")
        if challenge.opponent_id not in (None, user_id):
            raise Refusal("challenge.not_for_you", opponent=f"<@{challenge.opponent_id}>")
        await blocks.check_blocks(self.repo, user_id, challenge.challenger_id)
        if challenge.x_player == "random":
            challenger_x = self.rng.random() < 0.5
        else:
            challenger_x = challenge.x_player == "challenger"
        now = self.clock()
        game = rules.accepted_game(
            challenge, accepted_by=user_id, challenger_x=challenger_x, now=now,
            message_id=message_id,
        )  # fmt: skip
        policy = await self.policies.policy(challenge.settings_guild)
        game = rules.start_clock(game, now, policy.turn_timeout)
        taker = challenge.opponent_id is None
        if taker:
            check_role(policy, role_ids)
        locks = [("channel", challenge.channel_id), ("member", user_id)]
        if challenge.days_per_move is not None:  # both players' counts: the challenger's too
            locks.append(("member", challenge.challenger_id))
        try:
            async with self.repo.atomic() as tx:
                await tx.serialize(*sorted(locks))  # the start rules' order: channel, members
                if taker and policy.one_game_per_member:
                    running = await tx.running_game_of(challenge.guild_id, user_id)
                    if running is not None:
                        raise Refusal("start.member_busy", game=running)
                if challenge.days_per_move is not None:
                    for member in (user_id, challenge.challenger_id):
                        await self._check_correspondence(tx, member, challenge.settings_guild,
                                                         policy.correspondence_games)  # fmt: skip
                game = await tx.accept_challenge(challenge, game)
        except Conflict:
            raise Refusal("challenge.closed") from None
        log.info("game %d started: %s", game.id, describe(game))
        await self._deadline_added(game.turn_deadline)
        if game.days_per_move is not None:  # the first mover's reminder may be due
            self.games.reminders_due.set()
        return await self.games.started(game)

    async def accept_elsewhere(self, challenge_id: int, user_id: int) -> GameUpdate:
        """:meth:`accept` from outside the challenge's message (``/ttt games``): the game
        starts on that message all the same, which the caller then shows.

        Raises:
            Refusal: as :meth:`accept`.
        """
        challenge = await self._pending(challenge_id)
        return await self.accept(challenge_id, user_id, challenge.message_id)

    async def started_from(self, challenge_id: int) -> GameUpdate | None:
        """The game an accepted challenge started, as stored (for a click on the
        challenge's message after it was accepted elsewhere and that message could not
        be shown it); None for any other challenge."""
        challenge = await self.repo.get_challenge(challenge_id)
        if challenge is None or challenge.status != "accepted" or challenge.game_id is None:
            return None
        return await self.games.current(challenge.game_id)

    async def decline(self, challenge_id: int, user_id: int) -> Challenge:
        """The challenged member declines; an open challenge is withdrawn by its challenger.

        Raises:
            Refusal: someone else, or the challenge is closed.
        """
        challenge = await self._pending(challenge_id)
        if challenge.opponent_id is None and user_id != challenge.challenger_id:
            raise Refusal("challenge.only_challenger", challenger=f"<@{challenge.challenger_id}>")
        if challenge.opponent_id not in (None, user_id):
            raise Refusal("challenge.not_for_you", opponent=f"<@{challenge.opponent_id}>")
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

    async def _pending(self, challenge_id: int) -> Challenge:
        """Raises: Refusal: the challenge is unknown, answered or past its time."""
        challenge = await self.repo.get_challenge(challenge_id)
        if challenge is None or not challenge.pending:
            raise Refusal("challenge.closed")
        if challenge.expires_at <= self.clock():
            raise Refusal("challenge.closed")
        return challenge

    async def rematch(
        self, game_id: int, user_id: int, role_ids: Collection[int] = (), *,
        answer_by: float | None = None,
    ) -> GameUpdate | Challenge:  # fmt: skip
        """Same players, sides swapped: a new bot game at once, or a challenge to the other
        member at the same pace. ``answer_by`` as for :meth:`start_bot_game`.

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
                role_ids=role_ids, user_id=user_id, difficulty=self.games.level(game), first=first,
                locale=game.locale, guest=game.guest, answer_by=answer_by, variant=game.variant,
            )  # fmt: skip
        return await self.challenge(
            guild_id=game.guild_id, channel_id=game.channel_id, size=game.size,
            role_ids=role_ids, user_id=user_id, opponent_id=game.player(other(mark)),
            first=first, rematch_of=game.id, locale=game.locale, guest=game.guest,
            variant=game.variant, days_per_move=game.days_per_move,  # at the same pace
        )  # fmt: skip

    async def _check_correspondence(
        self, store: Store, user_id: int, guild_id: int | None, server_limit: int | None
    ) -> None:
        """Raises: Refusal: the member plays as many correspondence games as allowed,
        everywhere together (the process's limit), or in the server (``guild_id``: its
        own limit, ``server_limit``, where it set one; the smaller holds). It holds only
        under the member's lock, in the unit of work that stores the game (an accept's);
        a challenge's check is the quick refusal, as the game starts only when accepted."""
        if await store.correspondence_games_of(user_id) >= self.correspondence_limit:
            raise Refusal("start.correspondence_limit", member=f"<@{user_id}>",
                          limit=self.correspondence_limit)  # fmt: skip
        if guild_id is None or server_limit is None or server_limit >= self.correspondence_limit:
            return
        if await store.correspondence_games_of(user_id, guild_id) >= server_limit:
            raise Refusal("start.correspondence_server_limit", member=f"<@{user_id}>",
                          limit=server_limit)  # fmt: skip

    async def block(self, user_id: int, member_id: int) -> bool:
        """``user_id`` declines every challenge from ``member_id`` (see
        :mod:`bot.core.blocks`); False if they had already.

        Raises:
            Refusal: themselves, or the bot.
        """
        bot_user_id = self.games.bot_user_id
        return await blocks.block(self.repo, user_id, member_id, bot_user_id=bot_user_id,
                                  now=self.clock())  # fmt: skip

    async def unblock(self, user_id: int, member_id: int) -> bool:
        """Undo :meth:`block`; False if there was no such block."""
        return await blocks.unblock(self.repo, user_id, member_id)

    async def _deadline_added(self, deadline: float | None) -> None:
        await deadline_added(self.alarm, self.repo.notify, deadline, self.clock())
