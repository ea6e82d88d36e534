"""``/ttt games`` through Discord: a member's games and challenges in every place, privately,
in the order they need the member, with jump links, Accept and Decline, and (where only a
member's own install reaches) the board itself. The games' clock is the test's."""

from __future__ import annotations

import re

import pytest
from ultimate_harness import boards, ply, squares

from bot.core.models import DAY

from bot_harness import board_of, cell_id, eventually, running_bot, settings_for
from correspondence_harness import MovableClock, press
from discord_emulator import DiscordEmulator, buttons


@pytest.fixture
def clock() -> MovableClock:
    return MovableClock()


@pytest.fixture
async def bot(emulator: DiscordEmulator, tmp_path, clock: MovableClock):
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3")
    async with running_bot(emulator, settings, game_clock=clock) as bot:
        yield bot


def labels(message: dict) -> list[str]:
    return [b.get("label", "") for row in buttons(message) for b in row]


def entries(res_or_message) -> list[str]:
    """The list's entries, each its two lines, in order (headers left out)."""
    embeds = res_or_message.embeds if hasattr(res_or_message, "embeds") else (
        res_or_message.get("embeds") or [])  # fmt: skip
    (embed,) = embeds
    return re.findall(r"`\d+\.` [^\n]*\n-# [^\n]*", embed["description"])


def link(guild, channel, message_id) -> str:
    return f"https://discord.com/channels/{guild}/{channel.id}/{message_id}"


async def challenged(emu, challenger, opponent, pace, channel=None, first="me") -> dict:
    res = await emu.invoke(challenger, "ttt start",
                           {"opponent": opponent, "first": first, "pace": pace},
                           channel=channel)  # fmt: skip
    assert res.type == 4 and not res.ephemeral, res.content
    return res.message


async def accepted(emu, challenger, opponent, pace, channel=None, first="me") -> dict:
    message = await challenged(emu, challenger, opponent, pace, channel, first)
    res = await emu.click(opponent, message, press(message, "Accept"))
    assert res.type == 7, res.content
    return res.message


async def test_the_list_in_order_with_its_links_everywhere(emulator, bot, clock) -> None:
    alice, bob, carol = (emulator.create_user(n) for n in ("alice", "bob", "carol"))
    guild, here = emulator.guild, emulator.channel
    elsewhere = emulator.create_guild("Chess & Co")
    emulator.create_user("dave", guilds=[elsewhere])
    other = emulator.create_channel(elsewhere, "daily")
    elsewhere.member_ids += [alice.id, carol.id]
    week = await accepted(emulator, alice, bob, 7)  # alice to move, due in a week
    clock.advance(3600)
    day = await accepted(emulator, alice, carol, 1, channel=other)  # alice to move, sooner
    clock.advance(3600)
    bobs = await accepted(emulator, alice, bob, 3, first="opponent")  # bob's move
    theirs = await accepted(emulator, bob, carol, 3)  # not alice's
    dm = emulator.open_dm(alice)
    res = await emulator.invoke(alice, "ttt start", {"first": "me"}, channel=dm)
    vs_bot = res.message  # live: due within the server's turn time, the soonest
    to_alice = await challenged(emulator, carol, alice, 7, channel=other)

    res = await emulator.invoke(alice, "ttt games")
    assert res.type == 4 and res.ephemeral and res.content in (None, "")
    listed = entries(res)
    assert len(listed) == 5, listed
    assert listed[0].startswith("`1.` 3×3, three in a row against the bot (medium) · live · due")
    assert listed[0].endswith(f"our direct messages · {link('@me', dm, vs_bot['id'])}")
    assert listed[1].startswith(f"`2.` 3×3, three in a row against <@{carol.id}> · 1 day a move")
    assert f"due <t:{int(clock() - 3600 + DAY)}:R>" in listed[1]
    assert listed[1].endswith(
        f"Chess & Co · <#{other.id}> · {link(elsewhere.id, other, day['id'])}"
    )
    assert listed[2].startswith(f"`3.` 3×3, three in a row against <@{bob.id}> · 7 days a move")
    assert listed[2].endswith(link(guild.id, here, week["id"]))
    assert listed[3].startswith(f"`4.` 3×3, three in a row against <@{bob.id}> · 3 days a move")
    assert listed[3].endswith(link(guild.id, here, bobs["id"]))
    assert listed[4].startswith(f"`5.` <@{carol.id}> challenges you: 3×3, three in a row")
    assert listed[4].endswith(link(elsewhere.id, other, to_alice["id"]))
    (embed,) = res.embeds
    assert (
        embed["description"].index("**Your move**")
        < embed["description"].index("**Waiting for your opponent**")
        < embed["description"].index("**Challenges**")
    )
    assert theirs["id"] not in embed["description"]
    assert labels(res.message) == ["Accept 5", "Decline 5"]  # links reach every other one

    res = await emulator.invoke(bob, "ttt games")  # bob's own: none of alice's DM or carol's
    (embed,) = res.embeds
    assert str(dm.id) not in embed["description"] and str(other.id) not in embed["description"]
    assert [e.split(" against ")[1].split(" ")[0] for e in entries(res)] == [
        f"<@{alice.id}>", f"<@{carol.id}>", f"<@{alice.id}>"]  # fmt: skip


async def test_a_challenge_accepted_and_declined_from_the_list(
    emulator, transport, bot, clock
) -> None:
    alice, bob, carol = (emulator.create_user(n) for n in ("alice", "bob", "carol"))
    other = emulator.create_channel(emulator.guild, "other")
    from_bob = await challenged(emulator, bob, alice, 3)
    from_carol = await challenged(emulator, carol, alice, 1, channel=other)
    res = await emulator.invoke(alice, "ttt games")
    assert labels(res.message) == ["Accept 1", "Decline 1", "Accept 2", "Decline 2"]
    assert f"<@{carol.id}> challenges you" in entries(res)[0]  # lapses first

    res = await emulator.click(alice, res.message, press(res.message, "Accept 2"))
    assert res.type == 7 and res.ephemeral
    where = link(emulator.guild.id, emulator.channel, from_bob["id"])
    assert res.message["content"].startswith(
        f"Accepted: the game is on its challenge's message, {where}."
    )
    board = emulator.message(from_bob["id"])  # the challenge became the board, as from it
    assert f"<@{bob.id}> to move (❌), <t:{int(clock() + 3 * DAY)}:R>." in board["content"]
    listed = entries(res.message)  # bob's move first now, then carol's challenge
    assert listed[0].startswith(f"`1.` 3×3, three in a row against <@{bob.id}> · 3 days a move")
    assert listed[1].startswith(f"`2.` <@{carol.id}> challenges you")
    assert labels(res.message) == ["Accept 2", "Decline 2"]
    res = await emulator.click(bob, board, cell_id(board, 4))  # and it plays on there
    assert res.type == 7 and board_of(res.message) == "....X...."

    res = await emulator.invoke(alice, "ttt games")
    assert entries(res)[0].startswith(f"`1.` 3×3, three in a row against <@{bob.id}>")
    assert "**Your move**" in res.embeds[0]["description"]
    res = await emulator.click(alice, res.message, press(res.message, "Decline 2"))
    assert res.type == 7 and res.message["content"].startswith("Declined. Your list")
    assert len(entries(res.message)) == 1 and labels(res.message) == []
    assert "declined" in emulator.message(from_carol["id"])["content"]
    assert buttons(emulator.message(from_carol["id"])) == []


def installed(emu: DiscordEmulator, name: str):
    user = emu.create_user(name)
    user.installed = True
    return user


async def test_a_correspondence_game_between_friends_after_a_day(
    emulator: DiscordEmulator, transport, bot, clock
) -> None:
    """In a DM between members only alice's install reaches: after a day every token of
    it is dead, so the bot can edit nothing there. Bob plays from /ttt games' private
    board; the DM's board shows that move at the next click on it, with that click's
    fresh token."""
    alice, bob = installed(emulator, "alice"), emulator.create_user("bob")
    dm = emulator.open_private(alice, bob)
    board = await accepted(emulator, alice, bob, 1, channel=dm)
    res = await emulator.click(alice, board, cell_id(board, 4))
    assert res.type == 7 and board_of(res.message) == "....X...."
    board = res.message
    clock.advance(20 * 3600)
    emulator.advance(20 * 3600)  # every token of the DM is past Discord's 15 minutes

    res = await emulator.invoke(bob, "ttt games")  # in a server: bob has no install
    (entry,) = entries(res)
    assert entry.startswith(f"`1.` 3×3, three in a row against <@{alice.id}> · 1 day a move")
    assert entry.endswith(
        "a DM or group DM (your own install of ttt) · "
        f"{link('@me', dm, board['id'])} · its board: button 1 below"
    )
    res = await emulator.click(bob, res.message, press(res.message, "Board 1"))
    assert res.type == 4 and res.ephemeral and emulator.visible_to(res.message["id"], bob)
    private = res.message
    assert board_of(private) == "....X...." and f"<@{bob.id}> to move (⭕)" in private["content"]
    assert "Only you see this board" in private["content"]
    assert labels(private)[-2:] == ["Resign", "Options"]  # Options: a correspondence game
    res = await emulator.click(bob, private, cell_id(private, 0))
    assert res.type == 7 and res.ephemeral and board_of(res.message) == "O...X...."
    assert f"<@{alice.id}> to move (❌), <t:{int(clock() + DAY)}:R>." in res.message["content"]
    # the bot tries the DM's board through the token it kept, which Discord refuses
    await eventually(lambda: any("token used after expiry" in v for v in emulator.violations),
                     "the DM's board tried through its day-old token")  # fmt: skip
    emulator.violations.clear()
    assert board_of(emulator.message(board["id"])) == "....X...."  # the day-old board

    # alice clicks the day-old board: its ply is behind, so it is redrawn as it stands
    # with her click's fresh token, and she is told privately why her click did not play
    res = await emulator.click(alice, board, cell_id(board, 8))
    assert board_of(emulator.message(board["id"])) == "O...X...."
    await res.wait_for_edit()
    (why,) = res.followups
    assert emulator.is_ephemeral(why["id"]) and "out of date" in why["content"]
    board = emulator.message(board["id"])
    res = await emulator.click(alice, board, cell_id(board, 8))  # now it plays
    assert res.type == 7 and board_of(res.message) == "O...X...X"
    assert not emulator.violations


async def test_a_challenge_between_friends_accepted_from_the_list_later(
    emulator: DiscordEmulator, bot, clock
) -> None:
    """Accepted from /ttt games an hour later: the DM's challenge cannot be edited into
    the board then, so it is at the next click on it (its Accept, as any button there)."""
    alice, bob = installed(emulator, "alice"), emulator.create_user("bob")
    dm = emulator.open_private(alice, bob)
    challenge = await challenged(emulator, alice, bob, 3, channel=dm)
    clock.advance(3600)
    emulator.advance(3600)
    res = await emulator.invoke(bob, "ttt games")
    res = await emulator.click(bob, res.message, press(res.message, "Accept 1"))
    assert res.type == 7 and res.message["content"].startswith("Accepted: the game is on")
    assert labels(res.message) == ["Board 1"]  # the game now, shown privately on demand
    await eventually(lambda: any("token used after expiry" in v for v in emulator.violations),
                     "the DM's challenge tried through its hour-old token")  # fmt: skip
    emulator.violations.clear()
    assert "Accept" in labels(emulator.message(challenge["id"]))  # still the challenge there
    res = await emulator.click(bob, challenge, press(challenge, "Accept"))
    assert res.type == 7 and board_of(res.message) == "........."
    assert f"<@{alice.id}> to move (❌), <t:{int(clock() + 3 * DAY)}:R>." in res.message["content"]
    res = await emulator.click(alice, res.message, cell_id(res.message, 4))
    assert res.type == 7 and board_of(res.message) == "....X...."


async def test_an_ultimate_game_played_from_the_private_board(
    emulator: DiscordEmulator, bot, clock
) -> None:
    """Ultimate's free move on the private board: a small board chosen, then a square, each
    the answer to its own click on that private message (the game's board is elsewhere)."""
    alice, bob = installed(emulator, "alice"), emulator.create_user("bob")
    dm = emulator.open_private(alice, bob)
    res = await emulator.invoke(alice, "ttt start", {"opponent": bob, "first": "me", "pace": 3,
                                "game": "ultimate"}, channel=dm)  # fmt: skip
    res = await emulator.click(bob, res.message, press(res.message, "Accept"))
    board = res.message
    res = await emulator.invoke(alice, "ttt games")
    assert entries(res)[0].startswith("`1.` ultimate tic-tac-toe, nine boards in one against")
    res = await emulator.click(alice, res.message, press(res.message, "Board 1"))
    private = res.message
    assert res.ephemeral and sorted(boards(private)) == list(range(9))
    res = await emulator.click(alice, private, boards(private)[4]["custom_id"])
    assert res.type == 7 and res.ephemeral and sorted(squares(res.message)) == list(range(36, 45))
    res = await emulator.click(alice, res.message, squares(res.message)[40]["custom_id"])
    assert res.type == 7 and res.ephemeral
    (game,) = await bot.repo.running_games()
    assert game.moves == (40,) and game.message_id == int(board["id"])
    # the DM's board, its token still fresh, shows the move as well
    await eventually(lambda: ply(emulator.message(board["id"])) == 1,
                     "the DM's board edited through its kept token")  # fmt: skip
