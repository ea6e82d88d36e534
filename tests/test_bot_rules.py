"""Who may do what: turns, busy channels, stale boards, double clicks, timeouts."""

from __future__ import annotations

import asyncio

import pytest

from engine import Board

from bot_harness import accepted_member_game, board_of, cell_id, running_bot, settings_for
from discord_emulator import DiscordEmulator, buttons


@pytest.fixture
async def bot(emulator: DiscordEmulator, tmp_path):
    settings = settings_for(
        emulator, tmp_path / "ttt.sqlite3", turn_timeout=1.5, challenge_timeout=1.5
    )
    async with running_bot(emulator, settings) as bot:
        yield bot


async def test_second_game_in_a_channel_is_refused_with_a_link(emulator: DiscordEmulator, bot):
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    first = await emulator.invoke(alice, "ttt start", {"first": "me"})
    res = await emulator.invoke(bob, "ttt start", {"first": "me"})
    assert res.ephemeral
    assert f"/{emulator.channel.id}/{first.message['id']}" in res.content
    other = emulator.create_channel(emulator.guild.id, "more-games")
    res = await emulator.invoke(bob, "ttt start", {"first": "me"}, channel=other)
    assert res.type == 4 and not res.ephemeral


async def test_only_the_player_to_move_can_move(emulator: DiscordEmulator, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    res = await emulator.invoke(alice, "ttt start", {"first": "me"})
    message = res.message
    res = await emulator.click(bob, message, cell_id(message, 4))
    assert res.ephemeral and "not playing in this game" in res.content
    assert board_of(emulator.message(message["id"])) == "........."


async def test_member_game_turns(emulator: DiscordEmulator, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    message = await accepted_member_game(emulator, alice, bob)
    assert board_of(message) == "........."  # the helper checked the type-7 update
    res = await emulator.click(bob, message, cell_id(message, 0))  # alice is X and moves first
    assert res.ephemeral and "not your turn" in res.content and f"<@{alice.id}>" in res.content
    res = await emulator.click(alice, message, cell_id(message, 0))
    assert board_of(res.message) == "X........" and f"<@{bob.id}> to move" in res.content


async def test_a_stale_board_never_gets_a_move(emulator: DiscordEmulator, bot) -> None:
    alice = emulator.create_user("alice")
    res = await emulator.invoke(alice, "ttt start", {"first": "me", "difficulty": "hard"})
    old = res.message
    res = await emulator.click(alice, old, cell_id(old, 4))
    seen = board_of(res.message)
    free = Board.from_string(seen).legal_moves()[0]
    # a click on the board as it was before (a lagging client): refused, nothing changes
    res = await emulator.click(alice, old, cell_id(old, free), force=True)
    assert res.ephemeral and "out of date" in res.content
    assert board_of(emulator.message(old["id"])) == seen


async def test_double_click_applies_exactly_one_move(emulator: DiscordEmulator, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    message = await accepted_member_game(emulator, alice, bob)
    first, second = await asyncio.gather(
        emulator.click(alice, message, cell_id(message, 0)),
        emulator.click(alice, message, cell_id(message, 1)),
    )
    results = sorted([first, second], key=lambda r: r.ephemeral)
    assert results[0].type == 7 and not results[0].ephemeral
    assert results[1].ephemeral and "out of date" in results[1].content
    board = board_of(emulator.message(message["id"]))
    assert board.count("X") == 1 and board.count("O") == 0


async def test_both_players_clicking_at_once(emulator: DiscordEmulator, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    message = await accepted_member_game(emulator, alice, bob)
    a, b = await asyncio.gather(
        emulator.click(alice, message, cell_id(message, 0)),
        emulator.click(bob, message, cell_id(message, 1)),
    )
    assert not a.ephemeral and b.ephemeral
    assert board_of(emulator.message(message["id"])) == "X........"


async def test_resign_command_updates_the_game(emulator: DiscordEmulator, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    res = await emulator.invoke(bob, "ttt resign")
    assert res.ephemeral and "no running game" in res.content
    game_id = (await accepted_member_game(emulator, alice, bob))["id"]
    res = await emulator.invoke(bob, "ttt resign")
    assert res.ephemeral and "resigned" in res.content
    edited = await emulator.wait_for_message(
        lambda m: m["id"] == game_id and "resigned" in m["content"], include_existing=True
    )
    assert f"<@{bob.id}> resigned. **<@{alice.id}> wins.**" in edited["content"]
    # the channel is free again
    res = await emulator.invoke(alice, "ttt start", {"first": "me"})
    assert res.type == 4 and not res.ephemeral


@pytest.mark.slow  # waits seconds for a timer
async def test_turn_timeout_loses_the_game(emulator: DiscordEmulator, bot) -> None:
    alice = emulator.create_user("alice")
    res = await emulator.invoke(alice, "ttt start", {"first": "me"})
    game_id = res.message["id"]
    edited = await emulator.wait_for_message(
        lambda m: m["id"] == game_id and "ran out of time" in m["content"]
    )
    assert f"<@{alice.id}> ran out of time. **the bot (medium) wins.**" in edited["content"]
    assert all(b.get("disabled") for row in buttons(edited)[:3] for b in row)
