"""Every player reads the bot in their own Discord language; catalogs stay complete."""

from __future__ import annotations

import re

import pytest

from bot.i18n import catalogs, language_of, text
from bot.i18n.texts import placeholders

from bot_harness import board_of, cell_id, running_bot, settings_for
from discord_emulator import DiscordEmulator, find_button
from discord_emulator.state import PERM_EMBED_LINKS

LANGUAGES = ["en", "fr", "de", "es", "pt-BR"]


def fields(template: str) -> set[str]:
    return placeholders(template)


def test_every_language_has_every_key_with_the_same_placeholders() -> None:
    assert sorted(catalogs()) == sorted(LANGUAGES)
    english = catalogs()["en"]
    for language in LANGUAGES[1:]:
        catalog = catalogs()[language]
        assert catalog.keys() == english.keys(), language
        for key, template in english.items():
            assert fields(catalog[key]) == fields(template), (language, key)
            if key.startswith("name."):
                assert re.fullmatch(r"[-_\w]{1,32}", catalog[key]), (language, key)
                assert catalog[key] == catalog[key].lower(), (language, key)
            if key.startswith(("cmd.", "choice.")):
                assert len(catalog[key]) <= 100, (language, key)


@pytest.mark.parametrize(
    ("language", "counts", "expected"),
    [
        ("en", (1, 0, 2), "1 win · 0 losses · 2 draws"),
        ("en", (2, 1, 1), "2 wins · 1 loss · 1 draw"),
        ("fr", (0, 1, 2), "0 victoire · 1 défaite · 2 nuls"),  # French: 0 is singular
        ("de", (1, 2, 1), "1 Sieg · 2 Niederlagen · 1 Unentschieden"),
        ("es", (0, 1, 3), "0 victorias · 1 derrota · 3 empates"),
        ("pt-BR", (0, 1, 5), "0 vitória · 1 derrota · 5 empates"),
    ],
)
def test_counts_take_each_languages_plural(language, counts, expected) -> None:
    wins, losses, draws = counts
    assert text("stats.record", language, wins=wins, losses=losses, draws=draws) == expected


def test_regional_locales_fall_back_to_their_language_then_english() -> None:
    assert language_of("es-419") == language_of("es-ES") == "es"
    assert language_of("pt-BR") == "pt-BR"
    assert language_of("ja") == language_of(None) == "en"
    assert text("move.taken", "fr") != text("move.taken", "en-GB")


@pytest.fixture
async def bot(emulator: DiscordEmulator, tmp_path):
    async with running_bot(emulator, settings_for(emulator, tmp_path / "ttt.sqlite3")) as bot:
        yield bot


async def test_a_french_and_an_english_player_in_the_same_game(emulator, bot) -> None:
    amelie = emulator.create_user("amelie", locale="fr")
    bob = emulator.create_user("bob", locale="en-US")
    klaus = emulator.create_user("klaus", locale="de")
    res = await emulator.invoke(amelie, "ttt start", {"opponent": bob, "first": "me"})
    res = await emulator.click(
        bob, res.message, find_button(res.message, label="Accept")["custom_id"]
    )
    message = res.message
    # each wrong click is answered privately in the clicker's own language
    res = await emulator.click(bob, message, cell_id(message, 0))
    assert res.ephemeral and res.content.startswith("It's not your turn")
    res = await emulator.click(amelie, message, cell_id(message, 0))
    assert res.type == 7
    res = await emulator.click(amelie, res.message, cell_id(res.message, 1))
    assert res.ephemeral and res.content.startswith("Ce n'est pas ton tour")
    res = await emulator.click(klaus, message, cell_id(emulator.message(message["id"]), 2))
    assert res.ephemeral and res.content.startswith("Du spielst in diesem Spiel nicht mit")
    assert board_of(emulator.message(message["id"])) == "X........"


async def test_public_messages_use_the_servers_language(emulator, bot) -> None:
    guild = emulator.create_guild("Le serveur", locale="fr")
    channel = guild.channels[0]
    amelie = emulator.create_user("amelie", locale="en-US", guilds=[guild])
    await emulator.wait_until_ready()
    res = await emulator.invoke(
        amelie, "ttt start", {"first": "me", "difficulty": "hard"}, channel=channel
    )
    assert res.type == 4
    assert f"À <@{amelie.id}> de jouer" in res.content
    assert "le bot (difficile)" in res.content
    assert find_button(res.message, label="Abandonner") is not None


async def test_commands_are_synced_with_their_translations(emulator, bot) -> None:
    (group,) = emulator.commands()
    start = next(o for o in group["options"] if o["name"] == "start")
    assert start["name_localizations"]["fr"] == "commencer"
    assert start["name_localizations"]["de"] == "starten"
    assert start["description_localizations"]["pt-BR"] == catalogs()["pt-BR"]["cmd.start"]
    difficulty = next(o for o in start["options"] if o["name"] == "difficulty")
    unbeatable = next(c for c in difficulty["choices"] if c["value"] == "unbeatable")
    assert unbeatable["name_localizations"]["es-ES"] == "imbatible"
    assert unbeatable["name_localizations"]["es-419"] == "imbatible"


async def test_a_missing_permission_is_named_privately(emulator, bot) -> None:
    channel = emulator.create_channel(emulator.guild.id, "no-embeds")
    channel.app_permissions &= ~PERM_EMBED_LINKS
    amelie = emulator.create_user("amelie", locale="fr")
    res = await emulator.invoke(amelie, "ttt start", {"first": "me"}, channel=channel)
    assert res.ephemeral
    assert "Intégrer des liens" in res.content
    assert emulator.channel_messages(channel.id) == []


async def test_help_names_the_commands_as_the_member_sees_them(emulator, bot) -> None:
    amelie = emulator.create_user("amelie", locale="fr")
    res = await emulator.invoke(amelie, "ttt help")
    assert "`/ttt commencer`" in res.content and "**moyen**" in res.content
    assert "/ttt start" not in res.content
