"""The server's start rules, checked in the same transaction as the insert: busy
channels, games per channel, one game per member, cooldowns, roles, channels."""

from __future__ import annotations

import asyncio

import pytest

from bot.core import rules
from bot.core.models import GameUpdate
from bot.core.policy import ServerPolicy
from bot.core.refusals import Refusal

from core_harness import BOT, GUILD, Core, FakeClock, open_core, refusal_key

ALICE, BOB = 101, 102


def start(core: Core, user: int, channel: int = 10, **options):
    return core.lobby.start_bot_game(
        guild_id=GUILD, channel_id=channel, user_id=user, difficulty="easy", first="me",
        **options,
    )  # fmt: skip


async def test_concurrent_starts_in_one_channel_make_one_game(core: Core) -> None:
    results = await asyncio.gather(*(start(core, 100 + i) for i in range(8)),
                                   return_exceptions=True)  # fmt: skip
    assert sum(isinstance(r, GameUpdate) for r in results) == 1
    assert {r.key for r in results if isinstance(r, Refusal)} == {"start.busy_game"}
    assert len(await core.repo.running_games_in(10)) == 1


async def test_games_per_channel(make_core) -> None:
    core: Core = await make_core(ServerPolicy(games_per_channel=3))
    results = await asyncio.gather(*(start(core, 100 + i) for i in range(6)),
                                   return_exceptions=True)  # fmt: skip
    assert sum(isinstance(r, GameUpdate) for r in results) == 3
    assert await refusal_key(start(core, 200)) == "start.channel_full"


async def test_one_game_per_member_holds_across_channels_at_once(make_core) -> None:
    core: Core = await make_core(ServerPolicy(one_game_per_member=True))
    results = await asyncio.gather(*(start(core, ALICE, channel=c) for c in range(1, 7)),
                                   return_exceptions=True)  # fmt: skip
    assert sum(isinstance(r, GameUpdate) for r in results) == 1
    assert {r.key for r in results if isinstance(r, Refusal)} == {"start.member_busy"}


async def test_a_pending_challenge_keeps_the_channel(core: Core) -> None:
    await core.lobby.challenge(
        guild_id=GUILD, channel_id=10, user_id=ALICE, opponent_id=BOB, first="me"
    )
    assert await refusal_key(start(core, 300)) == "start.busy_challenge"
    assert await refusal_key(core.lobby.challenge(
        guild_id=GUILD, channel_id=11, user_id=ALICE, opponent_id=ALICE, first="me"
    )) == "start.self"  # fmt: skip


async def test_the_start_cooldown(make_core) -> None:
    core: Core = await make_core(ServerPolicy(start_cooldown=30))
    update = await start(core, ALICE)
    await core.games.resign(ALICE, game_id=update.game.id)
    core.clock.advance(29)
    with pytest.raises(Refusal) as info:
        await start(core, ALICE)
    assert info.value.key == "start.cooldown"
    assert info.value.params["when"] == f"<t:{int(core.clock() + 1)}:R>"
    core.clock.advance(1)
    await start(core, ALICE)


async def test_role_and_channel_rules(make_core) -> None:
    core: Core = await make_core(ServerPolicy(start_role=77, allowed_channels=(10, 12)))
    assert await refusal_key(start(core, ALICE, role_ids=[5])) == "start.role_required"
    assert await refusal_key(start(core, ALICE, channel=11, role_ids=[77])) == (
        "start.channel_not_allowed"
    )
    await start(core, ALICE, channel=12, role_ids=[5, 77])


async def test_a_servers_choices_override_the_defaults(core: Core) -> None:
    policies = core.games.policies
    await policies.configure(GUILD, {"games_per_channel": 2, "emoji_set": "hearts"})
    update = await start(core, ALICE)
    assert (update.marks.x, update.marks.o) == ("❤️", "💙")
    await start(core, BOB)  # a second game fits now
    await policies.configure(GUILD, {"games_per_channel": None})  # back to the default
    assert (await policies.policy(GUILD)).games_per_channel == 1
    assert (await policies.policy(GUILD)).emoji_set == "hearts"
    assert (await policies.policy(GUILD + 1)).emoji_set == "classic"


@pytest.mark.postgres
async def test_a_game_that_ends_between_the_insert_and_its_check_makes_room(
    pg_database: str,
) -> None:
    """The insert finds the channel full; before the check that says why, the game there
    ends in another process: the start goes ahead rather than being refused with no game
    to link."""
    clock = FakeClock()
    first, other = await open_core(pg_database, clock), await open_core(pg_database, clock)
    try:
        running = await start(first, ALICE)
        insert = first.repo.create_game_if_room

        async def racing(game, room, locks=()):  # type: ignore[no-untyped-def]
            stored = await insert(game, room, locks)
            if stored is None:  # full: the running game ends now, elsewhere
                await other.games.resign(ALICE, game_id=running.game.id)
            return stored

        first.repo.create_game_if_room = racing  # type: ignore[method-assign]
        started = await start(first, BOB)
        (game,) = await other.repo.running_games_in(10)
        assert game.id == started.game.id != running.game.id
    finally:
        await first.repo.close()
        await other.repo.close()


@pytest.mark.postgres
async def test_a_start_waits_for_the_channels_lock_and_sees_what_its_holder_stored(
    pg_database: str,
) -> None:
    """The start's one statement takes the channel's lock before it counts, and counts
    what committed before it got the lock: not what its statement saw when it began."""
    clock = FakeClock()
    core, other = await open_core(pg_database, clock), await open_core(pg_database, clock)
    try:
        async with other.repo.atomic() as tx:  # another process, in the middle of a start
            await tx.serialize(("channel", 10))
            await tx.create_game(rules.new_game(
                guild_id=GUILD, channel_id=10, size=3, now=clock(), player_x=BOB,
                player_o=BOT, bot_side="O", difficulty="easy",
            ))  # fmt: skip
            waiting = asyncio.ensure_future(start(core, ALICE))
            await asyncio.sleep(0.3)
            assert not waiting.done()  # it waits for the lock
        assert await refusal_key(waiting) == "start.busy_game"
        assert len(await core.repo.running_games_in(10)) == 1
    finally:
        await core.repo.close()
        await other.repo.close()
