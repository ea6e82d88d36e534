"""May this member start a game or a challenge here, now? The server's rules, checked
under the channel's and the member's locks with the insert, so two starts cannot both
pass: in a transaction when a rule about the member must be read first, else in the
insert's one statement (:func:`start_game`)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from bot.core.models import Game
from bot.core.policy import ServerPolicy
from bot.core.refusals import Refusal
from bot.core.repository import Repository, Store, Transaction


def check_role(rules: ServerPolicy, role_ids: Collection[int]) -> None:
    """Raises: Refusal: the server requires a role to play that the member lacks."""
    if rules.start_role is not None and rules.start_role not in role_ids:
        raise Refusal("start.role_required", role=f"<@&{rules.start_role}>")


def check_channel(rules: ServerPolicy, channel_id: int) -> None:
    """Raises: Refusal: the server allows games in other channels only."""
    if rules.allowed_channels and channel_id not in rules.allowed_channels:
        channels = ", ".join(f"<#{c}>" for c in rules.allowed_channels)
        raise Refusal("start.channel_not_allowed", channels=channels)


async def check_player(
    tx: Transaction,
    rules: ServerPolicy,
    *,
    guild_id: int | None,
    channel_id: int,
    user_id: int,
    role_ids: Collection[int],
    now: float,
) -> None:
    """Everything but the channel's room (:func:`check_room`), with the channel's and the
    member's locks taken for the rest of the transaction.

    Raises:
        Refusal: a required role missing, a channel games are not allowed in, one game
            per member, or the start cooldown.
    """
    check_role(rules, role_ids)
    check_channel(rules, channel_id)
    await tx.serialize(*sorted([("channel", channel_id), ("member", user_id)]))
    if rules.one_game_per_member:
        running = await tx.running_game_of(guild_id, user_id)
        if running is not None:
            raise Refusal("start.member_busy", game=running)
    if rules.start_cooldown:
        last = await tx.last_start(guild_id, user_id)
        if last is not None and last + rules.start_cooldown > now:
            raise Refusal("start.cooldown", when=f"<t:{int(last + rules.start_cooldown)}:R>")


async def check_room(tx: Store, rules: ServerPolicy, channel_id: int) -> None:
    """Raises: Refusal: the channel holds as many live games as it may, or a live
    challenge waits there (each linked); correspondence games and challenges, waiting
    days, hold no channel."""
    playing, waiting = await tx.channel_load(channel_id)
    if playing >= rules.games_per_channel:
        # read again to link them: on PostgreSQL one may have ended since the count
        games = [g for g in await tx.running_games_in(channel_id) if g.days_per_move is None]
        if len(games) >= rules.games_per_channel:
            if rules.games_per_channel == 1:
                raise Refusal("start.busy_game", game=games[0])
            raise Refusal("start.channel_full", count=len(games))
    if waiting:
        challenge = await tx.pending_challenge_in(channel_id)
        if challenge is not None:
            raise Refusal("start.busy_challenge", challenge=challenge)


async def start_game(
    repo: Repository,
    rules: ServerPolicy,
    game: Game,
    *,
    user_id: int,
    role_ids: Collection[int],
    now: float,
) -> Game:
    """Store the new ``game`` its member starts, if the server's rules let them: in one
    statement, which takes the channel's lock itself, unless a rule about the member
    (one game each, the cooldown) must be read first under the member's lock, in a
    transaction with the insert.

    Raises:
        Refusal: what :func:`check_player` and :func:`check_room` say.
    """
    if rules.one_game_per_member or rules.start_cooldown:
        async with repo.atomic() as tx:
            await check_player(tx, rules, guild_id=game.guild_id, channel_id=game.channel_id,
                               user_id=user_id, role_ids=role_ids, now=now)  # fmt: skip
            return await create_game(tx, rules, game)
    check_role(rules, role_ids)
    check_channel(rules, game.channel_id)
    return await create_game(repo, rules, game, locks=[("channel", game.channel_id)])


async def create_game(
    store: Store, rules: ServerPolicy, game: Game, locks: Sequence[tuple[str, int]] = ()
) -> Game:
    """Store ``game`` if its channel has room for it, counted by the insert itself (one
    statement where :func:`check_room` and an insert would be two), which takes
    ``locks`` first; in a transaction, after :func:`check_player`.

    Raises:
        Refusal: no room (what :func:`check_room` says).
    """
    for _ in range(3):  # a game that ends between the insert and the check makes room
        stored = await store.create_game_if_room(game, rules.games_per_channel, locks)
        if stored is not None:
            return stored
        await check_room(store, rules, game.channel_id)
    raise Refusal("start.channel_full", count=rules.games_per_channel)
