"""Courtesy in correspondence games: more time once a move, honoured by the timekeeper;
draw offers accepted (a draw in the records) or lapsing; blocks between members; a
server's own limit of correspondence games. On SQLite and PostgreSQL, with a clock the
tests move across days."""

from __future__ import annotations

from bot.core.courtesy import agreed_draw, standing_offer
from bot.core.models import DAY, Ending, GameUpdate
from bot.core.policy import ServerPolicy

from core_harness import CHANNEL, GUILD, Core, member_game, play, refusal_key

ALICE, BOB, CAROL = 101, 102, 103
QUICK = ServerPolicy(turn_timeout=30, challenge_timeout=60)


async def correspondence_game(core: Core, days: int) -> int:
    """ALICE (X, to move) against BOB at ``days`` a move, accepted at once: its id."""
    challenge = await core.lobby.challenge(
        guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, opponent_id=BOB, first="me",
        days_per_move=days,
    )  # fmt: skip
    return (await core.lobby.accept(challenge.id, BOB, message_id=None)).game.id


async def test_more_time_once_a_move_and_the_timekeeper_honours_it(make_core) -> None:
    core: Core = await make_core(QUICK)
    game_id = await correspondence_game(core, 1)
    await play(core, game_id, (ALICE, 4))  # BOB to move, a day
    old = core.clock() + DAY
    assert await refusal_key(core.games.courtesy(game_id, 1, BOB, "time")) == (
        "courtesy.time_own_move"
    )
    done = await core.games.courtesy(game_id, 1, ALICE, "time")
    assert done.done == "time" and done.update.game.turn_deadline == old + DAY
    assert await refusal_key(core.games.courtesy(game_id, 1, ALICE, "time")) == (
        "courtesy.time_given"
    )
    stored = await core.repo.get_game(game_id)
    assert stored is not None and stored.turn_deadline == old + DAY
    assert stored.extra_time_ply == 1
    assert await core.deadlines.next_deadline() == old + DAY
    core.clock.advance(DAY + 60)  # past the old deadline: the game goes on
    assert await core.deadlines.expire_due() == []
    stored = await core.repo.get_game(game_id)
    assert stored is not None and stored.running
    core.clock.advance(DAY)  # past the new one: lost on time
    (update,) = await core.deadlines.expire_due()
    assert isinstance(update, GameUpdate) and update.game.ending == Ending("timeout", "X")


async def test_more_time_again_after_the_next_move(make_core) -> None:
    core: Core = await make_core(QUICK)
    game_id = await correspondence_game(core, 3)
    await core.games.courtesy(game_id, 0, BOB, "time")  # ALICE's first move: 6 days
    await play(core, game_id, (ALICE, 4))
    assert await refusal_key(core.games.courtesy(game_id, 0, ALICE, "time")) == "move.stale"
    done = await core.games.courtesy(game_id, 1, ALICE, "time")
    assert done.update.game.turn_deadline == core.clock() + 6 * DAY


async def test_a_move_after_the_old_deadline_plays_within_the_new(make_core) -> None:
    core: Core = await make_core(QUICK)
    game_id = await correspondence_game(core, 1)
    await play(core, game_id, (ALICE, 4))
    await core.games.courtesy(game_id, 1, ALICE, "time")
    core.clock.advance(DAY + 3600)
    update = await core.games.play_turn(game_id, 1, 0, BOB)
    assert update.game.running and update.game.moves == (4, 0)


async def test_a_draw_offer_accepted_is_a_draw_in_both_records(make_core) -> None:
    core: Core = await make_core(QUICK)
    game_id = await correspondence_game(core, 3)
    assert await refusal_key(core.games.courtesy(game_id, 0, ALICE, "offer")) == (
        "courtesy.draw_early"
    )
    await play(core, game_id, (ALICE, 4), (BOB, 0))
    done = await core.games.courtesy(game_id, 2, BOB, "offer")
    assert done.done == "offered" and standing_offer(done.update.game) == BOB
    assert await refusal_key(core.games.courtesy(game_id, 2, BOB, "offer")) == (
        "courtesy.draw_standing"
    )
    assert await refusal_key(core.games.courtesy(game_id, 2, BOB, "accept")) == (
        "courtesy.no_offer"
    )
    assert await refusal_key(core.games.courtesy(game_id, 2, CAROL, "accept")) == (
        "move.not_player"
    )
    done = await core.games.courtesy(game_id, 2, ALICE, "offer")  # offering back: accepts
    assert done.done == "accepted" and done.update.game.ending == Ending("draw")
    assert agreed_draw(done.update.game)
    board = await core.repo.leaderboard(GUILD, 10)
    assert sorted((r.user_id, r.wins, r.losses, r.draws) for r in board) == [
        (ALICE, 0, 0, 1),
        (BOB, 0, 0, 1),
    ]
    assert [g.id for g in await core.repo.finished_games_of(GUILD, ALICE, 10)] == [game_id]


async def test_an_offer_lapses_at_the_next_move(make_core) -> None:
    core: Core = await make_core(QUICK)
    game_id = await correspondence_game(core, 1)
    await play(core, game_id, (ALICE, 4), (BOB, 0))
    await core.games.courtesy(game_id, 2, BOB, "offer")  # BOB waits; ALICE to move
    await play(core, game_id, (ALICE, 8))
    assert await refusal_key(core.games.courtesy(game_id, 3, ALICE, "accept")) == (
        "courtesy.no_offer"
    )
    game = await core.repo.get_game(game_id)
    assert game is not None and game.running and standing_offer(game) is None
    # an offer made by the mover goes with their move, and lapses at the opponent's
    await core.games.courtesy(game_id, 3, BOB, "offer")
    await play(core, game_id, (BOB, 1))
    done = await core.games.courtesy(game_id, 4, ALICE, "accept")
    assert done.done == "accepted"


async def test_courtesy_is_for_correspondence_games_and_in_time(make_core) -> None:
    core: Core = await make_core(QUICK)
    live = await member_game(core, ALICE, BOB)
    assert await refusal_key(core.games.courtesy(live, 0, BOB, "time")) == (
        "courtesy.not_correspondence"
    )
    game_id = await correspondence_game(core, 1)
    await play(core, game_id, (ALICE, 4))
    core.clock.advance(DAY)  # BOB's day is over; no sweep yet
    assert await refusal_key(core.games.courtesy(game_id, 1, ALICE, "time")) == "courtesy.late"


async def test_a_block_refuses_challenges_both_ways_until_lifted(make_core) -> None:
    core: Core = await make_core(QUICK)

    async def challenge(user: int, opponent: int | None, channel: int = CHANNEL) -> object:
        return await core.lobby.challenge(guild_id=GUILD, channel_id=channel, user_id=user,
                                          opponent_id=opponent, first="me")  # fmt: skip

    assert await core.lobby.block(ALICE, BOB) is True
    assert await core.lobby.block(ALICE, BOB) is False
    assert await refusal_key(challenge(BOB, ALICE)) == "challenge.not_accepted"
    assert await refusal_key(challenge(ALICE, BOB)) == "block.yours"
    assert await refusal_key(core.lobby.block(ALICE, ALICE)) == "block.self"
    open_one = await challenge(BOB, None)
    assert await refusal_key(core.lobby.accept(open_one.id, ALICE, None)) == "block.yours"
    await core.lobby.decline(open_one.id, BOB)
    open_two = await challenge(ALICE, None, CHANNEL + 1)
    assert await refusal_key(core.lobby.accept(open_two.id, BOB, None)) == (
        "challenge.not_accepted"
    )
    assert (await core.lobby.accept(open_two.id, CAROL, None)).game.running
    assert await core.lobby.unblock(ALICE, BOB) is True
    assert await core.lobby.unblock(ALICE, BOB) is False
    assert (await challenge(BOB, ALICE, CHANNEL + 2)).pending


async def test_forget_me_deletes_the_members_own_blocks(make_core) -> None:
    core: Core = await make_core(QUICK)
    await core.lobby.block(ALICE, BOB)
    await core.lobby.block(CAROL, ALICE)
    await core.repo.forget_player(ALICE)
    assert await core.repo.blockers_between(ALICE, BOB) == set()
    assert await core.repo.blockers_between(ALICE, CAROL) == {CAROL}  # CAROL's choice


async def test_a_servers_own_limit_refuses_the_next_game(make_core) -> None:
    core: Core = await make_core(QUICK)
    await core.games.policies.configure(GUILD, {"correspondence_games": 1})
    await correspondence_game(core, 1)
    refused = core.lobby.challenge(guild_id=GUILD, channel_id=CHANNEL + 1, user_id=ALICE,
                                   opponent_id=CAROL, first="me", days_per_move=3)  # fmt: skip
    assert await refusal_key(refused) == "start.correspondence_server_limit"
    elsewhere = await core.lobby.challenge(guild_id=GUILD + 1, channel_id=CHANNEL + 2,
                                           user_id=ALICE, opponent_id=CAROL, first="me",
                                           days_per_move=3)  # fmt: skip
    assert elsewhere.pending  # another server's games are not this one's to count
