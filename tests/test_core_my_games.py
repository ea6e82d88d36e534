"""``/ttt games``'s list, without Discord: a member's running games and challenges in
every place, in the order they need the member, read in one query (on SQLite and
PostgreSQL, with a clock the tests move)."""

from __future__ import annotations

from bot.core.models import DAY, Game
from bot.core.policy import ServerPolicy

from core_harness import GUILD, Core, play, refusal_key

ALICE, BOB, CAROL, DAVE, EVE = 101, 102, 103, 104, 105
HOUR = 3600.0
QUICK = ServerPolicy(turn_timeout=30, challenge_timeout=60)


async def accepted(core: Core, channel: int, challenger: int, opponent: int, days: int | None,
                   first: str = "me") -> int:  # fmt: skip
    challenge = await core.lobby.challenge(
        guild_id=GUILD, channel_id=channel, user_id=challenger, opponent_id=opponent,
        first=first, days_per_move=days,  # type: ignore[arg-type]
    )  # fmt: skip
    update = await core.lobby.accept(challenge.id, opponent, message_id=None)
    return update.game.id


def described(entry) -> tuple[str, str, int, int | None]:
    kind = "game" if isinstance(entry.item, Game) else "challenge"
    return entry.waiting, kind, entry.item.id, entry.opponent_id


async def test_the_list_orders_by_whose_move_then_deadline_then_age(make_core) -> None:
    core: Core = await make_core(QUICK)
    start = core.clock()
    slow = await accepted(core, 11, ALICE, BOB, 7)  # ALICE to move, due in 7 days
    core.clock.advance(HOUR)
    quick = await accepted(core, 12, ALICE, CAROL, 1)  # ALICE to move, due sooner: first
    dave = await accepted(core, 13, ALICE, DAVE, 3)
    core.clock.advance(HOUR)
    bobs = await accepted(core, 14, ALICE, BOB, 3, first="opponent")  # BOB (X) to move
    core.clock.advance(HOUR)
    await play(core, dave, (ALICE, 4))  # DAVE's turn since now: younger than BOB's
    theirs = await accepted(core, 15, BOB, CAROL, 3)  # not ALICE's: never listed
    finished = await accepted(core, 16, ALICE, EVE, 1)
    await core.games.resign(EVE, game_id=finished)
    lapsed = await core.lobby.challenge(guild_id=GUILD, channel_id=20, user_id=DAVE,
                                        opponent_id=ALICE, first="me")  # fmt: skip
    core.clock.advance(HOUR)  # DAVE's live challenge has lapsed, not yet swept: left out
    vs_bot = await core.lobby.start_bot_game(
        guild_id=GUILD, channel_id=17, user_id=ALICE, difficulty="easy", first="me"
    )  # live: due in 30 s, the soonest of all
    mine = await core.lobby.challenge(
        guild_id=GUILD, channel_id=18, user_id=ALICE, opponent_id=None, first="me", days_per_move=1
    )  # open
    to_me = await core.lobby.challenge(
        guild_id=GUILD, channel_id=19, user_id=CAROL, opponent_id=ALICE, first="me", days_per_move=1
    )
    core.clock.advance(10)
    to_me_later = await core.lobby.challenge(
        guild_id=GUILD, channel_id=21, user_id=EVE, opponent_id=ALICE, first="me", days_per_move=3
    )
    others = await core.lobby.challenge(guild_id=GUILD, channel_id=22, user_id=BOB,
                                        opponent_id=CAROL, first="me")  # fmt: skip

    entries = await core.my_games.of(ALICE)
    assert [described(e) for e in entries] == [
        ("you", "game", vs_bot.game.id, 999),
        ("you", "game", quick, CAROL),
        ("you", "game", slow, BOB),
        ("opponent", "game", bobs, BOB),  # BOB's turn began before DAVE's
        ("opponent", "game", dave, DAVE),
        ("to_you", "challenge", to_me.id, CAROL),  # lapses in a day, EVE's in three
        ("to_you", "challenge", to_me_later.id, EVE),
        ("from_you", "challenge", mine.id, None),
    ]
    assert entries[1].deadline == start + HOUR + DAY and entries[2].deadline == start + 7 * DAY
    shown = {e.item.id for e in entries}
    assert theirs not in shown and finished not in shown and others.id not in shown
    assert lapsed.id not in {e.item.id for e in entries if e.challenge is not None}
    bobs_list = await core.my_games.of(BOB)  # the same games from the other side
    assert [described(e) for e in bobs_list][:3] == [
        ("you", "game", bobs, ALICE),
        ("you", "game", theirs, CAROL),
        ("opponent", "game", slow, ALICE),
    ]


async def test_courtesy_leaves_the_order_of_games_waiting_for_the_opponent(make_core) -> None:
    """ "Waiting for the opponent" goes oldest turn first: giving the opponent more time,
    or offering a draw, is no move and makes no turn younger."""
    core: Core = await make_core()
    first = await accepted(core, 11, ALICE, BOB, 1)
    second = await accepted(core, 12, ALICE, CAROL, 1)
    await play(core, first, (ALICE, 4))
    core.clock.advance(HOUR)
    await play(core, second, (ALICE, 4))  # both wait for the opponent; first's turn older
    core.clock.advance(HOUR)
    await core.games.courtesy(first, 1, ALICE, "time")
    await play(core, first, (BOB, 0), (ALICE, 8))
    await play(core, second, (CAROL, 0))
    core.clock.advance(HOUR)
    await play(core, second, (ALICE, 8))  # second's turn younger again
    core.clock.advance(HOUR)
    await core.games.courtesy(first, 3, ALICE, "offer")
    order = [e.item.id for e in await core.my_games.of(ALICE) if e.waiting == "opponent"]
    assert order == [first, second]


async def test_a_move_moves_the_game_to_the_other_half(make_core) -> None:
    core: Core = await make_core(QUICK)
    game_id = await accepted(core, 11, ALICE, BOB, 1)
    ((before, _),) = [(e.waiting, e.item.id) for e in await core.my_games.of(ALICE)]
    await play(core, game_id, (ALICE, 0))
    ((after, _),) = [(e.waiting, e.item.id) for e in await core.my_games.of(ALICE)]
    assert (before, after) == ("you", "opponent")
    assert [e.waiting for e in await core.my_games.of(BOB)] == ["you"]
    assert await core.my_games.of(EVE) == []


async def test_a_board_is_shown_to_its_players_only(make_core) -> None:
    core: Core = await make_core(QUICK)
    game_id = await accepted(core, 11, ALICE, BOB, 3)
    await play(core, game_id, (ALICE, 4))
    update = await core.my_games.board(game_id, BOB)
    assert update.game.moves == (4,)
    assert await refusal_key(core.my_games.board(game_id, CAROL)) == "move.not_player"
    assert await refusal_key(core.my_games.board(game_id + 99, BOB)) == "game.unknown"


async def test_a_challenge_to_the_member_is_accepted_from_the_list(make_core) -> None:
    core: Core = await make_core(QUICK)
    await core.lobby.challenge(guild_id=GUILD, channel_id=11, user_id=BOB, opponent_id=ALICE,
                               first="me", days_per_move=7)  # fmt: skip
    (entry,) = await core.my_games.of(ALICE)
    assert entry.waiting == "to_you" and entry.challenge is not None
    update = await core.lobby.accept(entry.challenge.id, ALICE, entry.challenge.message_id)
    (game,) = await core.my_games.of(ALICE)
    assert game.item == update.game and game.waiting == "opponent"  # BOB moves first
    assert game.deadline == core.clock() + 7 * DAY
