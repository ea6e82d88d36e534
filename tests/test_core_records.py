"""Records without Discord: Elo over a series of member games (recomputed here from the
formula), bot records, stats, history, review and forget-me."""

from __future__ import annotations

import random

import pytest

from bot.core.models import Ending
from bot.core.refusals import Refusal

from core_harness import BOT, CHANNEL, GUILD, Core, independent_elo, member_game, play

MEMBERS = (101, 102, 103, 104)


async def test_elo_over_a_series_keeps_the_sum_and_matches_the_formula(core: Core) -> None:
    rng = random.Random(7)
    ratings = dict.fromkeys(MEMBERS, 1000.0)
    series: dict[int, list[float]] = {m: [1000.0] for m in MEMBERS}
    for _ in range(30):
        x, o = rng.sample(MEMBERS, 2)
        game_id = await member_game(core, x, o)
        ending = rng.choice(["x_line", "resign_o", "draw"])
        if ending == "x_line":
            await play(core, game_id, (x, 0), (o, 3), (x, 1), (o, 4), (x, 2))
            score = 1.0
        elif ending == "resign_o":
            await core.games.resign(o, game_id=game_id)
            score = 1.0
        else:  # X O X / X O O / O X X
            await play(core, game_id, (x, 0), (o, 1), (x, 2), (o, 4), (x, 3), (o, 5),
                       (x, 7), (o, 6), (x, 8))  # fmt: skip
            score = 0.5
        ratings[x], ratings[o] = independent_elo(ratings[x], ratings[o], score)
        series[x].append(ratings[x])
        series[o].append(ratings[o])
    for member in MEMBERS:  # the chart in /ttt stats: each rated game's rating, in order
        stats = await core.records.stats(GUILD, member)
        assert list(stats.ratings) == pytest.approx(series[member])
    board = await core.records.leaderboard(GUILD, MEMBERS[0])
    stored = {r.user_id: r.rating for r in board.top}
    assert stored == pytest.approx(ratings)
    assert sum(stored.values()) == pytest.approx(1000 * len(MEMBERS))
    assert [r.user_id for r in board.top] == sorted(ratings, key=lambda u: -ratings[u])
    assert board.mine is not None and board.mine[1].user_id == MEMBERS[0]


async def test_bot_games_count_in_bot_records_not_in_elo(core: Core) -> None:
    update = await core.lobby.start_bot_game(
        guild_id=GUILD, channel_id=CHANNEL, user_id=101, difficulty="unbeatable", first="me"
    )
    await core.games.resign(101, game_id=update.game.id)
    board = await core.records.leaderboard(GUILD, 101)
    assert board.top == [] and board.mine is None
    (row,) = board.against_bot["unbeatable"]
    assert (row.user_id, row.wins, row.losses, row.draws) == (101, 0, 1, 0)
    stats = await core.records.stats(GUILD, 101)
    assert str(stats.by_opponent["unbeatable"]) == "0-1-0" and stats.current_streak == 0


async def test_stats_streaks_and_history(core: Core) -> None:
    alice, bob = MEMBERS[:2]
    for resigner in (bob, bob, alice, bob):
        game_id = await member_game(core, alice, bob)
        core.clock.advance(60)
        await core.games.resign(resigner, game_id=game_id)
    stats = await core.records.stats(GUILD, alice)
    assert str(stats.total) == "3-1-0" and (stats.current_streak, stats.best_streak) == (1, 2)
    history = await core.records.history(GUILD, alice)
    assert [g.ending for g in history][:2] == [Ending("resign", "X"), Ending("resign", "O")]
    with pytest.raises(Refusal) as info:
        await core.records.stats(GUILD, BOT)
    assert info.value.key == "stats.me"
    with pytest.raises(Refusal) as info:
        await core.records.history(GUILD, 555)
    assert info.value.key == "history.none"


async def test_review_finds_the_losing_move(core: Core) -> None:
    x, o = MEMBERS[:2]
    game_id = await member_game(core, x, o)
    # X corner, O edge (the mistake), X wins
    await play(core, game_id, (x, 0), (o, 1), (x, 4), (o, 8), (x, 3), (o, 5), (x, 6))
    review = await core.records.review(GUILD, o)
    assert review.game.id == game_id
    mistakes = [(v.number, v.cell) for v in review.verdicts if v.mistake]
    assert mistakes[0] == (2, 1) and review.verdicts[1].best == (4,)


async def test_forget_me_waits_for_running_games(core: Core) -> None:
    alice, bob = MEMBERS[:2]
    game_id = await member_game(core, alice, bob)
    with pytest.raises(Refusal) as info:
        await core.records.forget(alice, alice, confirmed=True)
    assert info.value.key == "forget.running"
    with pytest.raises(Refusal) as info:
        await core.records.forget(bob, alice, confirmed=True)
    assert info.value.key == "forget.not_yours"
    await core.games.resign(alice, game_id=game_id)
    assert len(await core.repo.rating_series(GUILD, alice, 10)) == 2
    assert await core.records.forget(alice, alice, confirmed=False) is None
    assert await core.records.forget(alice, alice, confirmed=True) == 1
    assert await core.repo.finished_games_of(GUILD, bob) == []
    assert await core.repo.rating_series(GUILD, alice, 10) == []  # her chart went too
    assert len(await core.repo.rating_series(GUILD, bob, 10)) == 2  # his rating moved


async def test_a_4x4_game_is_reviewed_exactly(core: Core) -> None:
    x, o = MEMBERS[:2]
    challenge = await core.lobby.challenge(
        guild_id=GUILD, channel_id=CHANNEL, user_id=x, opponent_id=o, first="me", size=4
    )
    game_id = (await core.lobby.accept(challenge.id, o, message_id=None)).game.id
    # X builds 0-1-2 along the top row; O answers elsewhere and never blocks 3
    await play(core, game_id, (x, 0), (o, 5), (x, 1), (o, 6), (x, 2), (o, 10), (x, 3))
    review = await core.records.review(GUILD, o)
    assert [v.cell for v in review.verdicts] == [0, 5, 1, 6, 2, 10, 3]
    first = review.verdicts[0]
    assert (first.before, first.after) == (0, 0)  # 4×4 is a draw, and any first move keeps it
    last_o = review.verdicts[5]  # O's 10 let X complete the row at 3
    assert last_o.after == -1 and review.verdicts[6].after == 1
    if last_o.mistake:
        assert 3 in last_o.best  # blocking was the way to keep it
    assert any(v.mistake and v.mark == "O" for v in review.verdicts)
