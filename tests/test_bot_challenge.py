"""Challenges between members: accept, decline, expiry, and who may answer."""

from __future__ import annotations

import pytest

from bot_harness import board_of, cell_id, running_bot, settings_for
from discord_emulator import DiscordEmulator, buttons, find_button


@pytest.fixture
async def bot(emulator: DiscordEmulator, tmp_path):
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3", challenge_timeout=1.5)
    async with running_bot(emulator, settings) as bot:
        yield bot


def button_id(message: dict, label: str) -> str:
    button = find_button(message, label=label)
    assert button is not None, f"no {label!r} button on {message.get('content')!r}"
    return button["custom_id"]


async def test_challenge_mentions_the_opponent_with_accept_and_decline(emulator, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    res = await emulator.invoke(alice, "ttt start", {"opponent": bob})
    assert res.type == 4 and not res.ephemeral
    assert res.content.startswith(f"<@{bob.id}>, <@{alice.id}> challenges you")
    labels = [b["label"] for row in buttons(res.message) for b in row]
    assert labels == ["Accept", "Decline"]
    # the ping reaches bob only: the exact allowed_mentions the bot sent
    callback = next(
        body
        for method, path, body, _ in reversed(emulator.requests)
        if method == "POST" and path.startswith(f"/interactions/{res.id}/")
    )
    allowed = callback["data"]["allowed_mentions"]
    assert (allowed["parse"], allowed["users"]) == ([], [bob.id])


async def test_accepted_challenge_becomes_the_board(emulator, transport: str, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    res = await emulator.invoke(alice, "ttt start", {"opponent": bob, "first": "opponent"})
    challenge = res.message
    res = await emulator.click(bob, challenge, button_id(challenge, "Accept"))
    assert res.type == 7 and res.message["id"] == challenge["id"]
    assert res.content.startswith(f"❌ <@{bob.id}>  vs  ⭕ <@{alice.id}>")
    # bob (X, as alice chose) plays a whole game against alice
    message = res.message
    for user, cell in [(bob, 0), (alice, 3), (bob, 1), (alice, 4), (bob, 2)]:
        res = await emulator.click(user, message, cell_id(message, cell))
        assert res.type == 7, res.content
        message = res.message
    assert board_of(message) == "XXXOO...."
    assert f"**<@{bob.id}> wins**" in message["content"]
    cells = [b for row in buttons(message)[:3] for b in row]
    assert [i for i, b in enumerate(cells) if b["style"] == 3] == [0, 1, 2]


async def test_only_the_challenged_member_can_answer(emulator, bot) -> None:
    alice, bob, carol = (emulator.create_user(n) for n in ("alice", "bob", "carol"))
    res = await emulator.invoke(alice, "ttt start", {"opponent": bob})
    challenge = res.message
    for user in (carol, alice):
        for label in ("Accept", "Decline"):
            res = await emulator.click(user, challenge, button_id(challenge, label))
            assert res.ephemeral and f"This challenge is for <@{bob.id}>" in res.content
    assert emulator.message(challenge["id"])["content"] == challenge["content"]


async def test_declined_challenge_says_so_and_frees_the_channel(emulator, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    res = await emulator.invoke(alice, "ttt start", {"opponent": bob})
    challenge = res.message
    res = await emulator.click(bob, challenge, button_id(challenge, "Decline"))
    assert res.type == 7
    assert res.content == f"<@{bob.id}> declined <@{alice.id}>'s challenge."
    assert buttons(res.message) == []
    res = await emulator.invoke(alice, "ttt start", {"first": "me"})
    assert res.type == 4 and not res.ephemeral


@pytest.mark.slow  # waits seconds for a timer
async def test_challenge_expires_and_the_message_says_so(emulator, transport, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    res = await emulator.invoke(alice, "ttt start", {"opponent": bob})
    challenge_id = res.message["id"]
    expired = await emulator.wait_for_message(
        lambda m: m["id"] == challenge_id and "expired" in m["content"]
    )
    assert (
        expired["content"] == f"<@{alice.id}>'s challenge to <@{bob.id}> expired without an answer."
    )
    assert buttons(expired) == []


async def test_challenging_yourself_or_a_bot_is_refused(emulator, bot) -> None:
    alice = emulator.create_user("alice")
    robot = emulator.create_user("robot", bot=True)
    res = await emulator.invoke(alice, "ttt start", {"opponent": alice})
    assert res.ephemeral and "can't challenge yourself" in res.content
    res = await emulator.invoke(alice, "ttt start", {"opponent": robot})
    assert res.ephemeral and "is a bot and can't play" in res.content
    assert emulator.channel_messages(emulator.channel.id) == []


async def test_challenging_this_bot_starts_a_bot_game(emulator, bot) -> None:
    alice = emulator.create_user("alice")
    me = emulator.users[emulator.application_id]
    res = await emulator.invoke(alice, "ttt start", {"opponent": me, "first": "me"})
    assert res.type == 4 and "the bot (medium)" in res.content


async def test_member_rematch_is_a_challenge_with_sides_swapped(emulator, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    res = await emulator.invoke(alice, "ttt start", {"opponent": bob, "first": "me"})
    res = await emulator.click(bob, res.message, button_id(res.message, "Accept"))
    message = res.message
    res = await emulator.click(alice, message, button_id(message, "Resign"))
    res = await emulator.click(alice, res.message, button_id(res.message, "Rematch"))
    assert res.type == 4 and "wants a rematch" in res.content
    assert res.content.startswith(f"<@{bob.id}>, <@{alice.id}>")
    res = await emulator.click(bob, res.message, button_id(res.message, "Accept"))
    # alice was X; now bob is X
    assert res.content.startswith(f"❌ <@{bob.id}>  vs  ⭕ <@{alice.id}>")
