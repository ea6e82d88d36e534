"""A tournament run by the core alone, on SQLite and PostgreSQL: sign-up, seeding by
rating, Ready, results that advance it, deadlines, and the organiser's tools."""

from __future__ import annotations

from typing import Literal

from bot.core.tournaments.models import Format
from bot.core.tournaments.signup import Setup
from bot.core.tournaments.view import TournamentView

from core_harness import CHANNEL, GUILD, Core, member_game, play, refusal_key

ORGANISER = 500
WIN_X = (0, 3, 1, 4, 2)
WIN_O = (0, 3, 1, 4, 8, 5)
DRAW = (0, 1, 2, 4, 3, 5, 7, 6, 8)
Winner = Literal["x", "o", "draw"]


async def create(core: Core, fmt: Format, players: list[int], **setup: object) -> TournamentView:
    view = await core.tournaments.create(
        Setup("Cup", fmt, **setup),  # type: ignore[arg-type]
        guild_id=GUILD, channel_id=CHANNEL, organiser_id=ORGANISER, may_manage=True,
    )  # fmt: skip
    for player in players:
        view = await core.tournaments.join(view.tournament.id, player)
    return view


async def ready_all(core: Core, view: TournamentView) -> TournamentView:
    """Both players of every waiting match of the round press Ready."""
    for match in view.round_matches(view.tournament.round):
        if match.status == "waiting":
            for player in match.players:
                view = await core.tournaments.ready(match.id, player)
    return view


async def finish_game(core: Core, view: TournamentView, player: int, how: Winner) -> TournamentView:
    """Play out ``player``'s running game: X wins, O wins or a draw."""
    game = next(g for g in view.games if g.running and player in (g.player_x, g.player_o))
    cells = {"x": WIN_X, "o": WIN_O, "draw": DRAW}[how]
    await play(core, game.id, *[
        (game.player_x if i % 2 == 0 else game.player_o, cell) for i, cell in enumerate(cells)
    ])  # fmt: skip
    ended = await core.repo.get_game(game.id)
    assert ended is not None and not ended.running
    after = await core.tournaments.game_ended(ended)
    assert after is not None
    return after


async def win_current(core: Core, view: TournamentView, player: int) -> TournamentView:
    """``player`` wins their running game, whichever side they play."""
    game = next(g for g in view.games if g.running and player in (g.player_x, g.player_o))
    return await finish_game(core, view, player, "x" if game.player_x == player else "o")


async def test_single_elimination_to_a_champion_seeded_by_rating(core: Core) -> None:
    # 2 beats 1 in a rated game first: 2 is the top seed, 1 the fourth
    game_id = await member_game(core, 2, 1, channel=CHANNEL + 1)
    await play(core, game_id, (2, 0), (1, 3), (2, 1), (1, 4), (2, 2))
    view = await create(core, "single", [1, 2, 3, 4, 5])
    assert view.tournament.status == "signup"
    view = await core.tournaments.start(CHANNEL, ORGANISER, may_manage=False)
    assert view.seeds[0] == 2 and view.seeds[-1] == 1
    round1 = view.round_matches(1)
    # 5 players in a bracket of 8: the top three seeds have byes, decided at once
    assert [m.second is None for m in round1].count(True) == 3
    assert all(m.status == "done" for m in round1 if m.second is None)
    assert [m.id for m in view.opened] == [m.id for m in round1 if m.second is not None]
    view = await ready_all(core, view)
    (match,) = [m for m in view.round_matches(1) if m.second is not None]
    assert match.status == "playing" and len(view.new_games) == 1
    game = view.new_games[0]
    assert (game.player_x, game.player_o) == (match.first, match.second)
    assert game.channel_id == CHANNEL and game.tournament_match_id == match.id
    view = await win_current(core, view, match.second or 0)
    assert view.tournament.round == 2 and len(view.round_matches(2)) == 2
    while view.tournament.status == "running":
        view = await ready_all(core, view)
        for m in view.round_matches(view.tournament.round):
            if m.status == "playing":
                view = await win_current(core, view, m.first)
    assert view.tournament.status == "finished"
    assert view.tournament.champion == 2  # the top seed won every match as first


async def test_round_robin_best_of_three_with_sides_alternating(core: Core) -> None:
    view = await create(core, "round_robin", [1, 2, 3, 4], best_of=3)
    view = await core.tournaments.start(CHANNEL, ORGANISER, may_manage=True)
    assert len(view.round_matches(1)) == 2
    rounds = 0
    while view.tournament.status == "running":
        rounds += 1
        view = await ready_all(core, view)
        for m in view.round_matches(view.tournament.round):
            second = m.second or 0
            # game 1: first is X and draws; game 2: sides swap, the lower id wins; game 3 too
            view = await finish_game(core, view, m.first, "draw")
            game2 = next(g for g in view.games if g.running and g.tournament_match_id == m.id)
            assert (game2.player_x, game2.player_o) == (second, m.first)
            winner = min(m.first, second)
            view = await win_current(core, view, winner)
            view = await win_current(core, view, winner)
            done = next(x for x in view.matches if x.id == m.id)
            assert done.status == "done" and done.winner == winner
    assert rounds == 3
    table = view.standings()
    assert [s.player for s in table] == [1, 2, 3, 4]
    assert [s.points for s in table] == [3.0, 2.0, 1.0, 0.0]
    assert view.tournament.champion == 1


async def test_swiss_pairs_by_score_without_repeats(core: Core) -> None:
    view = await create(core, "swiss", [1, 2, 3, 4, 5, 6], rounds=3)
    view = await core.tournaments.start(CHANNEL, ORGANISER, may_manage=True)
    met: set[frozenset[int]] = set()
    while view.tournament.status == "running":
        view = await ready_all(core, view)
        for m in view.round_matches(view.tournament.round):
            pair = frozenset(m.players)
            assert pair not in met
            met.add(pair)
            view = await win_current(core, view, min(m.players))
    assert view.tournament.round == 3 and len(met) == 9
    table = view.standings()
    assert table[0].points == 3.0 and view.tournament.champion == table[0].player


async def test_a_no_show_forfeits_and_nobody_else_can_press_ready(core: Core) -> None:
    view = await create(core, "single", [1, 2], show_up=60.0)
    view = await core.tournaments.start(CHANNEL, ORGANISER, may_manage=True)
    (match,) = view.round_matches(1)
    assert await refusal_key(core.tournaments.ready(match.id, 3)) == "tournament.not_your_match"
    view = await core.tournaments.ready(match.id, 2)
    assert await core.tournaments.expire_due() == []  # not yet
    core.clock.advance(61)
    assert await core.repo.next_deadline() == match.start_by
    (view,) = await core.tournaments.expire_due()
    (done,) = view.round_matches(1)
    assert done.forfeit and done.winner == 2 and view.tournament.champion == 2
    assert view.tournament.status == "finished" and view.games == ()


async def test_removing_a_player_forfeits_their_match_and_ends_its_game(core: Core) -> None:
    view = await create(core, "round_robin", [1, 2, 3, 4])
    view = await core.tournaments.start(CHANNEL, ORGANISER, may_manage=True)
    view = await ready_all(core, view)
    assert (
        await refusal_key(core.tournaments.remove(CHANNEL, 1, 3, may_manage=False))
        == "tournament.not_organiser"
    )
    view = await core.tournaments.remove(CHANNEL, ORGANISER, 3, may_manage=False)
    (ended,) = view.ended_games
    assert ended.ending is not None and ended.ending.reason == "stopped"
    match = next(m for m in view.round_matches(1) if 3 in m.players)
    assert match.forfeit and match.winner == next(p for p in match.players if p != 3)
    # every later match of 3 is forfeited as it is drawn up
    while view.tournament.status == "running":
        view = await ready_all(core, view)
        for m in view.round_matches(view.tournament.round):
            if m.status == "playing":
                view = await win_current(core, view, m.first)
    assert all(m.forfeit for m in view.matches if 3 in m.players)
    assert 3 not in (view.tournament.champion,)


async def test_corrections_change_the_table_and_respect_the_bracket(core: Core) -> None:
    view = await create(core, "round_robin", [1, 2, 3])
    view = await core.tournaments.start(CHANNEL, ORGANISER, may_manage=True)
    view = await ready_all(core, view)
    (played,) = [m for m in view.round_matches(1) if m.second is not None]
    view = await win_current(core, view, played.first)
    before = {s.player: s.points for s in view.standings()}  # a bye of round 2 counts too
    loser = played.second or 0
    assert await refusal_key(core.tournaments.correct(
        CHANNEL, ORGANISER, played.number, 7, may_manage=True
    )) == "tournament.not_in_match"  # fmt: skip
    view = await core.tournaments.correct(CHANNEL, ORGANISER, played.number, loser,
                                          may_manage=True)  # fmt: skip
    after = {s.player: s.points for s in view.standings()}
    assert after[played.first] == before[played.first] - 1
    assert after[loser] == before[loser] + 1
    view = await core.tournaments.correct(CHANNEL, ORGANISER, played.number, None,
                                          may_manage=True)  # fmt: skip
    assert {s.player: s.points for s in view.standings()}[loser] == before[loser] + 0.5
    # single elimination: only the round in play, and never a draw
    other = await core.tournaments.create(
        Setup("Knockout", "single"), guild_id=GUILD, channel_id=CHANNEL + 1,
        organiser_id=ORGANISER, may_manage=True,
    )  # fmt: skip
    for player in (1, 2, 3, 4):
        await core.tournaments.join(other.tournament.id, player)
    ko = await core.tournaments.start(CHANNEL + 1, ORGANISER, may_manage=True)
    ko = await ready_all(core, ko)
    first, second = ko.round_matches(1)
    assert await refusal_key(core.tournaments.correct(
        CHANNEL + 1, ORGANISER, first.number, None, may_manage=True
    )) == "tournament.no_draws"  # fmt: skip
    ko = await core.tournaments.correct(CHANNEL + 1, ORGANISER, first.number, first.second,
                                        may_manage=True)  # fmt: skip
    assert ko.ended_games and ko.ended_games[0].ending is not None
    assert ko.ended_games[0].ending.reason == "stopped"  # its game ends with no result
    ko = await win_current(core, ko, second.first)
    assert ko.tournament.round == 2
    (final,) = ko.round_matches(2)
    assert set(final.players) == {first.second, second.first}
    assert await refusal_key(core.tournaments.correct(
        CHANNEL + 1, ORGANISER, first.number, first.first, may_manage=True
    )) == "tournament.too_late"  # fmt: skip


async def test_sign_up_rules(core: Core) -> None:
    view = await create(core, "single", [1], max_players=2)
    tid = view.tournament.id
    assert await refusal_key(core.tournaments.join(tid, 1)) == "tournament.already_in"
    await core.tournaments.join(tid, 2)
    assert await refusal_key(core.tournaments.join(tid, 3)) == "tournament.full"
    await core.tournaments.leave(tid, 2)
    assert await refusal_key(core.tournaments.leave(tid, 2)) == "tournament.not_in"
    assert (
        await refusal_key(core.tournaments.start(CHANNEL, ORGANISER, may_manage=True))
        == "tournament.too_few"
    )
    assert await refusal_key(core.tournaments.create(
        Setup("Again", "single"), guild_id=GUILD, channel_id=CHANNEL, organiser_id=1,
        may_manage=True,
    )) == "tournament.busy"  # fmt: skip


async def test_sign_up_closes_by_itself_and_starts_or_cancels(core: Core) -> None:
    view = await create(core, "single", [1, 2], signup_seconds=120.0)
    core.clock.advance(121)
    (view,) = await core.tournaments.expire_due()
    assert view.tournament.status == "running" and len(view.opened) == 1
    other = await core.tournaments.create(
        Setup("Empty", "single", signup_seconds=10.0), guild_id=GUILD, channel_id=CHANNEL + 5,
        organiser_id=ORGANISER, may_manage=True,
    )  # fmt: skip
    core.clock.advance(11)
    views = await core.tournaments.expire_due()
    empty = next(v for v in views if v.tournament.id == other.tournament.id)
    assert empty.tournament.status == "cancelled"


async def test_forget_me_takes_a_players_name_off_the_bracket(core: Core) -> None:
    view = await create(core, "single", [])
    for player, name in ((1, "Amélie"), (2, "Björn")):
        view = await core.tournaments.join(view.tournament.id, player, name=name)
    assert [e.name for e in view.entrants] == ["Amélie", "Björn"]
    await core.repo.forget_player(1)
    names = {e.user_id: e.name for e in await core.repo.entrants(view.tournament.id)}
    assert names == {1: "—", 2: "Björn"}


async def test_a_cancelled_tournament_leaves_no_deadline_behind(core: Core) -> None:
    view = await create(core, "single", [1, 2, 3, 4], show_up=60.0)
    view = await core.tournaments.start(CHANNEL, ORGANISER, may_manage=True)
    first = view.round_matches(1)[0]
    view = await core.tournaments.ready(first.id, first.first)
    view = await core.tournaments.ready(first.id, first.second or 0)
    assert await core.repo.next_deadline() is not None
    view = await core.tournaments.cancel(CHANNEL, ORGANISER, may_manage=True)
    assert view.tournament.status == "cancelled" and len(view.ended_games) == 1
    assert all(m.status == "done" and m.start_by is None for m in view.matches)
    core.clock.advance(61)
    assert await core.repo.next_deadline() is None  # the timekeeper sleeps, not spins
    assert await core.tournaments.expire_due() == []


async def test_what_was_never_shown_is_offered_again_once_its_claim_runs_out(core: Core) -> None:
    view = await create(core, "single", [1, 2, 3, 4])
    view = await core.tournaments.start(CHANNEL, ORGANISER, may_manage=True)
    first, second = view.round_matches(1)
    assert {m.id for m in view.opened} == {first.id, second.id}  # claimed by this step
    assert await core.tournaments.unshown() == []  # its process is opening them
    assert await core.tournaments.place_match(first, 77, 7001)
    core.clock.advance(61)  # the other one never got its thread
    (again,) = await core.tournaments.unshown()
    assert [m.id for m in again.opened] == [second.id] and again.new_games == ()
    assert await core.tournaments.unshown() == []  # claimed again, by this call
    for player in first.players:  # a game that nobody posts
        view = await core.tournaments.ready(first.id, player)
    (game,) = view.new_games
    assert game.channel_id == 77
    core.clock.advance(61)
    (again,) = await core.tournaments.unshown()
    assert [g.id for g in again.new_games] == [game.id]
    assert [m.id for m in again.opened] == [second.id]  # its claim ran out again
