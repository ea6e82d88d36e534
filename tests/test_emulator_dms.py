"""The emulator's DMs as a bot opens them (Discord's Create DM, ``POST /users/@me/channels``):
the same channel for the same user, messages there kept and clickable like a server's
(components-v2 layouts too), 50007 for a user the bot cannot reach, the route's rate
limit, and a retried message with ``enforce_nonce`` answered with the first. Proven
against unmodified discord.py."""

from __future__ import annotations

import asyncio

import aiohttp
import discord
import pytest
from test_emulator import Board, EmuBot, running_bot

from discord_emulator import IS_COMPONENTS_V2, DiscordEmulator, buttons, text_of


@pytest.fixture
async def bot(emulator: DiscordEmulator):
    async with running_bot(emulator, persistent=True) as client:
        yield client


async def test_a_dm_the_bot_opens_is_one_channel_kept_and_clickable(
    emulator: DiscordEmulator, bot: EmuBot
) -> None:
    alice = emulator.create_user("alice")
    data = await bot.http.start_private_message(alice.id)
    assert data["type"] == 1 and [u["id"] for u in data["recipients"]] == [str(alice.id)]
    again = await bot.http.start_private_message(alice.id)
    assert again["id"] == data["id"]  # Discord answers the DM channel there is
    assert emulator.open_dm(alice).id == int(data["id"])  # the one alice's client shows

    channel = bot.get_partial_messageable(int(data["id"]), type=discord.ChannelType.private)
    sent = await channel.send("your move", view=Board(bot.log))
    dm = emulator.open_dm(alice)
    assert [m["id"] for m in emulator.channel_messages(dm)] == [str(sent.id)]
    res = await emulator.click(alice, emulator.message(sent.id), "ttt:a")
    assert res.type == 7 and res.content == "A pressed"
    payload = emulator.interactions[res.id].payload
    assert payload["context"] == 1 and "member" not in payload and "guild_id" not in payload
    assert payload["user"]["id"] == str(alice.id)
    assert bot.log["clicks"] == [("a", alice.id)]
    await channel.get_partial_message(sent.id).edit(content="moved")
    assert emulator.message(sent.id)["content"] == "moved"
    assert emulator.violations == []


async def test_a_layout_in_a_dm_is_kept_clickable_and_stays_a_layout(
    emulator: DiscordEmulator, bot: EmuBot
) -> None:
    """Discord takes IS_COMPONENTS_V2 on any message a bot creates (Create Message,
    whatever the channel's type), a DM's too, with the rules of a server's message."""
    alice = emulator.create_user("alice")
    channel = bot.get_partial_messageable(emulator.open_dm(alice).id)
    layout = discord.ui.LayoutView()
    square = discord.ui.Button[discord.ui.LayoutView](label="1", custom_id="dm:square")
    layout.add_item(discord.ui.Container(discord.ui.TextDisplay("your move"),
                                         discord.ui.ActionRow(square)))  # fmt: skip
    sent = await channel.send(view=layout)
    stored = emulator.message(sent.id)
    assert stored["flags"] & IS_COMPONENTS_V2 and stored["content"] == ""
    assert text_of(stored) == "your move" and buttons(stored)[0][0]["custom_id"] == "dm:square"
    clicked = asyncio.create_task(emulator.click(alice, stored, "dm:square"))
    interaction = await bot.wait_for(
        "interaction", check=lambda i: i.type is discord.InteractionType.component, timeout=5
    )
    assert interaction.guild_id is None and interaction.message is not None
    assert interaction.message.flags.components_v2
    done = discord.ui.LayoutView()
    done.add_item(discord.ui.Container(discord.ui.TextDisplay("played")))
    await interaction.response.edit_message(content=None, view=done)
    res = await clicked
    assert res.type == 7 and res.text == "played" and buttons(res.message) == []
    assert emulator.message(sent.id)["flags"] & IS_COMPONENTS_V2  # the flag stays
    with pytest.raises(discord.HTTPException):  # and text cannot come back beside it
        await channel.get_partial_message(sent.id).edit(content="moved")
    assert "The 'content' field cannot be used" in str(emulator.violations)
    emulator.violations.clear()


async def test_a_user_the_bot_cannot_reach_answers_50007(
    emulator: DiscordEmulator, bot: EmuBot
) -> None:
    closed, away = emulator.create_user("closed"), emulator.create_user("away")
    closed.dms_closed = True  # DMs from server members off, or the bot blocked
    emulator.guild.member_ids.remove(away.id)  # left the only server shared with the bot
    for user in (closed, away):
        data = await bot.http.start_private_message(user.id)  # opening one is allowed
        channel = bot.get_partial_messageable(int(data["id"]), type=discord.ChannelType.private)
        with pytest.raises(discord.Forbidden) as refused:
            await channel.send("your move")
        assert refused.value.code == 50007 and refused.value.status == 403
        assert refused.value.text == "Cannot send messages to this user"
    closed.dms_closed = False
    await bot.get_partial_messageable(emulator.open_dm(closed).id).send("reached")
    assert emulator.violations == []


async def test_opening_dms_is_rate_limited_and_discord_py_waits(
    emulator: DiscordEmulator, bot: EmuBot
) -> None:
    users = [emulator.create_user(f"u{n}") for n in range(5)]
    limit = emulator.rate_limits.dm
    limit.set(1, 0.3)
    for user in users[:3]:  # discord.py reads the headers and waits: no call within a window
        await bot.http.start_private_message(user.id)
    assert (limit.calls, limit.limited, limit.early) == (3, 0, 0)
    url = f"{emulator.api_base}/users/@me/channels"
    headers = {"Authorization": f"Bot {emulator.token}"}
    limit.set(1, 0.3)
    async with aiohttp.ClientSession() as session:  # a client that does not wait
        first = await session.post(url, json={"recipient_id": str(users[3].id)}, headers=headers)
        assert first.status == 200 and first.headers["X-RateLimit-Remaining"] == "0"
        second = await session.post(url, json={"recipient_id": str(users[4].id)}, headers=headers)
        assert second.status == 429 and float(second.headers["Retry-After"]) > 0
        assert second.headers["Via"] and second.headers["X-RateLimit-Bucket"] == "create-dm"
        body = await second.json()
        assert body["global"] is False and 0 < body["retry_after"] <= 0.3
    assert (limit.limited, limit.early) == (1, 0)


async def test_a_message_sent_again_with_its_nonce_is_not_doubled(
    emulator: DiscordEmulator, bot: EmuBot
) -> None:
    alice = emulator.create_user("alice")
    channel = bot.get_partial_messageable(emulator.open_dm(alice).id)
    first = await channel.send("your move", nonce=4242)  # discord.py sets enforce_nonce
    again = await channel.send("your move", nonce=4242)
    assert again.id == first.id and len(emulator.channel_messages(emulator.open_dm(alice))) == 1
    other = await channel.send("next move", nonce=4243)
    assert other.id != first.id
