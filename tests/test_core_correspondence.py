"""Correspondence games: a pace of days a move, kept on the game and its challenge, and
settled by the stored deadlines (on SQLite and PostgreSQL, with a clock the tests move)."""

from __future__ import annotations

import asyncio

from bot.core.models import DAY, Ending, GameUpdate
from bot.core.policy import ServerPolicy

from core_harness import CHANNEL, GUILD, Core, play, refusal_key

ALICE, BOB = 101, 102
QUICK = ServerPolicy(turn_timeout=30, challenge_timeout=60)


async def correspondence_game(core: Core, days: int) -> int:
    """ALICE (X, to move) against BOB at ``days`` a move, accepted at once: its id."""
    challenge = await core.lobby.challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        user_id=ALICE,
        opponent_id=BOB,
        first="me",
        days_per_move=days,
    )
    update = await core.lobby.accept(challenge.id, BOB, message_id=None)
    return update.game.id


async def test_each_move_is_due_the_pace_after_the_previous_one(make_core) -> None:
    core: Core = await make_core(QUICK)
    game_id = await correspondence_game(core, 3)
    game = await core.repo.get_game(game_id)
    assert game is not None and game.days_per_move == 3
    assert game.turn_deadline == core.clock() + 3 * DAY  # not the server's 30 s
    core.clock.advance(2 * DAY)
    await play(core, game_id, (ALICE, 4))
    assert await core.deadlines.next_deadline() == core.clock() + 3 * DAY
    core.clock.advance(3 * DAY - 1)
    assert await core.deadlines.expire_due() == []
    core.clock.advance(1)
    (update,) = await core.deadlines.expire_due()
    assert isinstance(update, GameUpdate) and update.game.ending == Ending("timeout", "X")
    assert [(r.user_id, r.wins, r.losses) for r in await core.repo.leaderboard(GUILD, 10)] == [
        (ALICE, 1, 0),
        (BOB, 0, 1),
    ]  # rated as any loss on time
    assert await core.deadlines.expire_due() == []  # settled once


async def test_a_game_nobody_moved_in_is_cancelled_unrated(make_core) -> None:
    core: Core = await make_core(QUICK)
    game_id = await correspondence_game(core, 1)
    core.clock.advance(DAY)
    (update,) = await core.deadlines.expire_due()
    assert isinstance(update, GameUpdate) and update.game.ending == Ending("abandoned")
    assert update.game.score_of(ALICE) is None and update.game.score_of(BOB) is None
    assert await core.repo.leaderboard(GUILD, 10) == []  # nobody rated
    stored = await core.repo.get_game(game_id)
    assert stored is not None and stored.ending == Ending("abandoned")


async def test_a_live_game_nobody_moved_in_is_still_lost_on_time(make_core) -> None:
    core: Core = await make_core(QUICK)
    challenge = await core.lobby.challenge(
        guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, opponent_id=BOB, first="me"
    )
    await core.lobby.accept(challenge.id, BOB, message_id=None)
    core.clock.advance(30)
    (update,) = await core.deadlines.expire_due()
    assert isinstance(update, GameUpdate) and update.game.ending == Ending("timeout", "O")


async def test_a_move_after_the_deadline_is_refused_before_the_sweep(make_core) -> None:
    core: Core = await make_core(QUICK)
    game_id = await correspondence_game(core, 1)
    await play(core, game_id, (ALICE, 4))
    core.clock.advance(DAY)  # BOB's day is over; no sweep has run yet
    assert await refusal_key(core.games.play_turn(game_id, 1, 0, BOB)) == "move.late"
    game = await core.repo.get_game(game_id)
    assert game is not None and game.moves == (4,) and game.running
    (update,) = await core.deadlines.expire_due()  # the timeout stands
    assert isinstance(update, GameUpdate) and update.game.ending == Ending("timeout", "X")


async def test_a_one_day_challenge_waits_a_day(make_core) -> None:
    core: Core = await make_core(QUICK)
    challenges = [
        await core.lobby.challenge(
            guild_id=GUILD,
            channel_id=channel,
            user_id=ALICE,
            opponent_id=BOB,
            first="me",
            days_per_move=1,
        )
        for channel in (CHANNEL, CHANNEL + 1)
    ]
    assert [c.expires_at for c in challenges] == [core.clock() + DAY] * 2  # not 60 s
    core.clock.advance(23 * 3600)
    assert await core.deadlines.expire_due() == []
    update = await core.lobby.accept(challenges[0].id, BOB, message_id=None)
    assert update.game.days_per_move == 1
    core.clock.advance(3600)  # the other one's day is over
    (expired,) = await core.deadlines.expire_due()
    assert not isinstance(expired, GameUpdate) and expired.id == challenges[1].id
    assert await refusal_key(core.lobby.accept(challenges[1].id, BOB, None)) == "challenge.closed"
    stored = await core.repo.get_challenge(challenges[1].id)
    assert stored is not None and stored.status == "expired" and stored.days_per_move == 1


async def test_no_pace_against_the_bot_and_none_unknown(make_core) -> None:
    core: Core = await make_core(QUICK)
    bot_game = core.lobby.start_bot_game(
        guild_id=GUILD,
        channel_id=CHANNEL,
        user_id=ALICE,
        difficulty="easy",
        first="me",
        days_per_move=3,
    )
    assert await refusal_key(bot_game) == "start.pace_bot"
    two_days = core.lobby.challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        user_id=ALICE,
        opponent_id=BOB,
        first="me",
        days_per_move=2,
    )
    assert await refusal_key(two_days) == "start.pace_unknown"
    assert await core.repo.running_games() == []
    assert await core.repo.pending_challenge_in(CHANNEL) is None


async def test_a_rematch_keeps_the_pace(make_core) -> None:
    core: Core = await make_core(QUICK)
    game_id = await correspondence_game(core, 7)
    await core.games.resign(BOB, game_id=game_id)
    rematch = await core.lobby.rematch(game_id, BOB)
    assert not isinstance(rematch, GameUpdate)
    assert rematch.days_per_move == 7 and rematch.expires_at == core.clock() + 7 * DAY


async def test_a_deadline_is_settled_once_across_processes_and_restarts(
    make_core, database
) -> None:
    first: Core = await make_core(QUICK)
    game_id = await correspondence_game(first, 3)
    await play(first, game_id, (ALICE, 4))
    first.clock.advance(3 * DAY)
    if isinstance(database, str):  # PostgreSQL: two processes sweep at once
        second: Core = await make_core(QUICK, clock=first.clock)
        ended = await asyncio.gather(first.deadlines.expire_due(), second.deadlines.expire_due())
        assert sum(len(changed) for changed in ended) == 1
    else:  # SQLite: one process at a time; the sweep after a restart settles it
        await first.repo.close()
        second = await make_core(QUICK, clock=first.clock)
        assert len(await second.deadlines.expire_due()) == 1
    game = await second.repo.get_game(game_id)
    assert game is not None and game.ending == Ending("timeout", "X")
    assert await second.deadlines.expire_due() == []


async def test_past_the_limit_no_correspondence_game_starts(make_core) -> None:
    core: Core = await make_core(QUICK)
    core.lobby.correspondence_limit = 1  # TTT_CORRESPONDENCE_GAMES_PER_MEMBER
    carol = 103
    game_id = await correspondence_game(core, 3)  # ALICE's one
    another = core.lobby.challenge(guild_id=GUILD, channel_id=CHANNEL + 1, user_id=ALICE,
                                   opponent_id=carol, first="me", days_per_move=1)  # fmt: skip
    assert await refusal_key(another) == "start.correspondence_limit"
    live = await core.lobby.challenge(
        guild_id=GUILD, channel_id=CHANNEL + 1, user_id=ALICE, opponent_id=carol, first="me"
    )
    await core.lobby.decline(live.id, carol)  # a live game is no correspondence game
    theirs = await core.lobby.challenge(guild_id=GUILD, channel_id=CHANNEL + 2, user_id=carol,
                                        opponent_id=ALICE, first="me", days_per_move=7)  # fmt: skip
    assert await refusal_key(core.lobby.accept(theirs.id, ALICE, None)) == (
        "start.correspondence_limit"
    )
    await core.games.resign(BOB, game_id=game_id)  # one ends: another may start
    update = await core.lobby.accept(theirs.id, ALICE, None)
    assert update.game.days_per_move == 7 and update.game.running


async def test_correspondence_games_and_challenges_hold_no_channel(make_core) -> None:
    core: Core = await make_core(QUICK)  # one game a channel, as by default
    carol, dave, erin = 103, 104, 105

    def challenge(user: int, opponent: int, days: int | None = None) -> object:
        return core.lobby.challenge(
            guild_id=GUILD, channel_id=CHANNEL, user_id=user, opponent_id=opponent,
            first="me", days_per_move=days,
        )  # fmt: skip

    waiting = await challenge(ALICE, BOB, 3)  # days: the channel is not held meanwhile
    bot_game = await core.lobby.start_bot_game(
        guild_id=GUILD, channel_id=CHANNEL, user_id=carol, difficulty="easy", first="me"
    )
    another = await challenge(dave, erin, 1)  # two correspondence challenges, one channel
    await core.lobby.accept(waiting.id, BOB, None)
    assert await refusal_key(challenge(dave, ALICE)) == "start.busy_game"  # carol's, live
    await core.games.resign(carol, game_id=bot_game.game.id)
    live = await challenge(dave, ALICE)
    assert await refusal_key(challenge(erin, carol)) == "start.busy_challenge"  # live holds
    stored = await core.repo.pending_challenges_in(CHANNEL)
    assert [c.id for c in stored] == [another.id, live.id]
    assert await core.repo.pending_challenge_in(CHANNEL) == live
