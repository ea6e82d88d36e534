"""Courtesy through Discord: a correspondence board's Options (more time once a move, a
draw offered and accepted or lapsing) answered privately and said on the board; /ttt
block and unblock; a server's own limit of correspondence games. The games' clock is
the test's: it moves days without anybody waiting."""

from __future__ import annotations

import pytest

from bot.core.models import DAY

from bot_harness import board_of, cell_id, running_bot, settings_for
from correspondence_harness import MovableClock, press, stamp
from discord_emulator import DiscordEmulator, find_button

MANAGE_GUILD = 1 << 5


@pytest.fixture
def clock() -> MovableClock:
    return MovableClock()


@pytest.fixture
async def bot(emulator: DiscordEmulator, tmp_path, clock: MovableClock):
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3")
    async with running_bot(emulator, settings, game_clock=clock) as bot:
        yield bot


async def started(emulator: DiscordEmulator, alice, bob, pace: int = 1) -> dict:
    """ALICE (X, to move) against BOB at ``pace`` days a move: the board."""
    res = await emulator.invoke(alice, "ttt start", {"opponent": bob, "first": "me", "pace": pace})
    res = await emulator.click(bob, res.message, press(res.message, "Accept"))
    assert res.type == 7
    return res.message


async def options(emulator: DiscordEmulator, member, board: dict) -> dict:
    """The member's private choices behind the board's Options."""
    res = await emulator.click(member, board, press(board, "Options"))
    assert res.ephemeral and res.message is not None
    return res.message


async def board_saying(emulator: DiscordEmulator, board: dict, words: str) -> dict:
    return await emulator.wait_for_message(
        lambda m: m["id"] == board["id"] and words in m["content"], include_existing=True
    )


async def test_more_time_once_a_move_said_on_the_board(emulator, transport, bot, clock) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    board = await started(emulator, alice, bob)
    res = await emulator.click(alice, board, cell_id(board, 4))
    board = res.message
    old = clock() + DAY
    assert stamp(old) in board["content"]
    choices = await options(emulator, alice, board)
    assert f"**Give more time**: <@{bob.id}> gets one more day" in choices["content"]
    res = await emulator.click(alice, choices, press(choices, "Give more time"))
    assert res.type == 7 and res.ephemeral
    assert res.content == f"Done: <@{bob.id}> now has until {stamp(old + DAY)} for this move."
    shown = await board_saying(emulator, board, "one more day")
    assert f"<@{alice.id}> gave <@{bob.id}> one more day." in shown["content"]
    assert f"<@{bob.id}> to move (⭕), {stamp(old + DAY)}." in shown["content"]

    again = await options(emulator, alice, shown)
    give = find_button(again, label="Give more time")
    assert give is not None and give["disabled"]  # once a move
    res = await emulator.click(alice, again, give["custom_id"], force=True)
    assert res.ephemeral
    assert res.content == "You already gave more time for this move: once a move."
    mine = await options(emulator, bob, shown)  # the mover gives no time to themselves
    give = find_button(mine, label="Give more time")
    assert give is not None and give["disabled"]

    clock.advance(DAY + 60)  # past the old deadline: the game goes on
    (game,) = await bot.repo.running_games()
    assert await bot.games.time_out(game.id) is None  # the sweep's own call: not due
    bot.games.alarm.ring()
    clock.advance(DAY)  # past the new one: lost on time
    bot.games.alarm.ring()
    ended = await board_saying(emulator, board, "ran out of time")
    assert f"<@{bob.id}> ran out of time. **<@{alice.id}> wins.**" in ended["content"]


async def test_a_draw_offered_and_accepted(emulator, transport, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    board = await started(emulator, alice, bob, pace=3)
    board = (await emulator.click(alice, board, cell_id(board, 4))).message
    board = (await emulator.click(bob, board, cell_id(board, 0))).message
    choices = await options(emulator, bob, board)
    res = await emulator.click(bob, choices, press(choices, "Offer a draw"))
    assert res.content == f"Draw offered: <@{alice.id}> may accept it until they move."
    shown = await board_saying(emulator, board, "offers a draw")
    assert shown["content"].endswith(f"\n<@{bob.id}> offers a draw.")
    choices = await options(emulator, alice, shown)
    assert f"<@{bob.id}> offers you a draw" in choices["content"]
    res = await emulator.click(alice, choices, press(choices, "Accept the draw"))
    assert res.content == "Draw agreed: the game is over."
    ended = await board_saying(emulator, board, "Draw by agreement")
    said = f"**Draw by agreement.** <@{bob.id}> offered it, <@{alice.id}> accepted."
    assert said in ended["content"]
    assert find_button(ended, label="Rematch") is not None
    records = await bot.repo.leaderboard(emulator.guild.id, 10)
    assert sorted((r.user_id, r.draws, r.wins, r.losses) for r in records) == sorted(
        [(alice.id, 1, 0, 0), (bob.id, 1, 0, 0)]
    )


async def test_an_offer_lapses_at_the_next_move(emulator, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    board = await started(emulator, alice, bob)
    board = (await emulator.click(alice, board, cell_id(board, 4))).message
    board = (await emulator.click(bob, board, cell_id(board, 0))).message
    choices = await options(emulator, bob, board)
    await emulator.click(bob, choices, press(choices, "Offer a draw"))
    board = await board_saying(emulator, board, "offers a draw")
    accept = await options(emulator, alice, board)  # seen, then ignored: alice moves
    res = await emulator.click(alice, board, cell_id(board, 8))
    assert res.type == 7 and "offers a draw" not in res.message["content"]
    res = await emulator.click(alice, accept, press(accept, "Accept the draw"))
    assert res.ephemeral
    assert res.content == "There is no draw offer to accept now: it lapsed with a move."
    assert board_of(emulator.message(board)) == "O...X...X"


async def test_courtesy_only_in_correspondence_games(emulator, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    res = await emulator.invoke(alice, "ttt start", {"opponent": bob, "first": "me"})
    res = await emulator.click(bob, res.message, press(res.message, "Accept"))
    assert find_button(res.message, label="Options") is None  # a live game: no Options
    res = await emulator.invoke(alice, "ttt start", {"first": "me", "size": 5})
    assert find_button(res.message, label="Options") is None


async def test_options_on_a_five_by_five_correspondence_board(emulator, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    res = await emulator.invoke(
        alice, "ttt start", {"opponent": bob, "first": "me", "pace": 7, "size": 5}
    )
    res = await emulator.click(bob, res.message, press(res.message, "Accept"))
    board = res.message
    assert find_button(board, label="Options") is not None  # in the layout's action row
    carol = emulator.create_user("carol")
    res = await emulator.click(carol, board, press(board, "Options"))
    assert res.ephemeral and res.content.startswith("You're not playing in this game.")


async def test_a_blocked_member_is_told_only_not_accepted(emulator, bot) -> None:
    alice, bob, carol = (emulator.create_user(n) for n in ("alice", "bob", "carol"))
    res = await emulator.invoke(alice, "ttt block", {"member": bob})
    assert res.ephemeral and res.content.startswith(f"Blocked <@{bob.id}>:")
    before = emulator.channel_messages(emulator.channel.id)
    res = await emulator.invoke(bob, "ttt start", {"opponent": alice, "pace": 3})
    assert res.ephemeral and res.content == "Your challenge was not accepted."
    res = await emulator.invoke(bob, "ttt start", {"opponent": alice})
    assert res.ephemeral and res.content == "Your challenge was not accepted."
    assert emulator.channel_messages(emulator.channel.id) == before  # no challenge posted
    res = await emulator.invoke(alice, "ttt start", {"opponent": bob})
    assert res.ephemeral and res.content.startswith(f"You blocked <@{bob.id}>")

    res = await emulator.invoke(bob, "ttt start", {"opponent": carol, "first": "me"})
    res = await emulator.click(carol, res.message, press(res.message, "Accept"))
    res = await emulator.click(carol, res.message, press(res.message, "Resign"))
    await emulator.invoke(carol, "ttt block", {"member": bob})
    before = emulator.channel_messages(emulator.channel.id)
    res = await emulator.click(bob, res.message, press(res.message, "Rematch"))
    assert res.ephemeral and res.content == "Your challenge was not accepted."
    assert emulator.channel_messages(emulator.channel.id) == before  # no rematch posted

    res = await emulator.invoke(alice, "ttt unblock", {"member": bob})
    assert res.ephemeral and res.content == f"Unblocked <@{bob.id}>: they may challenge you again."
    res = await emulator.invoke(bob, "ttt start", {"opponent": alice, "pace": 3})
    assert not res.ephemeral and "Correspondence game: 3 days a move." in res.content


async def test_a_servers_limit_refuses_the_next_game(emulator, tmp_path) -> None:
    admin = emulator.create_user("admin")
    admin.permissions = MANAGE_GUILD | (1 << 10) | (1 << 11)
    alice, bob, carol = (emulator.create_user(n) for n in ("alice", "bob", "carol"))
    other = emulator.create_channel(emulator.guild, "other")
    async with running_bot(emulator, settings_for(emulator, tmp_path / "limit.sqlite3")):
        res = await emulator.invoke(admin, "ttt config", {"correspondence_games": 1})
        fields = {f["name"]: f["value"] for f in res.embeds[0]["fields"]}
        assert res.ephemeral and fields["Correspondence games a member"] == "1"
        res = await emulator.invoke(alice, "ttt start", {"opponent": bob, "pace": 3})
        await emulator.click(bob, res.message, press(res.message, "Accept"))
        res = await emulator.invoke(carol, "ttt start", {"opponent": alice, "pace": 1},
                                    channel=other)  # fmt: skip
        assert not res.ephemeral  # a challenge waits; accepting it is past the limit
        res = await emulator.click(alice, res.message, press(res.message, "Accept"))
        assert res.ephemeral
        assert res.content == (
            f"<@{alice.id}> already plays 1 correspondence game in this server, the most "
            "this server allows at once: one must end before another starts."
        )
