"""Open challenges in Discord: posted for anyone, the challenger cannot take their own,
the first member to accept plays; in the server's language."""

from __future__ import annotations

import pytest

from bot.discord_ui import custom_ids

from bot_harness import board_of, cell_id, running_bot, settings_for
from discord_emulator import DiscordEmulator, buttons


@pytest.fixture
async def bot(emulator: DiscordEmulator, tmp_path):
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3", challenge_timeout=1.5)
    async with running_bot(emulator, settings) as bot:
        yield bot


def clicks(message: dict, kind: type) -> str:
    (custom_id,) = [
        b["custom_id"]
        for row in buttons(message)
        for b in row
        if isinstance(custom_ids.parse(b["custom_id"]), kind)
    ]
    return custom_id


async def test_anyone_but_the_challenger_may_take_an_open_challenge(emulator, bot) -> None:
    alice, bob, carol = (emulator.create_user(n) for n in ("alice", "bob", "carol"))
    res = await emulator.invoke(alice, "ttt start", {"open": True, "first": "me"})
    assert res.type == 4 and not res.ephemeral
    assert res.content.startswith(f"<@{alice.id}> is looking for an opponent (3×3")
    assert [b["label"] for row in buttons(res.message) for b in row] == ["Accept", "Withdraw"]
    callback = next(
        body
        for method, path, body, _ in reversed(emulator.requests)
        if method == "POST" and path.startswith(f"/interactions/{res.id}/")
    )
    assert callback["data"]["allowed_mentions"]["users"] == []  # nobody is pinged
    challenge = res.message
    accept = clicks(challenge, custom_ids.AcceptClick)
    res = await emulator.click(alice, challenge, accept)
    assert res.ephemeral and "your own challenge" in res.content
    res = await emulator.click(carol, challenge, clicks(challenge, custom_ids.DeclineClick))
    assert res.ephemeral and f"Only <@{alice.id}> can withdraw" in res.content
    res = await emulator.click(bob, challenge, accept)
    assert res.type == 7 and res.message["id"] == challenge["id"]
    assert res.content.startswith(f"❌ <@{alice.id}>  vs  ⭕ <@{bob.id}>")
    board = res.message
    res = await emulator.click(alice, board, cell_id(board, 4))
    assert res.type == 7 and board_of(res.message) == "....X...."


@pytest.mark.slow  # waits seconds for a timer
async def test_an_open_challenge_in_french_is_withdrawn_then_expires(emulator, bot) -> None:
    guild = emulator.create_guild("Le serveur", locale="fr")
    channel = guild.channels[0]
    amelie = emulator.create_user("amelie", locale="fr", guilds=[guild])
    await emulator.wait_until_ready()
    res = await emulator.invoke(amelie, "ttt start", {"open": True}, channel=channel)
    assert res.content.startswith(f"<@{amelie.id}> cherche un adversaire (3×3")
    assert [b["label"] for row in buttons(res.message) for b in row] == ["Accepter", "Retirer"]
    challenge = res.message
    res = await emulator.click(amelie, challenge, clicks(challenge, custom_ids.AcceptClick))
    assert res.ephemeral and "C'est ton propre défi" in res.content
    res = await emulator.click(amelie, challenge, clicks(challenge, custom_ids.DeclineClick))
    assert res.type == 7 and res.content == f"<@{amelie.id}> a retiré son défi ouvert."
    assert buttons(res.message) == []
    # a second one, left alone, closes at its time (1.5 s here)
    res = await emulator.invoke(amelie, "ttt start", {"open": True}, channel=channel)
    message_id = res.message["id"]
    closed = await emulator.wait_for_message(
        lambda m: m["id"] == message_id and "personne n'a accepté" in m["content"]
    )
    assert buttons(closed) == []


async def test_open_and_a_named_opponent_is_refused(emulator, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    res = await emulator.invoke(alice, "ttt start", {"open": True, "opponent": bob})
    assert res.ephemeral and "An open challenge is for anyone" in res.content
