"""Hints in the core, on SQLite and PostgreSQL: who may ask, the game marked as played
with a hint, kept out of the best records, and safe against a move stored at once by
another process."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from bot.core import rules
from bot.core.refusals import Refusal
from bot.core.variants import advise_here
from engine import Board

from core_harness import CHANNEL, GUILD, Core, member_game, refusal_key

ALICE, BOB = 101, 102


async def two_processes(make_core: Callable[..., object], database: Path | str, **options):  # type: ignore[no-untyped-def]
    """Two cores sharing the database as two processes would (PostgreSQL); on SQLite,
    which one process owns, the same core twice: the race is then between its tasks."""
    first: Core = await make_core(**options)  # type: ignore[operator]
    if isinstance(database, Path):
        return first, first
    return first, await make_core()  # type: ignore[operator]


async def bot_game(core: Core, user: int = ALICE, size: int = 3, channel: int = CHANNEL) -> int:
    update = await core.lobby.start_bot_game(
        guild_id=GUILD, channel_id=channel, user_id=user, difficulty="hard", first="me",
        size=size,
    )  # fmt: skip
    return update.game.id


async def best_record(core: Core, user: int) -> tuple[int, int, int] | None:
    for record in await core.repo.best_against_bot(GUILD, "hard", 10):
        if record.user_id == user:
            return record.wins, record.losses, record.draws
    return None


async def test_a_hint_marks_the_game_and_keeps_it_out_of_the_best_records(core: Core) -> None:
    hinted = await bot_game(core, ALICE)
    update, hint = await core.games.hint(hinted, 0, ALICE)
    # every square of the empty board keeps the draw, and the member plays X
    assert (hint.mark, hint.value, hint.cells()) == ("X", 0, tuple(range(9)))
    assert update.game.hinted and update.hints
    assert (await core.repo.get_game(hinted)).hinted  # type: ignore[union-attr]
    await core.games.resign(ALICE, game_id=hinted)
    plain = await bot_game(core, BOB)
    await core.games.resign(BOB, game_id=plain)
    assert await best_record(core, ALICE) is None
    assert await best_record(core, BOB) == (0, 1, 0)
    (finished,) = await core.repo.finished_games_of(GUILD, ALICE)
    assert finished.hinted and not (await core.repo.get_game(plain)).hinted  # type: ignore[union-attr]


async def test_hint_reasons_follow_the_board(core: Core) -> None:
    game_id = await bot_game(core)
    game = await core.repo.get_game(game_id)
    assert game is not None
    await core.games.play_turn(game_id, 0, 0, ALICE)  # a corner: hard must take the centre
    game = await core.repo.get_game(game_id)
    assert game is not None and game.moves[1] == 4
    await core.games.play_turn(game_id, 2, 8, ALICE)  # the opposite corner: hard takes an edge
    game = await core.repo.get_game(game_id)
    assert game is not None
    edge = game.moves[3]
    assert edge in (1, 3, 5, 7)
    _, hint = await core.games.hint(game_id, 4, ALICE)
    # the bot threatens the edge across the centre; blocking it is the only draw
    assert [(s.cell, s.reason) for s in hint.squares] == [(8 - edge, "block")]
    assert hint.value == 0


async def test_who_may_ask_for_a_hint(core: Core) -> None:
    game_id = await bot_game(core)
    assert await refusal_key(core.games.hint(game_id, 0, BOB)) == "hint.not_player"
    assert await refusal_key(core.games.hint(game_id, 1, ALICE)) == "move.stale"
    # the member's move stored, the bot's reply not yet (it is thinking): not their turn
    game = await core.repo.get_game(game_id)
    assert game is not None
    await core.repo.save_game(rules.advance(game, 4, core.clock(), 300), expected_ply=0)
    assert await refusal_key(core.games.hint(game_id, 1, ALICE)) == "move.not_your_turn"
    members = await member_game(core, ALICE, BOB, channel=CHANNEL + 1)
    assert await refusal_key(core.games.hint(members, 0, ALICE)) == "hint.bot_games"
    finished = await bot_game(core, BOB, channel=CHANNEL + 2)
    await core.games.resign(BOB, game_id=finished)
    assert await refusal_key(core.games.hint(finished, 0, BOB)) == "move.over"
    assert await refusal_key(core.games.hint(12345, 0, BOB)) == "game.unknown"
    # a server that turned hints off (/ttt config): nobody may ask, and no game is marked
    other = await bot_game(core, BOB, channel=CHANNEL + 3)
    await core.games.policies.configure(GUILD, {"hints": False})
    assert await refusal_key(core.games.hint(other, 0, BOB)) == "hint.off"
    for game_id in (members, other):
        assert not (await core.repo.get_game(game_id)).hinted  # type: ignore[union-attr]


async def test_a_move_stored_during_the_search_voids_the_hint(
    make_core: Callable[..., object], database: Path | str
) -> None:
    """Another process stores the member's move (a second click) while the hint is being
    worked out: the hint is refused as stale and the game stays unmarked."""

    async def racing(board: Board):  # type: ignore[no-untyped-def]
        await other.games.play_turn(game_id, 0, 5, ALICE)
        return await advise_here(board)

    core, other = await two_processes(make_core, database, advise=racing)
    game_id = await bot_game(core, size=4)
    assert await refusal_key(core.games.hint(game_id, 0, ALICE)) == "move.stale"
    game = await core.repo.get_game(game_id)
    assert game is not None and game.ply == 2 and not game.hinted


async def test_a_hint_marked_elsewhere_holds_when_the_game_ends(
    make_core: Callable[..., object], database: Path | str
) -> None:
    """One process read the game before another marked it; its finishing write still
    leaves the game out of the best records, because the mark is read as stored."""
    first, second = await two_processes(make_core, database)
    game_id = await bot_game(first)
    read_before = await second.repo.get_game(game_id)
    assert read_before is not None and not read_before.hinted
    await first.games.hint(game_id, 0, ALICE)
    ended = rules.ended(read_before, "resign", "X", second.clock())
    await second.repo.save_game(ended, expected_ply=0)
    assert await best_record(first, ALICE) is None


async def after_yields(count: int, call):  # type: ignore[no-untyped-def]
    """``call`` once the event loop has run others ``count`` times: the hint starts a
    little later in each trial, so it lands before, amid and after the move."""
    for _ in range(count):
        await asyncio.sleep(0)
    return await call


async def test_hints_and_moves_at_once_never_disagree_with_the_records(
    make_core: Callable[..., object], database: Path | str
) -> None:
    """A hint and a move of the same board, at once, from two processes: either the hint
    is shown and the game is marked, or it is refused and the game is not; the records
    count exactly the unmarked games."""
    first, second = await two_processes(make_core, database)
    shown = 0
    for trial in range(12):
        game_id = await bot_game(first, channel=CHANNEL + trial)
        hint, move = await asyncio.gather(
            after_yields(trial * trial, first.games.hint(game_id, 0, ALICE)),
            second.games.play_turn(game_id, 0, 4, ALICE),
            return_exceptions=True,
        )
        assert not isinstance(move, BaseException), move
        game = await first.repo.get_game(game_id)
        assert game is not None
        if isinstance(hint, Refusal):
            assert hint.key == "move.stale" and not game.hinted
        else:
            assert not isinstance(hint, BaseException), hint
            assert game.hinted
            shown += 1
        await first.games.resign(ALICE, game_id=game_id)
    unmarked = 12 - shown
    assert await best_record(first, ALICE) == ((0, unmarked, 0) if unmarked else None)
