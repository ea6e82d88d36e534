"""The live board's "My games" in a real browser, served by the real bot's web service: the
member's games and challenges everywhere, in /ttt games' order (the same core method),
a game of this channel opened on the board, the others linked to their message."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from activity_frame.fixtures import ActivityClient, ActivityPage
from activity_stub import eventually
from bot_harness import board_of
from discord_emulator import DiscordEmulator, find_button
from web_harness import bot_with_web

pytestmark = pytest.mark.browser
DOCS = Path(__file__).resolve().parents[1] / "docs" / "images"


async def open_home(client: ActivityClient, emu: DiscordEmulator, base: str, user,
                    **options) -> ActivityPage:  # fmt: skip
    channel = emu.channel
    instance = emu.launch_activity(user, channel)
    page = await client.open(
        f"{base}/.proxy/", client_id=str(emu.client_id), instance_id=instance,
        channel_id=str(channel.id), guild_id=str(emu.guild.id),
        authorize=lambda args: emu.authorize(user),
        user={"id": str(user.id), "username": user.name}, **options,
    )  # fmt: skip
    await page.activity.locator("[data-key=my-games] li").first.wait_for()
    return page


async def accepted(emu, challenger, opponent, pace, channel=None, first="me") -> dict:
    res = await emu.invoke(challenger, "ttt start",
                           {"opponent": opponent, "first": first, "pace": pace},
                           channel=channel)  # fmt: skip
    accept = find_button(res.message, label="Accept")
    assert accept is not None
    return (await emu.click(opponent, res.message, accept["custom_id"])).message


async def test_my_games_lists_everywhere_and_opens_this_channels_games(
    activity_client: ActivityClient, emulator: DiscordEmulator, tmp_path
) -> None:
    alice, bob, carol = (emulator.create_user(n) for n in ("alice", "bob", "carol"))
    other = emulator.create_channel(emulator.guild, "other")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (bot, base, _http):
        week = await accepted(emulator, alice, bob, 7)  # here, alice to move
        elsewhere = await accepted(emulator, alice, carol, 1, channel=other)  # due sooner
        theirs = await accepted(emulator, bob, alice, 3, first="me")  # here, bob to move
        res = await emulator.invoke(carol, "ttt start", {"opponent": alice, "pace": 3},
                                    channel=other)  # fmt: skip
        challenge = res.message
        page = await open_home(activity_client, emulator, base, alice, viewport=(430, 1100))

        section = page.activity.locator("[data-key=my-games]")
        assert await section.locator("h2").inner_text() == "My games"
        headings = await section.locator(".my-games-section").all_inner_texts()
        assert headings == ["Your move", "Waiting for your opponent", "Challenges"]
        cards = section.locator(".my-game")
        keys = [await c.get_attribute("data-key") for c in await cards.all()]
        ids = [_game_id(message) for message in (elsewhere, week, theirs)]
        assert keys == [*(f"my-game-{i}" for i in ids), f"my-challenge-{_challenge_id(challenge)}"]
        texts = await cards.all_inner_texts()
        assert texts[0].split("\n")[1:4] == ["carol", "3×3, three in a row · 1 day a move",
                                              "another channel · in 24 hours"]  # fmt: skip
        assert texts[0].endswith("Open in Discord")
        assert texts[1].split("\n")[1:3] == ["bob", "3×3, three in a row · 7 days a move"]
        assert texts[1].split("\n")[3].startswith("this channel · in 7 days")
        assert texts[1].endswith("Open")
        links = [await c.get_attribute("href") for c in await cards.all()]
        guild = emulator.guild.id
        assert links == [
            f"https://discord.com/channels/{guild}/{other.id}/{elsewhere['id']}",
            None,
            None,
            f"https://discord.com/channels/{guild}/{other.id}/{challenge['id']}",
        ]
        folder = DOCS if os.environ.get("TTT_SCREENSHOTS") else tmp_path
        await page.screenshot(folder / "activity-my-games.png")

        # the same list as /ttt games, from the same core method
        listed = await bot.my_games.of(alice.id)
        assert [str(e.item.id) for e in listed] == [k.rsplit("-", 1)[1] for k in keys]

        await cards.nth(1).click()  # this channel's game opens on the board
        await page.activity.get_by_role("grid").wait_for()
        await page.activity.get_by_role("button", name="B2, empty").click()
        await page.activity.get_by_role("button", name="B2, X").wait_for()
        await eventually(lambda: board_of(emulator.message(week["id"])) == "....X....")
        await page.activity.get_by_role("button", name=_back_label()).click()
        # back home: the list read again, that game now waits for bob
        await eventually_key_order(page, [f"my-game-{ids[0]}", f"my-game-{ids[2]}",
                                          f"my-game-{ids[1]}"])  # fmt: skip
        assert page.errors == []
    assert not emulator.violations, emulator.violations


def _back_label() -> str:
    return "All games"


def _game_id(message: dict) -> int:
    from bot.discord_ui import custom_ids

    for row in message["components"]:
        for button in row["components"]:
            click = custom_ids.parse(button["custom_id"])
            if isinstance(click, custom_ids.CellClick):
                return click.game_id
    raise AssertionError("no board")


def _challenge_id(message: dict) -> int:
    from bot.discord_ui import custom_ids

    accept = find_button(message, label="Accept")
    assert accept is not None
    click = custom_ids.parse(accept["custom_id"])
    assert isinstance(click, custom_ids.AcceptClick)
    return click.challenge_id


async def eventually_key_order(page: ActivityPage, keys: list[str]) -> None:
    cards = page.activity.locator("[data-key=my-games] .my-game")
    for _ in range(100):
        shown = [await c.get_attribute("data-key") for c in await cards.all()]
        if shown[: len(keys)] == keys:
            return
        await page.page.wait_for_timeout(50)
    raise AssertionError(f"never in order {keys}: {shown}")
