"""The emulator's IS_COMPONENTS_V2 messages (containers, text displays, action rows
nested in them): Discord's rules on them, each shown to refuse what Discord refuses and
to let through what it accepts, and a click on a nested button as a discord.py client
receives it."""

from __future__ import annotations

import asyncio
from typing import Any

import discord
import pytest
from discord.http import Route
from test_emulator import EmuBot, running_bot

from discord_emulator import IS_COMPONENTS_V2, DiscordEmulator, buttons, text_of


@pytest.fixture
async def bot(emulator: DiscordEmulator):
    async with running_bot(emulator) as client:
        yield client


def text(content: str) -> dict[str, Any]:
    return {"type": 10, "content": content}


def row(*custom_ids: str) -> dict[str, Any]:
    return {"type": 1, "components": [{"type": 2, "style": 2, "label": c, "custom_id": c}
                                      for c in custom_ids]}  # fmt: skip


async def post(bot: EmuBot, emulator: DiscordEmulator, body: dict[str, Any]) -> dict[str, Any]:
    route = Route("POST", "/channels/{c}/messages", c=emulator.channel.id)
    return await bot.http.request(route, json=body)  # type: ignore[no-any-return]


async def patch(
    bot: EmuBot, emulator: DiscordEmulator, message_id: str, body: dict[str, Any]
) -> dict[str, Any]:
    route = Route("PATCH", "/channels/{c}/messages/{m}", c=emulator.channel.id, m=message_id)
    return await bot.http.request(route, json=body)  # type: ignore[no-any-return]


def refused(emulator: DiscordEmulator, code: str) -> dict[str, Any]:
    """The one error response just recorded, which must carry ``code``; clears it."""
    assert len(emulator.violations) == 1, emulator.violations
    (_, _, status, body) = emulator.error_responses[-1]
    assert status == 400 and body["code"] == 50035 and code in str(body["errors"]), body
    emulator.violations.clear()
    return body


async def test_a_v2_message_may_not_carry_content_or_embeds(
    emulator: DiscordEmulator, bot: EmuBot
) -> None:
    for legacy in ({"content": "hi"}, {"embeds": [{"title": "t"}]}):
        body = {"flags": IS_COMPONENTS_V2, "components": [text("board")], **legacy}
        with pytest.raises(discord.HTTPException) as info:
            await post(bot, emulator, body)
        assert info.value.status == 400
        errors = refused(emulator, "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2")["errors"]
        assert list(errors) == list(legacy)
    sent = await post(bot, emulator, {"flags": IS_COMPONENTS_V2, "components": [text("board")]})
    assert sent["content"] == "" and text_of(sent) == "board"


async def test_a_v2_message_holds_at_most_40_components_counted_through_the_tree(
    emulator: DiscordEmulator, bot: EmuBot
) -> None:
    def container(texts: int) -> dict[str, Any]:
        # 1 container + 6 rows of 5 buttons (36) + texts: 40 with 3 texts
        rows = [row(*(f"b{r}{c}" for c in range(5))) for r in range(6)]
        return {"type": 17, "components": [text(f"t{i}") for i in range(texts)] + rows}

    with pytest.raises(discord.HTTPException):
        await post(bot, emulator, {"flags": IS_COMPONENTS_V2, "components": [container(4)]})
    assert "40 or fewer" in str(refused(emulator, "BASE_TYPE_MAX_LENGTH"))
    sent = await post(bot, emulator, {"flags": IS_COMPONENTS_V2, "components": [container(3)]})
    assert len(sent["components"]) == 1 and sum(len(r) for r in buttons(sent)) == 30
    ids = [sent["components"][0]["id"]] + [b["id"] for r in buttons(sent) for b in r]
    assert len(set(ids)) == len(ids) and all(isinstance(i, int) and i > 0 for i in ids)


async def test_v2_rules_on_rows_ids_and_text(emulator: DiscordEmulator, bot: EmuBot) -> None:
    nested_wide = {"type": 17, "components": [row("a", "b", "c", "d", "e", "f")]}
    with pytest.raises(discord.HTTPException):
        await post(bot, emulator, {"flags": IS_COMPONENTS_V2, "components": [nested_wide]})
    emulator.violations.clear()  # the spec or the emulator's own rule, whichever first
    twice = [{"type": 17, "components": [row("same")]}, row("same")]
    with pytest.raises(discord.HTTPException):
        await post(bot, emulator, {"flags": IS_COMPONENTS_V2, "components": twice})
    refused(emulator, "COMPONENT_CUSTOM_ID_DUPLICATED")
    long_text = [text("x" * 2000), text("y" * 2001)]
    with pytest.raises(discord.HTTPException):
        await post(bot, emulator, {"flags": IS_COMPONENTS_V2, "components": long_text})
    assert "4000" in str(refused(emulator, "BASE_TYPE_MAX_LENGTH"))
    with pytest.raises(discord.HTTPException):  # a text display needs the flag
        await post(bot, emulator, {"content": "hi", "components": [text("board")]})
    emulator.violations.clear()


async def test_the_v2_flag_is_set_by_an_edit_that_clears_content_and_never_removed(
    emulator: DiscordEmulator, bot: EmuBot
) -> None:
    legacy = await post(bot, emulator, {"content": "challenge", "components": [row("accept")]})
    upgrade = {"flags": IS_COMPONENTS_V2, "components": [text("board"), row("cell")]}
    with pytest.raises(discord.HTTPException):  # the content would stay: refused
        await patch(bot, emulator, legacy["id"], upgrade)
    refused(emulator, "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2")
    assert emulator.message(legacy["id"])["content"] == "challenge"
    edited = await patch(bot, emulator, legacy["id"], upgrade | {"content": None})
    assert edited["flags"] & IS_COMPONENTS_V2 and edited["content"] == ""
    assert text_of(edited) == "board"

    with pytest.raises(discord.HTTPException):
        await patch(bot, emulator, legacy["id"], {"flags": 0, "components": [row("cell")]})
    refused(emulator, "MESSAGE_CANNOT_REMOVE_COMPONENTS_V2_FLAG")
    with pytest.raises(discord.HTTPException):  # no flags sent: the message keeps it
        await patch(bot, emulator, legacy["id"], {"content": "plain again"})
    refused(emulator, "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2")
    assert emulator.message(legacy["id"])["flags"] & IS_COMPONENTS_V2


async def test_a_click_in_a_container_reaches_discord_py_as_discord_sends_it(
    emulator: DiscordEmulator, bot: EmuBot
) -> None:
    channel = bot.get_channel(emulator.channel.id)
    assert isinstance(channel, discord.TextChannel)
    layout = discord.ui.LayoutView()
    button = discord.ui.Button[discord.ui.LayoutView](label="go", custom_id="nested:go")
    layout.add_item(discord.ui.Container(discord.ui.TextDisplay("board"),
                                         discord.ui.ActionRow(button)))  # fmt: skip
    sent = await channel.send(view=layout)
    stored = emulator.message(sent.id)
    assert stored["flags"] & IS_COMPONENTS_V2 and stored["components"][0]["type"] == 17
    alice = emulator.create_user("alice")
    clicked = asyncio.create_task(emulator.click(alice, stored, "nested:go"))
    interaction = await bot.wait_for(
        "interaction", check=lambda i: i.type is discord.InteractionType.component, timeout=5
    )
    done = discord.ui.LayoutView()
    done.add_item(discord.ui.Container(discord.ui.TextDisplay("clicked")))
    await interaction.response.edit_message(view=done)
    res = await clicked
    assert interaction.data is not None
    assert interaction.data["id"] == buttons(stored)[0][0]["id"]  # type: ignore[typeddict-item]
    assert interaction.message is not None and interaction.message.flags.components_v2
    (container,) = interaction.message.components
    assert isinstance(container, discord.components.Container)
    (_, action_row) = container.children
    assert [b.custom_id for b in action_row.children] == ["nested:go"]  # type: ignore[attr-defined]
    assert res.type == 7 and res.text == "clicked" and res.content == ""
