"""Ultimate in members' records and tournaments, on both backends: a tournament of
ultimate plays ultimate games, seeds by the ultimate ratings and rates its games there
(never in the classic boards' ratings), and a review of an ultimate game is the
engine's, not the exact search built for the classic boards, listed in the order played."""

from __future__ import annotations

import pytest
from test_core_tournament_service import ORGANISER, create, ready_all
from test_core_ultimate import X_WINS, ultimate_member_game
from ultimate_harness import DRAW

from bot.core import rules
from bot.core.engine_advice import REVIEW_TOP, engine_review
from bot.core.models import Ending
from bot.core.rating import INITIAL_RATING
from bot.core.records import Review
from bot.discord_ui.render_ultimate import review_text
from engine.ultimate.review import review_game

from core_harness import GUILD, Core, independent_elo, member_game, play, refusal_key

ALICE, BOB = 101, 102


async def test_an_ultimate_tournament_is_seeded_and_rated_in_the_ultimate_ratings(
    core: Core,
) -> None:
    # Bob leads the classic ratings, Alice the ultimate ones
    classic_id = await member_game(core, BOB, ALICE)
    await play(core, classic_id, (BOB, 0), (ALICE, 3), (BOB, 1), (ALICE, 4), (BOB, 2))
    ultimate_id = await ultimate_member_game(core, ALICE, BOB)
    await core.games.resign(BOB, game_id=ultimate_id)
    view = await create(core, "single", [BOB, ALICE], size=4, variant="ultimate")
    t = view.tournament
    assert (t.variant, t.size) == ("ultimate", 9)  # the size asked for is ignored
    stored = await core.repo.get_tournament(t.id)
    assert stored is not None and (stored.variant, stored.size) == ("ultimate", 9)

    view = await core.tournaments.start(t.channel_id, ORGANISER, may_manage=True)
    assert view.seeds == [ALICE, BOB]  # by the ultimate ratings, not the classic ones
    view = await ready_all(core, view)
    (game,) = view.new_games
    assert (game.variant, game.size, game.k) == ("ultimate", 9, 3)
    assert (game.player_x, game.player_o) == (ALICE, BOB)  # the top seed is X
    await play(core, game.id, *((ALICE, c) if i % 2 == 0 else (BOB, c)
                                for i, c in enumerate(X_WINS)))  # fmt: skip
    ended = await core.repo.get_game(game.id)
    assert ended is not None and ended.ending == Ending("line", "X")
    after = await core.tournaments.game_ended(ended)
    assert after is not None and after.tournament.champion == ALICE

    # two ultimate wins for Alice (the resignation, then the final), Elo worked out here
    alice, bob = independent_elo(INITIAL_RATING, INITIAL_RATING, 1.0)
    alice, bob = independent_elo(alice, bob, 1.0)
    board = await core.records.leaderboard(GUILD, BOB, "ultimate")
    assert board.variant == "ultimate"
    assert [(r.user_id, r.rating, r.wins, r.losses) for r in board.top] == [
        (ALICE, pytest.approx(alice), 2, 0), (BOB, pytest.approx(bob), 0, 2),
    ]  # fmt: skip
    classic = await core.records.leaderboard(GUILD, BOB)
    assert classic.variant == "classic"
    assert [(r.user_id, r.wins, r.losses) for r in classic.top] == [(BOB, 1, 0), (ALICE, 0, 1)]
    stats = await core.records.stats(GUILD, ALICE, variant="ultimate")
    assert stats.variant == "ultimate" and str(stats.total) == "2-0-0"
    assert stats.ratings == pytest.approx((INITIAL_RATING, 1016.0, alice))
    # history has every game, the tournament's ultimate game first
    (newest, *_rest) = await core.records.history(GUILD, ALICE)
    assert newest.id == game.id and newest.tournament_match_id is not None
    assert newest.variant == "ultimate"


async def test_an_ultimate_game_is_reviewed_by_the_engine_not_the_exact_search(
    core: Core,
) -> None:
    game_id = await ultimate_member_game(core, ALICE, BOB)
    await play(core, game_id, *((ALICE, c) if i % 2 == 0 else (BOB, c)
                                for i, c in enumerate(X_WINS)))  # fmt: skip
    review = await core.records.review(GUILD, BOB)
    assert review.game.id == game_id and review.verdicts == [] and review.judged is not None
    assert all(move.ply < len(X_WINS) for move in review.judged)
    # a classic game after it is reviewed as before
    classic_id = await member_game(core, BOB, ALICE)
    await play(core, classic_id, (BOB, 0), (ALICE, 3), (BOB, 1), (ALICE, 4), (BOB, 2))
    review = await core.records.review(GUILD, ALICE)
    assert review.game.id == classic_id and len(review.verdicts) == 5


async def test_stats_of_a_game_not_played_yet_say_which_game_is_missing(core: Core) -> None:
    assert await refusal_key(core.records.stats(GUILD, ALICE, variant="ultimate")) == "stats.none"
    ultimate_id = await ultimate_member_game(core, ALICE, BOB)
    await core.games.resign(BOB, game_id=ultimate_id)
    key = await refusal_key(core.records.stats(GUILD, ALICE))
    assert key == "stats.none_classic"  # she has played, only not on the classic boards
    classic_id = await member_game(core, 103, BOB)
    await core.games.resign(BOB, game_id=classic_id)
    assert await refusal_key(core.records.stats(GUILD, 103, variant="ultimate")) == (
        "stats.none_ultimate"
    )
    assert str((await core.records.stats(GUILD, BOB, variant="ultimate")).total) == "0-1-0"


def test_an_ultimate_review_lists_its_costliest_moves_in_the_order_played() -> None:
    """As the classic boards' review lists every move: by when it was played, not by cost
    (a fixed number of playouts a position, so the search repeats itself)."""
    by_cost = [m.ply for m in review_game(DRAW, top=REVIEW_TOP, iterations=400)]
    assert len(by_cost) == REVIEW_TOP and by_cost != sorted(by_cost)  # the test can fail
    listed = engine_review(DRAW, iterations=400)
    assert [m.ply for m in listed] == sorted(by_cost)
    game = rules.new_game(guild_id=GUILD, channel_id=1, size=9, player_x=ALICE, player_o=BOB,
                          now=0.0, variant="ultimate")  # fmt: skip
    for cell in DRAW:
        game = rules.advance(game, cell, 0.0, 60.0)
    said = review_text(Review(game, [], listed), "en").splitlines()
    numbers = [int(line.split(".")[0]) for line in said if line[:1].isdigit()]
    assert numbers == [ply + 1 for ply in sorted(by_cost)]
