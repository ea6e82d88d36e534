"""Ultimate moves in the core, on both backends: a square outside the small board to play
is refused as such, a look into a small board before a free move changes nothing and is
only the mover's, a forged move gets the move's own reason, and the custom_ids that
carry a board choice round-trip."""

from __future__ import annotations

from test_core_ultimate import ALICE, BOB, ultimate_member_game

from bot.discord_ui import custom_ids

from core_harness import Core, refusal_key


async def test_a_square_outside_the_board_to_play_says_so(core: Core) -> None:
    game_id = await ultimate_member_game(core, ALICE, BOB)
    await core.games.play_turn(game_id, 0, 40, ALICE)  # the centre: O is sent there
    before = await core.repo.get_game(game_id)
    assert await refusal_key(core.games.play_turn(game_id, 1, 0, BOB)) == "move.elsewhere"
    assert await refusal_key(core.games.play_turn(game_id, 1, 40, BOB)) == "move.taken"
    assert await core.repo.get_game(game_id) == before
    refusal = await core.games.refuse_move(game_id, 1, 0, BOB)
    assert (refusal.key, refusal.params) == ("move.elsewhere", {"board_key": "ultimate.board.4"})
    # a forged legal move the message did not offer is not played
    assert (await core.games.refuse_move(game_id, 1, 36, BOB)).key == "move.stale"
    assert (await core.games.refuse_move(game_id, 0, 36, BOB)).key == "move.stale"
    assert (await core.games.refuse_move(game_id, 1, 36, ALICE)).key == "move.not_your_turn"
    assert await core.repo.get_game(game_id) == before


async def test_only_the_mover_looks_into_a_board_and_nothing_is_stored(core: Core) -> None:
    game_id = await ultimate_member_game(core, ALICE, BOB)
    update = await core.games.choose_board(game_id, 0, 2, ALICE, None)
    assert update.focus == 2 and update.game.moves == ()
    back = await core.games.choose_board(game_id, 0, None, ALICE, None)
    assert back.focus is None
    assert await refusal_key(core.games.choose_board(game_id, 0, 2, BOB, None)) == (
        "move.not_your_turn"
    )
    assert await refusal_key(core.games.choose_board(game_id, 0, 2, 999_999, None)) == (
        "move.not_player"
    )
    await core.games.play_turn(game_id, 0, 40, ALICE)
    # the move is no longer free (O is sent to the centre): a choice now is forged, and
    # told where to play; an old board's choice is stale
    refusal = await core.games.refuse_board_choice(game_id, 1, 2, BOB)
    assert (refusal.key, refusal.params) == ("move.board_forced",
                                             {"board_key": "ultimate.board.4"})  # fmt: skip
    assert await refusal_key(core.games.choose_board(game_id, 1, 4, BOB, None)) == (
        "move.board_forced"
    )
    assert await refusal_key(core.games.choose_board(game_id, 0, 4, ALICE, None)) == "move.stale"
    assert (await core.games.refuse_board_choice(game_id, 0, 4, ALICE)).key == "move.stale"
    stored = await core.repo.get_game(game_id)
    assert stored is not None and stored.moves == (40,) and not stored.hinted


def test_the_board_choice_custom_ids_round_trip() -> None:
    big = 2**63 - 1
    assert custom_ids.parse(custom_ids.board(big, 81, 8)) == custom_ids.BoardClick(big, 81, 8)
    assert custom_ids.parse(custom_ids.back(big, 81)) == custom_ids.BoardClick(big, 81, None)
    assert max(len(custom_ids.board(big, 999, 8)), len(custom_ids.back(big, 999))) < 100
    for forged in ("ttt:u:1:2:9", "ttt:u:1:2", "ttt:ub:1", "ttt:ub:1:2:3"):
        assert custom_ids.parse(forged) is None
