"""The game service's rules for moves, without Discord: who may move, stale boards, the
bot's reply in the same call, resigning, rematches, abandoning."""

from __future__ import annotations

import asyncio

import pytest

from bot.core.models import Ending, GameUpdate
from bot.core.refusals import Refusal
from bot.core.repository import Conflict
from engine import Board, solve

from core_harness import BOT, CHANNEL, GUILD, Core, member_game, play, refusal_key

ALICE, BOB, CAROL = 101, 102, 103


async def test_only_the_player_to_move_moves_on_the_board_they_saw(core: Core) -> None:
    game_id = await member_game(core, ALICE, BOB)
    games = core.games
    assert await refusal_key(games.play_turn(game_id, 0, 4, CAROL)) == "move.not_player"
    assert await refusal_key(games.play_turn(game_id, 0, 4, BOB)) == "move.not_your_turn"
    update = await games.play_turn(game_id, 0, 4, ALICE)
    assert update.game.moves == (4,) and update.game.turn_deadline == core.clock() + 300
    assert await refusal_key(games.play_turn(game_id, 0, 0, BOB)) == "move.stale"  # ply 0 is gone
    assert await refusal_key(games.play_turn(game_id, 1, 4, BOB)) == "move.taken"
    stored = await core.repo.get_game(game_id)
    assert stored is not None and stored.moves == (4,)


async def test_a_line_finishes_the_game_and_later_moves_are_refused(core: Core) -> None:
    game_id = await member_game(core, ALICE, BOB)
    await play(core, game_id, (ALICE, 0), (BOB, 3), (ALICE, 1), (BOB, 4), (ALICE, 2))
    game = await core.repo.get_game(game_id)
    assert game is not None and game.ending == Ending("line", "X")
    assert game.turn_deadline is None and game.finished_at == core.clock()
    assert await refusal_key(core.games.play_turn(game_id, 5, 8, BOB)) == "move.over"


async def test_the_compare_and_set_refuses_a_write_from_an_older_ply(core: Core) -> None:
    game_id = await member_game(core, ALICE, BOB)
    before = await core.repo.get_game(game_id)
    assert before is not None
    await play(core, game_id, (ALICE, 4))
    with pytest.raises(Conflict):  # a second writer that read ply 0 loses
        await core.repo.save_game(before.with_changes(moves=(0,)), expected_ply=0)
    after = await core.repo.get_game(game_id)
    assert after is not None and after.moves == (4,)


async def test_a_click_against_the_bot_stores_the_move_and_the_reply(core: Core) -> None:
    update = await core.lobby.start_bot_game(
        guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, difficulty="unbeatable", first="me"
    )
    game = (await core.games.play_turn(update.game.id, 0, 0, ALICE)).game
    assert len(game.moves) == 2 and game.moves[0] == 0
    assert game.board.to_move == "X" and game.turn_deadline is not None
    # the reply keeps the draw: unbeatable answers a corner with the centre
    assert game.moves[1] == 4 and solve(Board.new().play(0).play(4)) == 0


async def test_a_slow_reply_shows_the_members_move_first(make_core) -> None:
    core = await make_core(patience=0.0)  # any search is "slow"
    update = await core.lobby.start_bot_game(
        guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, difficulty="hard", first="me"
    )
    early: list[GameUpdate] = []

    async def show_early(shown: GameUpdate) -> None:
        early.append(shown)

    final = await core.games.play_turn(update.game.id, 0, 8, ALICE, show_early=show_early)
    assert [u.game.moves for u in early] == [(8,)]
    assert final.game.moves[:1] == (8,) and final.game.ply == 2


async def test_a_click_that_came_late_waits_for_no_reply(make_core) -> None:
    """However patient the bot, a click whose answer is due already (it reached the bot
    late on a busy machine) shows the member's move at once and the reply after."""
    core = await make_core(patience=60.0)
    update = await core.lobby.start_bot_game(
        guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, difficulty="hard", first="me"
    )
    early: list[GameUpdate] = []

    async def show_early(shown: GameUpdate) -> None:
        early.append(shown)

    final = await core.games.play_turn(
        update.game.id, 0, 8, ALICE, show_early=show_early, answer_by=core.clock() - 0.5
    )
    assert [u.game.moves for u in early] == [(8,)]
    assert final.game.moves[:1] == (8,) and final.game.ply == 2
    # in time, the same patience waits for the reply and shows both moves at once
    final = await core.games.play_turn(
        update.game.id, 2, final.game.board.legal_moves()[0], ALICE, show_early=show_early,
        answer_by=core.clock() + 30,
    )  # fmt: skip
    assert len(early) == 1 and final.game.ply == 4


async def test_the_bot_moves_first_when_the_member_chose_second(core: Core) -> None:
    update = await core.lobby.start_bot_game(
        guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, difficulty="easy", first="opponent"
    )
    game = update.game
    assert game.player_x == BOT and game.bot_side == "X" and game.ply == 1
    assert game.mark_of(ALICE) == "O" and game.mark_of(BOT) is None


async def test_resign_by_command_or_button(core: Core) -> None:
    first = await member_game(core, ALICE, BOB)
    assert await refusal_key(core.games.resign(CAROL, channel_id=CHANNEL)) == "resign.none"
    update = await core.games.resign(BOB, channel_id=CHANNEL)
    assert update.game.id == first and update.game.ending == Ending("resign", "X")
    second = await member_game(core, ALICE, BOB)
    assert await refusal_key(core.games.resign(CAROL, game_id=second)) == "move.not_player"
    update = await core.games.resign(ALICE, game_id=second)
    assert update.game.ending == Ending("resign", "O")


async def test_a_rematch_swaps_sides(core: Core) -> None:
    game_id = await member_game(core, ALICE, BOB)
    assert await refusal_key(core.lobby.rematch(game_id, ALICE)) == "rematch.running"
    await core.games.resign(ALICE, game_id=game_id)
    assert await refusal_key(core.lobby.rematch(game_id, CAROL)) == "rematch.not_player"
    challenge = await core.lobby.rematch(game_id, ALICE)
    assert not isinstance(challenge, GameUpdate)
    assert challenge.challenger_id == ALICE and challenge.opponent_id == BOB
    assert challenge.x_player == "opponent" and challenge.rematch_of == game_id  # BOB was O


async def test_an_abandoned_game_has_no_result_and_frees_the_channel(core: Core) -> None:
    game_id = await member_game(core, ALICE, BOB)
    assert await refusal_key(member_game(core, CAROL, BOB)) == "start.busy_game"
    ended = await core.games.abandon(game_id)
    assert ended is not None and ended.ending == Ending("abandoned")
    assert ended.ending.result is None and await core.games.abandon(game_id) is None
    assert await core.repo.leaderboard(GUILD, 10) == []  # nobody rated
    await member_game(core, CAROL, BOB)


async def test_a_double_click_applies_once(core: Core) -> None:
    game_id = await member_game(core, ALICE, BOB)
    results = await asyncio.gather(
        core.games.play_turn(game_id, 0, 4, ALICE),
        core.games.play_turn(game_id, 0, 4, ALICE),
        return_exceptions=True,
    )
    assert sum(isinstance(r, GameUpdate) for r in results) == 1
    assert [r.key for r in results if isinstance(r, Refusal)] == ["move.stale"]
