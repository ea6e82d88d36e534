"""Games in direct messages with the bot, without Discord, on both backends: their records
under the DM scope and nowhere else, the server's rules that cannot hold there, and what
is refused there."""

from __future__ import annotations

from bot.core.models import DM_SCOPE, Ending
from bot.core.policy import ServerPolicy

from core_harness import CHANNEL, GUILD, Core, refusal_key

ALICE, BOB = 101, 102
ALICE_DM, BOB_DM = 501, 502
"""Each member's DM channel with the bot."""


async def dm_game(core: Core, user: int, channel: int, difficulty: str = "easy") -> int:
    update = await core.lobby.start_bot_game(
        guild_id=None, channel_id=channel, user_id=user, difficulty=difficulty, first="me"
    )
    assert update.game.guild_id is None
    return update.game.id


async def test_dm_records_count_under_the_dm_scope_only(core: Core) -> None:
    await core.games.resign(ALICE, game_id=await dm_game(core, ALICE, ALICE_DM, "hard"))
    core.clock.advance(60)
    # a game of hers in a server, against the same level: a record of its own
    server = await core.lobby.start_bot_game(
        guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, difficulty="hard", first="me"
    )
    await core.games.resign(ALICE, game_id=server.game.id)
    core.clock.advance(60)
    await core.games.resign(ALICE, game_id=await dm_game(core, ALICE, ALICE_DM, "hard"))

    in_dms = await core.records.stats(None, ALICE, ALICE)
    assert str(in_dms.by_opponent["hard"]) == "0-2-0"
    in_server = await core.records.stats(GUILD, ALICE, ALICE)
    assert str(in_server.by_opponent["hard"]) == "0-1-0"
    history = await core.records.history(None, ALICE, ALICE)
    assert len(history) == 2 and all(g.guild_id is None for g in history)
    assert (await core.records.review_target(None, ALICE)).id == history[0].id

    (row,) = await core.repo.best_against_bot(DM_SCOPE, "hard", 5)
    assert (row.user_id, row.wins, row.losses, row.draws) == (ALICE, 0, 2, 0)
    (row,) = (await core.records.leaderboard(GUILD, ALICE)).against_bot["hard"]
    assert (row.user_id, row.losses) == (ALICE, 1)
    assert await core.repo.rank_of(DM_SCOPE, ALICE) is None  # bot games move no rating

    # a member whose only game was in a server has no DM record, and the reverse
    await core.games.resign(BOB, game_id=await dm_game(core, BOB, BOB_DM))
    assert await refusal_key(core.records.stats(GUILD, BOB, BOB)) == "stats.none"
    assert await refusal_key(core.records.history(GUILD, BOB, BOB)) == "history.none"
    assert await refusal_key(core.records.stats(None, 103, 103)) == "stats.none_dm"
    assert await refusal_key(core.records.history(None, 103, 103)) == "history.none_dm"
    assert await refusal_key(core.records.review_target(None, 103)) == "review.none_dm"


async def test_dm_records_are_their_members_alone(core: Core) -> None:
    await core.games.resign(ALICE, game_id=await dm_game(core, ALICE, ALICE_DM))
    assert await refusal_key(core.records.stats(None, ALICE, BOB)) == "dm.own_records_only"
    assert await refusal_key(core.records.history(None, ALICE, BOB)) == "dm.own_records_only"
    assert str((await core.records.stats(None, ALICE, ALICE)).total) == "0-1-0"
    assert await core.records.forget(ALICE, ALICE, confirmed=True) == 1
    assert await core.repo.best_against_bot(DM_SCOPE, "easy", 5) == []


async def test_no_challenges_in_direct_messages(core: Core) -> None:
    challenge = core.lobby.challenge(
        guild_id=None, channel_id=ALICE_DM, user_id=ALICE, opponent_id=BOB, first="me"
    )
    assert await refusal_key(challenge) == "dm.no_challenge"
    assert await core.repo.pending_challenge_in(ALICE_DM) is None


async def test_server_only_rules_do_not_hold_in_direct_messages(make_core) -> None:
    strict = ServerPolicy(allowed_channels=(CHANNEL,), start_role=7, turn_timeout=45, language="fr")
    core: Core = await make_core(strict)
    elsewhere = core.lobby.start_bot_game(
        guild_id=GUILD, channel_id=CHANNEL + 1, user_id=ALICE, difficulty="easy", first="me",
        role_ids=[7],
    )  # fmt: skip
    assert await refusal_key(elsewhere) == "start.channel_not_allowed"
    no_role = core.lobby.start_bot_game(
        guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, difficulty="easy", first="me"
    )
    assert await refusal_key(no_role) == "start.role_required"
    update = await core.lobby.start_bot_game(
        guild_id=None, channel_id=ALICE_DM, user_id=ALICE, difficulty="easy", first="me",
        locale="de",
    )  # fmt: skip
    game = update.game
    assert game.locale == "de"  # the member's language, not the default one for servers
    assert game.turn_deadline == core.clock.now + 45  # the rest holds
    # one game at a time in a DM channel, as in a server channel
    assert await refusal_key(dm_game(core, ALICE, ALICE_DM)) == "start.busy_game"
    await core.games.resign(ALICE, game_id=game.id)
    finished = await core.repo.get_game(game.id)
    assert finished is not None and finished.ending == Ending("resign", "O")
