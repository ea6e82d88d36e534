"""Correspondence games through Discord: a pace of days a move on the challenge and the
board, deadlines as Discord timestamps, and the timekeeper's sweep ending a game days
later. The games' clock is the test's: it moves days without anybody waiting."""

from __future__ import annotations

import pytest

from bot.core.models import DAY
from bot.web.game_json import game_json

from bot_harness import board_of, cell_id, running_bot, settings_for
from correspondence_harness import MovableClock, press, stamp
from discord_emulator import DiscordEmulator


@pytest.fixture
def clock() -> MovableClock:
    return MovableClock()


@pytest.fixture
async def bot(emulator: DiscordEmulator, tmp_path, clock: MovableClock):
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3")
    async with running_bot(emulator, settings, game_clock=clock) as bot:
        yield bot


async def test_a_three_day_game_is_lost_on_time_days_later(emulator, transport, bot, clock) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    res = await emulator.invoke(alice, "ttt start", {"opponent": bob, "first": "me", "pace": 3})
    assert res.type == 4 and not res.ephemeral
    assert "Correspondence game: 3 days a move." in res.content
    assert stamp(clock() + 3 * DAY) in res.content  # the challenge waits three days
    clock.advance(2 * DAY)
    res = await emulator.click(bob, res.message, press(res.message, "Accept"))
    assert res.type == 7
    board = res.message
    assert f"<@{alice.id}> to move (❌), {stamp(clock() + 3 * DAY)}." in board["content"]
    assert board["content"].endswith("\nCorrespondence game: 3 days a move.")
    clock.advance(DAY)
    res = await emulator.click(alice, board, cell_id(board, 4))
    assert res.type == 7 and board_of(res.message) == "....X...."
    board = res.message
    assert f"<@{bob.id}> to move (⭕), {stamp(clock() + 3 * DAY)}." in board["content"]

    clock.advance(3 * DAY)  # bob's three days are over; the sweep may not have run yet
    res = await emulator.click(bob, board, cell_id(board, 0))
    assert res.ephemeral and "Too late: the time for this move has run out" in res.content
    bot.games.alarm.ring()  # the timekeeper's longest sleep would end it within a minute
    ended = await emulator.wait_for_message(
        lambda m: m["id"] == board["id"] and "ran out of time" in m["content"],
        include_existing=True,
    )
    assert f"<@{bob.id}> ran out of time. **<@{alice.id}> wins.**" in ended["content"]
    assert board_of(ended) == "....X...."  # bob's late move was not played


async def test_a_game_nobody_moved_in_is_cancelled_unrated(emulator, bot, clock) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    res = await emulator.invoke(alice, "ttt start", {"opponent": bob, "first": "me", "pace": 1})
    res = await emulator.click(bob, res.message, press(res.message, "Accept"))
    board = res.message
    clock.advance(DAY)
    bot.games.alarm.ring()  # as the timekeeper's longest sleep would, a minute later
    ended = await emulator.wait_for_message(
        lambda m: m["id"] == board["id"] and "Cancelled" in m["content"], include_existing=True
    )
    assert "Cancelled: nobody made the first move in time. Unrated." in ended["content"]
    assert await bot.repo.leaderboard(emulator.guild.id, 10) == []  # nobody rated
    res = await emulator.invoke(bob, "ttt history")  # its message is there: not "deleted"
    (line,) = str(res.embeds[0]["description"]).splitlines()
    assert line.startswith(f"**No result** vs <@{alice.id}> — no first move in time, ")


async def test_a_pace_against_the_bot_or_an_unknown_one_is_refused(emulator, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    res = await emulator.invoke(alice, "ttt start", {"pace": 3})
    assert res.ephemeral and res.content.startswith("A pace of days is for games against a member")
    data = emulator.command_data("ttt start", {"opponent": bob, "pace": 3})
    (pace,) = [o for o in data["options"][0]["options"] if o["name"] == "pace"]
    pace["value"] = 2  # no such choice: a client that kept an old copy of the command
    res = await emulator.invoke_raw(alice, data)
    assert res.ephemeral and "There is no pace of 2 days a move" in res.content
    assert emulator.channel_messages(emulator.channel.id) == []
    res = await emulator.invoke(alice, "ttt start", {"opponent": bob, "pace": 0})  # live
    assert not res.ephemeral and "Correspondence" not in res.content


async def test_a_rematch_and_an_open_challenge_keep_their_pace(emulator, bot, clock) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    res = await emulator.invoke(alice, "ttt start", {"opponent": bob, "first": "me", "pace": 7})
    res = await emulator.click(bob, res.message, press(res.message, "Accept"))
    res = await emulator.click(alice, res.message, press(res.message, "Resign"))
    assert res.content.endswith("\nCorrespondence game: 7 days a move.")
    res = await emulator.click(bob, res.message, press(res.message, "Rematch"))
    assert "wants a rematch" in res.content
    assert "Correspondence game: 7 days a move." in res.content
    assert stamp(clock() + 7 * DAY) in res.content
    res = await emulator.click(alice, res.message, press(res.message, "Decline"))
    assert "declined" in res.content and "Correspondence" not in res.content

    res = await emulator.invoke(bob, "ttt start", {"open": True, "pace": 1})
    assert "Anyone may accept" in res.content and stamp(clock() + DAY) in res.content
    assert "Correspondence game: 1 day a move." in res.content
    clock.advance(23 * 3600)
    res = await emulator.click(alice, res.message, press(res.message, "Accept"))
    assert res.type == 7 and "Correspondence game: 1 day a move." in res.message["content"]


async def test_the_live_board_says_the_pace_and_the_deadline(emulator, bot, clock) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    res = await emulator.invoke(alice, "ttt start", {"opponent": bob, "first": "me", "pace": 7})
    res = await emulator.click(bob, res.message, press(res.message, "Accept"))
    (game,) = await bot.repo.running_games()
    update = await bot.games.update(game)

    async def names(member: int) -> tuple[str, str | None]:
        return f"member {member}", None

    page = await game_json(update, viewer=bob.id, locale="fr", names=names)
    assert (
        page["days_per_move"] == 7
        and page["pace"] == "Partie par correspondance : 7 jours par coup."
    )
    assert page["deadline"] == game.turn_deadline == clock() + 7 * DAY
    live = await game_json(
        await bot.games.update(game.with_changes(days_per_move=None)), bob.id, "en", names
    )
    assert live["days_per_move"] is None and live["pace"] is None


async def test_past_the_limit_a_challenge_is_refused_privately(emulator, tmp_path) -> None:
    settings = settings_for(emulator, tmp_path / "limit.sqlite3", correspondence_games_per_member=1)
    alice, bob, carol = (emulator.create_user(n) for n in ("alice", "bob", "carol"))
    other = emulator.create_channel(emulator.guild, "other")
    async with running_bot(emulator, settings):
        res = await emulator.invoke(alice, "ttt start", {"opponent": bob, "pace": 3})
        await emulator.click(bob, res.message, press(res.message, "Accept"))
        res = await emulator.invoke(alice, "ttt start", {"opponent": carol, "pace": 1},
                                    channel=other)  # fmt: skip
        assert res.ephemeral
        assert res.content == (
            f"<@{alice.id}> already plays 1 correspondence game at once, the most allowed: "
            "one must end before another starts."
        )
        assert emulator.channel_messages(other.id) == []


async def test_a_correspondence_challenge_leaves_the_channel_free(emulator, bot) -> None:
    alice, bob, carol = (emulator.create_user(n) for n in ("alice", "bob", "carol"))
    res = await emulator.invoke(alice, "ttt start", {"opponent": bob, "pace": 7})
    assert not res.ephemeral and "Correspondence game: 7 days a move." in res.content
    res = await emulator.invoke(carol, "ttt start", {"first": "me"})  # a live game beside it
    assert res.type == 4 and not res.ephemeral and "the bot (medium)" in res.content
    res = await emulator.invoke(carol, "ttt start", {"opponent": bob})  # one live at a time
    assert res.ephemeral and "Correspondence" not in res.content
