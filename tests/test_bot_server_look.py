"""A server's own language and marks, chosen with /ttt config: public messages in the
chosen language while private replies keep each member's; the server's emoji on boards
and in reviews; unusable marks refused; everything kept across a restart."""

from __future__ import annotations

import pytest

from bot.core.policy import parse_mark

from bot_harness import cell_buttons, cell_id, running_bot, settings_for
from discord_emulator import DiscordEmulator, find_button

MANAGE_GUILD = 1 << 5


@pytest.mark.parametrize(
    "mark", ["❌", "❤️", "1️⃣", "#️⃣", "🇫🇷", "👍🏽", "👨‍👩‍👧", "<:blob:123456789012345678>",
             "<a:dance:123456789012345678>"],
)  # fmt: skip
def test_one_emoji_is_a_mark(mark: str) -> None:
    assert parse_mark(f" {mark} ") == mark


@pytest.mark.parametrize(
    "raw", ["X", "ab", "❌⭕", "🍎 🍐", "🇫🇷🇩🇪", "é", "\ufe0f", "<:b:1>", "<:blob:12>x", "",
            "★", "✓", "⌘", "°", "🄰", "🏽"],  # symbols, and a skin tone alone, are no emoji
)  # fmt: skip
def test_anything_else_is_not(raw: str) -> None:
    assert parse_mark(raw) is None


def test_a_heart_without_its_selector_is_taken_as_the_emoji() -> None:
    assert parse_mark("\u2764") == "\u2764\ufe0f"  # what Discord shows as ❤️


def config_fields(res) -> dict[str, str]:
    return {f["name"]: f["value"] for f in res.embeds[0]["fields"]}


async def test_a_servers_language_for_public_messages(emulator: DiscordEmulator, tmp_path) -> None:
    assert emulator.guild.locale == "en-US"  # what a non-Community server always reports
    admin = emulator.create_user("admin")
    admin.permissions = MANAGE_GUILD
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob", locale="es-ES")
    settings = settings_for(emulator, tmp_path / "db.sqlite3")
    async with running_bot(emulator, settings):
        res = await emulator.invoke(admin, "ttt config", {"language": "de"})
        assert res.content.startswith("Saved.")  # the admin's own reply: their language
        assert config_fields(res)["Language of public messages"] == "Deutsch"
        res = await emulator.invoke(alice, "ttt start", {"first": "me", "difficulty": "easy"})
        assert f"<@{alice.id}> ist am Zug" in res.content
        assert find_button(res.message, label="Aufgeben") is not None
        board = res.message
        res = await emulator.click(bob, board, cell_id(board, 0))  # not bob's game
        assert res.ephemeral and res.content.startswith("No estás jugando")
        res = await emulator.invoke(alice, "ttt leaderboard")
        assert res.embeds[0]["title"] == "Rangliste: klassische Felder (3×3 bis 5×5)"
    async with running_bot(emulator, settings):  # kept across a restart
        res = await emulator.invoke(admin, "ttt config")
        assert config_fields(res)["Language of public messages"] == "Deutsch"
        res = await emulator.invoke(admin, "ttt config", {"language": "server"})
        assert config_fields(res)["Language of public messages"] == "The server's own language"
        res = await emulator.invoke(bob, "ttt leaderboard")
        assert res.embeds[0]["title"] == "Leaderboard: classic boards (3×3 to 5×5)"


async def test_a_servers_own_marks(emulator: DiscordEmulator, tmp_path) -> None:
    admin = emulator.create_user("admin", locale="fr")
    admin.permissions = MANAGE_GUILD
    alice = emulator.create_user("alice")
    cat = emulator.create_emoji("cat")  # in the guild before the bot connects: cached
    settings = settings_for(emulator, tmp_path / "db.sqlite3")
    async with running_bot(emulator, settings):
        dog = emulator.create_emoji("dog")  # added later: the bot asks Discord
        gone = emulator.create_emoji("gone", available=False)
        other_server = emulator.create_emoji("elsewhere", emulator.create_guild("Other"))
        for mark, expected in [
            ("ab", "**ab** n'est pas un seul emoji"),
            ("❌⭕", "n'est pas un seul emoji"),
            (gone, f"Je ne peux pas utiliser {gone}"),
            (other_server, f"Je ne peux pas utiliser {other_server}"),
            ("<:ghost:123456789012345678>", "Je ne peux pas utiliser <:ghost:"),
            ("⭕", "trois marques différentes (actuellement ⭕ ⭕ ⬜)"),
        ]:
            res = await emulator.invoke(admin, "ttt config", {"mark_x": mark})
            assert res.ephemeral and expected in res.content, (mark, res.content)
            assert "Rien n'a été modifié" in res.content
        res = await emulator.invoke(admin, "ttt config")
        assert config_fields(res)["Marques (X, O, vide)"] == "❌ ⭕ ⬜"
        res = await emulator.invoke(
            admin, "ttt config", {"mark_x": cat, "mark_o": dog, "mark_empty": "⬛"}
        )
        assert config_fields(res)["Marques (X, O, vide)"] == f"{cat} {dog} ⬛"
        # a game in them, played to its end on the first free square each time
        res = await emulator.invoke(alice, "ttt start", {"first": "me", "difficulty": "easy"})
        assert res.content.startswith(f"{cat} <@{alice.id}>  vs  {dog}")
        assert "⬛⬛⬛\n⬛⬛⬛\n⬛⬛⬛" in res.content
        message = res.message
        while find_button(message, label="Review") is None:
            free = [i for i, b in enumerate(cell_buttons(message)) if not b.get("disabled")]
            res = await emulator.click(alice, message, cell_id(message, free[0]))
            message = res.message
        taken = [b["emoji"] for b in cell_buttons(message) if "emoji" in b]
        cat_id, dog_id = cat.split(":")[2][:-1], dog.split(":")[2][:-1]
        assert {str(e["id"]) for e in taken} == {cat_id, dog_id}
        shown = {cat_id: cat, dog_id: dog}
        squares = [shown.get(str((b.get("emoji") or {}).get("id")), "⬛")
                   for b in cell_buttons(message)]  # fmt: skip
        grid = "\n".join("".join(squares[row * 3 : row * 3 + 3]) for row in range(3))
        assert grid in message["content"]  # the text grid matches the buttons
        res = await emulator.click(
            alice, message, find_button(message, label="Review")["custom_id"]
        )
        assert res.ephemeral and f"1. {cat} " in res.content and f"2. {dog} " in res.content
        assert "❌" not in res.content and "⭕" not in res.content
    async with running_bot(emulator, settings):  # kept across a restart
        res = await emulator.invoke(admin, "ttt config")
        assert config_fields(res)["Marques (X, O, vide)"] == f"{cat} {dog} ⬛"
        res = await emulator.invoke(admin, "ttt config", {"reset_marks": True})
        assert config_fields(res)["Marques (X, O, vide)"] == "❌ ⭕ ⬜"
