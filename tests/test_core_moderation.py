"""Moderation and a game's messages without Discord: /ttt stop, a board posted again, the
turn ping's stored id (on SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio

import pytest

from bot.core.models import Ending, GameUpdate
from bot.core.policy import ServerPolicy
from bot.core.refusals import Refusal

from core_harness import BOT, CHANNEL, GUILD, Core, member_game, open_core, play, refusal_key

ALICE, BOB, CAROL, MOD = 101, 102, 103, 900


async def test_a_moderator_stops_a_game_without_a_result(core: Core) -> None:
    game_id = await member_game(core, ALICE, BOB)
    await play(core, game_id, (ALICE, 4))
    update = await core.games.stop(MOD, CHANNEL, may_moderate=True)
    game = update.game
    assert game.id == game_id and game.ending == Ending("stopped")
    assert game.ending.result is None and game.score_of(ALICE) is None
    stored = await core.repo.get_game(game_id)
    assert stored is not None and stored.stopped_by == MOD and stored.moves == (4,)
    assert await core.repo.leaderboard(GUILD, 10) == []  # nobody rated
    assert [g.id for g in await core.repo.finished_games_of(GUILD, ALICE)] == [game_id]
    assert await refusal_key(core.games.play_turn(game_id, 1, 0, BOB)) == "move.over"


async def test_only_moderators_stop_games_and_only_running_ones(core: Core) -> None:
    assert await refusal_key(core.games.stop(MOD, CHANNEL, may_moderate=True)) == "stop.none"
    game_id = await member_game(core, ALICE, BOB)
    refused = core.games.stop(ALICE, CHANNEL, may_moderate=False)
    assert await refusal_key(refused) == "stop.not_moderator"
    own = core.games.stop(ALICE, CHANNEL, may_moderate=True)  # a moderator in the game
    assert await refusal_key(own) == "stop.own_game"
    stored = await core.repo.get_game(game_id)
    assert stored is not None and stored.running


async def test_with_several_games_the_member_says_which(make_core) -> None:
    core = await make_core(ServerPolicy(games_per_channel=3))
    first = await member_game(core, ALICE, BOB)
    second = await member_game(core, CAROL, MOD)
    with pytest.raises(Refusal) as caught:
        await core.games.stop(MOD, CHANNEL, may_moderate=True)
    assert caught.value.key == "stop.which" and caught.value.params["count"] == 2
    assert [g.id for g in caught.value.params["games"]] == [first, second]  # type: ignore[attr-defined]
    missing = core.games.stop(MOD, CHANNEL, may_moderate=True, member_id=BOT)
    assert await refusal_key(missing) == "stop.member_none"
    update = await core.games.stop(MOD, CHANNEL, may_moderate=True, member_id=BOB)
    assert update.game.id == first
    still = await core.repo.get_game(second)
    assert still is not None and still.running


async def test_a_stop_and_a_move_at_once_both_hold(core: Core) -> None:
    game_id = await member_game(core, ALICE, BOB)
    results = await asyncio.gather(
        core.games.play_turn(game_id, 0, 4, ALICE),
        core.games.stop(MOD, CHANNEL, may_moderate=True),
        return_exceptions=True,
    )
    assert not [r for r in results if isinstance(r, Exception) and not isinstance(r, Refusal)]
    stored = await core.repo.get_game(game_id)
    assert stored is not None and stored.ending == Ending("stopped")
    assert stored.moves in ((), (4,))


@pytest.mark.postgres
async def test_a_stop_in_one_process_and_a_move_in_another(pg_database: str) -> None:
    from core_harness import FakeClock

    clock = FakeClock()
    first, second = (await open_core(pg_database, clock), await open_core(pg_database, clock))
    try:
        game_id = await member_game(first, ALICE, BOB)
        results = await asyncio.gather(
            first.games.play_turn(game_id, 0, 4, ALICE),
            second.games.stop(MOD, CHANNEL, may_moderate=True),
            return_exceptions=True,
        )
        assert not [r for r in results if isinstance(r, Exception) and not isinstance(r, Refusal)]
        stored = await first.repo.get_game(game_id)
        assert stored is not None and stored.ending == Ending("stopped")
        assert stored.stopped_by == MOD
    finally:
        await first.repo.close()
        await second.repo.close()


async def test_a_board_posted_again_takes_over_from_the_old_one(core: Core) -> None:
    messages = core.messages
    game_id = await member_game(core, ALICE, BOB)
    await core.repo.set_game_message(game_id, 5000)
    assert await refusal_key(messages.repost(CAROL, CHANNEL, _post(5001))) == "repost.none"
    reposted = await messages.repost(BOB, CHANNEL, _post(5002))
    assert reposted.live and reposted.old_message_id == 5000
    assert reposted.update.game.message_id == 5002
    old_board = core.games.play_turn(game_id, 0, 4, ALICE, message_id=5000)
    assert await refusal_key(old_board) == "move.moved"
    old_resign = core.games.resign(BOB, game_id=game_id, message_id=5000)
    assert await refusal_key(old_resign) == "move.moved"
    await core.games.play_turn(game_id, 0, 4, ALICE, message_id=5002)
    # another process's board, posted from a stale read, does not take over
    assert not await core.repo.move_game_message(game_id, 5000, 5003)
    stored = await core.repo.get_game(game_id)
    assert stored is not None and stored.message_id == 5002


async def test_a_taken_square_on_the_old_board_is_refused_as_a_board_posted_again(
    core: Core,
) -> None:
    """The process that posted the board again forgets the old message at once: a click
    on it is "posted again", not "taken", even where the square is taken."""
    game_id = await member_game(core, ALICE, BOB)
    game = await core.repo.get_game(game_id)
    assert game is not None
    await core.games.attach_game_message(game, 5000)
    await core.games.play_turn(game_id, 0, 4, ALICE, message_id=5000)  # remembered
    await core.messages.repost(BOB, CHANNEL, _post(5002))
    taken = core.games.play_turn(game_id, 1, 4, BOB, message_id=5000)
    assert await refusal_key(taken) == "move.moved"


def _post(message_id: int):
    async def post(update: GameUpdate) -> int:
        return message_id

    return post


async def test_the_turn_ping_is_kept_for_its_move_and_taken_once(make_core) -> None:
    core = await make_core(ServerPolicy(turn_ping=True))
    messages = core.messages
    game_id = await member_game(core, ALICE, BOB)
    game = await core.repo.get_game(game_id)
    assert game is not None
    assert await messages.ping_due(game) == ALICE  # X moves first
    assert await messages.ping_due(game, actor_id=ALICE) is None  # the one who just acted
    assert await messages.keep_ping(game, 7000)
    await play(core, game_id, (ALICE, 4))
    assert not await messages.keep_ping(game, 7001)  # sent for a move that is past
    moved = await core.repo.get_game(game_id)
    assert moved is not None and moved.ping_message_id == 7000
    assert await messages.ping_due(moved, actor_id=ALICE) == BOB
    assert await messages.take_ping(moved) == 7000
    assert await messages.take_ping(moved) is None  # one taker deletes it
    ended = await core.games.resign(BOB, game_id=game_id)
    assert await messages.ping_due(ended.game) is None


async def test_no_ping_against_the_bot(make_core) -> None:
    core = await make_core(ServerPolicy(turn_ping=True))
    update = await core.lobby.start_bot_game(
        guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, difficulty="easy", first="me"
    )
    messages = core.messages
    assert await messages.ping_due(update.game) is None
    assert await messages.take_ping(update.game) is None


async def test_no_ping_when_the_server_has_it_off(make_core) -> None:
    off = await make_core(ServerPolicy(turn_ping=False))
    game_id = await member_game(off, BOB, CAROL)
    game = await off.repo.get_game(game_id)
    assert game is not None and await off.messages.ping_due(game) is None
