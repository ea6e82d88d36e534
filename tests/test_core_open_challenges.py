"""Open challenges: anyone but the challenger may accept, the first to be stored plays."""

from __future__ import annotations

import asyncio

from bot.core.models import Challenge, GameUpdate
from bot.core.policy import ServerPolicy
from bot.core.refusals import Refusal

from core_harness import GUILD, Core, refusal_key

ALICE = 101


async def open_challenge(core: Core, **options):
    return await core.lobby.challenge(
        guild_id=GUILD, channel_id=10, user_id=ALICE, opponent_id=None, first="me", **options
    )


async def test_members_accepting_at_once_make_one_game(core: Core) -> None:
    challenge = await open_challenge(core)
    takers = range(200, 208)
    results = await asyncio.gather(
        *(core.lobby.accept(challenge.id, user, message_id=None) for user in takers),
        return_exceptions=True,
    )
    games = [r for r in results if isinstance(r, GameUpdate)]
    assert len(games) == 1, results
    assert {r.key for r in results if isinstance(r, Refusal)} == {"challenge.closed"}
    game = games[0].game
    winner = next(u for u, r in zip(takers, results, strict=True) if isinstance(r, GameUpdate))
    assert (game.player_x, game.player_o) == (ALICE, winner)  # "first: me" made alice X
    assert game.bot_side is None
    stored = await core.repo.get_challenge(challenge.id)
    assert stored is not None and (stored.status, stored.game_id) == ("accepted", game.id)
    assert stored.opponent_id is None  # the record stays an open challenge


async def test_the_challenger_cannot_accept_and_only_they_withdraw(core: Core) -> None:
    challenge = await open_challenge(core)
    assert await refusal_key(core.lobby.accept(challenge.id, ALICE, None)) == "challenge.own"
    assert await refusal_key(core.lobby.decline(challenge.id, 300)) == "challenge.only_challenger"
    withdrawn = await core.lobby.decline(challenge.id, ALICE)
    assert withdrawn.status == "declined"
    assert await refusal_key(core.lobby.accept(challenge.id, 300, None)) == "challenge.closed"


async def test_an_open_challenge_expires_like_a_named_one(core: Core) -> None:
    challenge = await open_challenge(core)
    core.clock.advance(59)
    assert await core.deadlines.expire_due() == []
    core.clock.advance(2)
    (expired,) = await core.deadlines.expire_due()
    assert isinstance(expired, Challenge)
    assert (expired.id, expired.status) == (challenge.id, "expired")
    assert await refusal_key(core.lobby.accept(challenge.id, 300, None)) == "challenge.closed"


async def test_whoever_takes_an_open_challenge_is_held_to_the_servers_rules(make_core) -> None:
    role = 555
    core: Core = await make_core(ServerPolicy(start_role=role, one_game_per_member=True))
    challenge = await open_challenge(core, role_ids=[role])
    assert await refusal_key(core.lobby.accept(challenge.id, 300, None)) == "start.role_required"
    busy = 301  # has the role, but is already playing in another channel
    await core.lobby.start_bot_game(guild_id=GUILD, channel_id=11, user_id=busy,
                                    difficulty="easy", first="me", role_ids=[role])  # fmt: skip
    assert await refusal_key(core.lobby.accept(challenge.id, busy, None, [role])) == (
        "start.member_busy"
    )
    update = await core.lobby.accept(challenge.id, 302, None, [role])
    assert {update.game.player_x, update.game.player_o} == {ALICE, 302}
