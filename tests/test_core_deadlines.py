"""Turn timeouts and challenge expiries with an injected clock: no test here sleeps."""

from __future__ import annotations

import pytest

from bot.core.models import Ending, GameUpdate
from bot.core.policy import ServerPolicy
from bot.core.refusals import Refusal

from core_harness import CHANNEL, GUILD, Core, FakeClock, member_game, play

ALICE, BOB = 101, 102
QUICK = ServerPolicy(turn_timeout=30, challenge_timeout=60)


async def test_the_mover_who_lets_the_turn_run_out_loses(make_core) -> None:
    core: Core = await make_core(QUICK)
    game_id = await member_game(core, ALICE, BOB)
    await play(core, game_id, (ALICE, 4))  # BOB (O) to move, 30 s from now
    assert await core.deadlines.next_deadline() == core.clock() + 30
    core.clock.advance(29.9)
    assert await core.deadlines.expire_due() == []
    core.clock.advance(0.1)
    (update,) = await core.deadlines.expire_due()
    assert isinstance(update, GameUpdate) and update.game.ending == Ending("timeout", "X")
    assert [(r.user_id, r.wins) for r in await core.repo.leaderboard(GUILD, 10)] == [
        (ALICE, 1), (BOB, 0),
    ]  # fmt: skip
    assert await core.deadlines.expire_due() == []  # resolved once
    assert await core.deadlines.next_deadline() is None


async def test_each_move_restarts_the_clock(make_core) -> None:
    core: Core = await make_core(QUICK)
    game_id = await member_game(core, ALICE, BOB)
    core.clock.advance(25)
    await play(core, game_id, (ALICE, 4))
    core.clock.advance(25)  # 50 s since the start, 25 s into BOB's turn
    assert await core.deadlines.expire_due() == []
    game = await core.repo.get_game(game_id)
    assert game is not None and game.running


async def test_the_bot_has_no_clock(make_core) -> None:
    core: Core = await make_core(QUICK)
    update = await core.lobby.start_bot_game(
        guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, difficulty="easy", first="opponent"
    )
    assert update.game.turn_deadline == core.clock() + 30  # the bot moved; ALICE's turn


async def test_an_unanswered_challenge_expires_and_cannot_be_accepted(make_core) -> None:
    core: Core = await make_core(QUICK)
    challenge = await core.lobby.challenge(
        guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, opponent_id=BOB, first="me"
    )
    core.clock.advance(60)
    with pytest.raises(Refusal) as info:  # expired, even before the timekeeper ran
        await core.lobby.accept(challenge.id, BOB, None)
    assert info.value.key == "challenge.closed"
    (expired,) = await core.deadlines.expire_due()
    assert not isinstance(expired, GameUpdate) and expired.status == "expired"
    await member_game(core, ALICE, BOB)  # the channel is free again


async def test_deadlines_survive_a_restart(make_core, tmp_path) -> None:
    clock = FakeClock()
    before: Core = await make_core(QUICK, clock=clock)
    due = await member_game(before, ALICE, BOB, channel=1)
    ahead = await member_game(before, ALICE, BOB, channel=2)
    clock.advance(20)
    await play(before, ahead, (ALICE, 0))  # its clock restarts: 30 s from t=20
    await before.repo.close()
    clock.advance(15)  # down for 15 s: t=35
    after: Core = await make_core(QUICK, clock=clock)  # same file, a new process's core
    (update,) = await after.deadlines.expire_due()
    assert isinstance(update, GameUpdate) and update.game.id == due
    assert update.game.ending == Ending("timeout", "O")  # ALICE (X) never moved
    assert await after.deadlines.next_deadline() == clock() + 15  # the original time
    clock.advance(15)
    (update,) = await after.deadlines.expire_due()
    assert isinstance(update, GameUpdate) and update.game.id == ahead


async def test_a_bot_move_a_crash_interrupted_is_made_at_start(core: Core) -> None:
    update = await core.lobby.start_bot_game(
        guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, difficulty="hard", first="me"
    )
    game = update.game
    # the member's move stored, then the process died before the bot's reply
    await core.repo.save_game(game.with_changes(moves=(4,), turn_deadline=None), expected_ply=0)
    (resumed,) = await core.deadlines.resume_bot_turns()
    assert resumed.game.moves[0] == 4 and resumed.game.ply == 2
    assert await core.deadlines.resume_bot_turns() == []
