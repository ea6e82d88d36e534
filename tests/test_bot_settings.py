"""Server owners' settings from the environment: each changes the behaviour it names."""

from __future__ import annotations

import dataclasses
import re
import shlex
from pathlib import Path

import pytest
from dotenv import dotenv_values

from bot.core.policy import ServerPolicy
from bot.settings import (
    WEB_LIMITS,
    WEB_SECONDS,
    Settings,
    SettingsError,
    WebLimits,
    default_of,
)
from bot.settings.doc import END, PAGE, shown_default, with_table
from bot.settings.table import SETTINGS

from bot_harness import TOKEN, running_bot, settings_for
from discord_emulator import DiscordEmulator, buttons, find_button

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("TTT_DEFAULT_SIZE", "6"),
        ("TTT_GAMES_PER_CHANNEL", "0"),
        ("TTT_ONE_GAME_PER_MEMBER", "maybe"),
        ("TTT_ALLOWED_CHANNELS", "123,general"),
        ("TTT_START_COOLDOWN", "-1"),
        ("TTT_LANGUAGE", "klingon"),
        ("TTT_MARKS", "❌ ⭕"),
        ("TTT_MARKS", "❌ ❌ ⬜"),
        ("TTT_MARKS", "X O ."),
    ],
)
def test_malformed_server_settings_name_themselves(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({"DISCORD_TOKEN": TOKEN, name: value})


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        ({"TTT_WEB_PORT": "8081"}, "DISCORD_CLIENT_SECRET"),
        ({"TTT_WEB_PORT": "0", "DISCORD_CLIENT_SECRET": "s"}, "TTT_WEB_PORT"),
        ({"TTT_WEB_ONLY": "true", "TTT_WEB_PORT": "8081", "DISCORD_CLIENT_SECRET": "s"},
         "TTT_DATABASE_URL"),
        ({"DISCORD_PUBLIC_KEY": "ab" * 32}, "TTT_WEB_PORT"),
        ({"TTT_GATEWAY": "off", "TTT_WEB_PORT": "8081", "DISCORD_CLIENT_SECRET": "s"},
         "DISCORD_PUBLIC_KEY"),
        ({"TTT_WEB_PORT": "8081", "DISCORD_CLIENT_SECRET": "s", "DISCORD_PUBLIC_KEY": "ab" * 31},
         "DISCORD_PUBLIC_KEY"),
        ({"TTT_WEB_PORT": "8081", "DISCORD_CLIENT_SECRET": "s", "DISCORD_PUBLIC_KEY": "xy" * 32},
         "DISCORD_PUBLIC_KEY"),
    ],
)  # fmt: skip
def test_the_activitys_settings_say_what_is_missing(extra: dict[str, str], named: str) -> None:
    with pytest.raises(SettingsError, match=named):
        Settings.from_env({"DISCORD_TOKEN": TOKEN, **extra})


def test_discord_is_reached_encrypted_unless_the_emulator_says_so() -> None:
    """DISCORD_API_BASE is https:// and DISCORD_GATEWAY_URL wss:// (the bot's token goes
    with every request): plain http:// and ws:// only with TTT_DISCORD_EMULATOR=true."""

    def read(**env: str) -> Settings:
        return Settings.from_env({"DISCORD_TOKEN": TOKEN, **env})

    for name, plain in (("DISCORD_API_BASE", "http://127.0.0.1:5/api/v10"),
                        ("DISCORD_GATEWAY_URL", "ws://127.0.0.1:5/")):  # fmt: skip
        with pytest.raises(SettingsError, match=f"{name} must start with .*"
                           "TTT_DISCORD_EMULATOR=true"):  # fmt: skip
            read(**{name: plain})
        read(**{name: plain, "TTT_DISCORD_EMULATOR": "true"})
    for junk in ("discord.com/api", "ftp://x/api", "https://", "HTTP://x"):
        with pytest.raises(SettingsError, match="DISCORD_API_BASE"):
            read(DISCORD_API_BASE=junk)
    with pytest.raises(SettingsError, match="DISCORD_API_BASE must start with https://"):
        read(DISCORD_API_BASE="gopher://x", TTT_DISCORD_EMULATOR="true")
    secure = read(DISCORD_API_BASE="https://proxy.example/api/v10/",
                  DISCORD_GATEWAY_URL="wss://gateway.example/")  # fmt: skip
    assert (secure.api_base, secure.gateway_url) == ("https://proxy.example/api/v10",
                                                     "wss://gateway.example/")  # fmt: skip
    assert read(DISCORD_API_BASE="HTTPS://proxy.example").api_base == "HTTPS://proxy.example"


def test_the_activity_is_off_unless_given_a_port() -> None:
    assert Settings.from_env({"DISCORD_TOKEN": TOKEN}).web_port is None
    on = Settings.from_env({"DISCORD_TOKEN": TOKEN, "TTT_WEB_PORT": "8081",
                            "DISCORD_CLIENT_SECRET": "s", "TTT_WEB_HOST": "0.0.0.0"})  # fmt: skip
    assert (on.web_port, on.web_host, on.client_secret, on.web_only) == (8081, "0.0.0.0", "s",
                                                                          False)  # fmt: skip


def test_server_settings_parse() -> None:
    settings = Settings.from_env(
        {
            "DISCORD_TOKEN": TOKEN,
            "TTT_DEFAULT_SIZE": "5",
            "TTT_ALLOWED_CHANNELS": "11, 22",
            "TTT_GAMES_PER_CHANNEL": "3",
            "TTT_ONE_GAME_PER_MEMBER": "yes",
            "TTT_START_COOLDOWN": "30",
        }
    )
    policy = settings.policy
    assert (policy.default_size, policy.allowed_channels, policy.games_per_channel) == (
        5, (11, 22), 3,
    )  # fmt: skip
    assert policy.one_game_per_member and policy.start_cooldown == 30.0
    assert Settings.from_env({"DISCORD_TOKEN": TOKEN}).policy.games_per_channel == 1
    look = Settings.from_env({"DISCORD_TOKEN": TOKEN, "TTT_LANGUAGE": "PT-br",
                              "TTT_MARKS": "🐱 <:dog:123456789012345678> ⬛"}).policy  # fmt: skip
    assert look.language == "pt-BR" and look.public_locale("en-US") == "pt-BR"
    assert (look.marks.x, look.marks.o, look.marks.empty) == (
        "🐱", "<:dog:123456789012345678>", "⬛",
    )  # fmt: skip


async def start(emu: DiscordEmulator, user, channel=None, **options):
    return await emu.invoke(user, "ttt start", {"first": "me", **options}, channel=channel)


async def test_default_size(emulator: DiscordEmulator, tmp_path) -> None:
    settings = settings_for(emulator, tmp_path / "db.sqlite3", default_size=4)
    async with running_bot(emulator, settings):
        res = await start(emulator, emulator.create_user("alice"))
        assert [len(row) for row in buttons(res.message)] == [4, 4, 4, 4, 2]


async def test_allowed_channels(emulator: DiscordEmulator, tmp_path) -> None:
    games = emulator.create_channel(emulator.guild.id, "games")
    settings = settings_for(emulator, tmp_path / "db.sqlite3", allowed_channels=(games.id,))
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings):
        res = await start(emulator, alice)
        assert res.ephemeral and f"<#{games.id}>" in res.content
        res = await start(emulator, alice, channel=games)
        assert res.type == 4 and not res.ephemeral


async def test_games_per_channel(emulator: DiscordEmulator, tmp_path) -> None:
    settings = settings_for(emulator, tmp_path / "db.sqlite3", games_per_channel=2)
    alice, bob, carol = (emulator.create_user(n) for n in ("alice", "bob", "carol"))
    async with running_bot(emulator, settings):
        assert not (await start(emulator, alice)).ephemeral
        assert not (await start(emulator, bob)).ephemeral
        res = await start(emulator, carol)
        assert res.ephemeral and "already has 2 games running" in res.content


async def test_one_game_per_member(emulator: DiscordEmulator, tmp_path) -> None:
    settings = settings_for(emulator, tmp_path / "db.sqlite3", one_game_per_member=True)
    other = emulator.create_channel(emulator.guild.id, "other")
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings):
        first = await start(emulator, alice)
        res = await start(emulator, alice, channel=other)
        assert res.ephemeral and "already have a game running" in res.content
        assert f"/{first.message['id']}" in res.content


async def test_start_cooldown(emulator: DiscordEmulator, tmp_path) -> None:
    settings = settings_for(emulator, tmp_path / "db.sqlite3", start_cooldown=60)
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings):
        first = await start(emulator, alice)
        resign = find_button(first.message, label="Resign")["custom_id"]
        await emulator.click(alice, first.message, resign)  # the channel is free again
        res = await start(emulator, alice)
        assert res.ephemeral and res.content.startswith("You can start another game <t:")


async def test_start_role(emulator: DiscordEmulator, tmp_path) -> None:
    players = emulator.create_role("players")
    settings = settings_for(emulator, tmp_path / "db.sqlite3", start_role=players)
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    bob.role_ids.append(players)
    async with running_bot(emulator, settings):
        res = await start(emulator, alice)
        assert res.ephemeral and f"<@&{players}>" in res.content
        assert not (await start(emulator, bob)).ephemeral


async def test_emoji_set_and_embed_colour(emulator: DiscordEmulator, tmp_path) -> None:
    settings = settings_for(
        emulator, tmp_path / "db.sqlite3", emoji_set="fruit", embed_colour=0x123456
    )
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings):
        res = await start(emulator, alice, difficulty="easy")
        cell = buttons(res.message)[0][0]["custom_id"]
        res = await emulator.click(alice, res.message, cell)
        assert res.content.splitlines()[1].startswith("🍎")
        assert buttons(res.message)[0][0]["emoji"]["name"] == "🍎"
        assert "🍐" in res.content and "❌" not in res.content.split("\n", 1)[1]
        res = await emulator.invoke(alice, "ttt leaderboard")
        assert res.embeds[0]["color"] == 0x123456


async def test_a_servers_own_choices_override_the_environment(
    emulator: DiscordEmulator, tmp_path
) -> None:
    other = emulator.create_guild("Other")
    alice = emulator.create_user("alice", guilds=[other])
    async with running_bot(emulator, settings_for(emulator, tmp_path / "db.sqlite3")) as bot:
        await emulator.wait_until_ready()
        await bot.games.policies.configure(
            emulator.guild.id, {"default_size": 5, "emoji_set": "hearts"}
        )
        res = await start(emulator, alice)
        assert [len(row) for row in buttons(res.message)] == [5] * 5 + [2]  # Resign, Hint
        res = await start(emulator, alice, channel=other.channels[0])
        assert [len(row) for row in buttons(res.message)] == [3, 3, 3, 2]  # untouched
        await bot.games.policies.configure(emulator.guild.id, {"default_size": None})
        assert (await bot.games.policies.policy(emulator.guild.id)).default_size == 3
        assert (await bot.games.policies.policy(emulator.guild.id)).emoji_set == "hearts"


MANAGE_GUILD = 1 << 5


async def test_only_admins_can_use_config(emulator: DiscordEmulator, tmp_path) -> None:
    member = emulator.create_user("member")
    async with running_bot(emulator, settings_for(emulator, tmp_path / "db.sqlite3")) as bot:
        res = await emulator.invoke(member, "ttt config", {"games_per_channel": 3})
        assert res.ephemeral and "Manage Server" in res.content
        assert (await bot.games.policies.policy(emulator.guild.id)).games_per_channel == 1


async def test_config_shows_and_changes_the_servers_settings(
    emulator: DiscordEmulator, tmp_path
) -> None:
    admin = emulator.create_user("admin")
    admin.permissions = MANAGE_GUILD | (1 << 10) | (1 << 11)
    games = emulator.create_channel(emulator.guild.id, "games")
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with running_bot(emulator, settings_for(emulator, tmp_path / "db.sqlite3")):
        res = await emulator.invoke(admin, "ttt config")
        fields = {f["name"]: f["value"] for f in res.embeds[0]["fields"]}
        assert res.ephemeral and fields["Games per channel"] == "1"
        assert fields["Channels"] == "every channel" and fields["Marks"] == "❌ ⭕ classic"
        res = await emulator.invoke(
            admin,
            "ttt config",
            {
                "games_per_channel": 2,
                "emoji": "animals",
                "allow_channel": games,
                "colour": "#00ff00",
            },
        )
        fields = {f["name"]: f["value"] for f in res.embeds[0]["fields"]}
        assert res.content.startswith("Saved.")
        assert fields["Games per channel"] == "2" and fields["Channels"] == f"<#{games.id}>"
        assert fields["Embed colour"] == "#00FF00" and res.embeds[0]["color"] == 0x00FF00
        # the behaviour follows: only #games, two games there, animal marks
        assert (await start(emulator, alice)).ephemeral
        first = await start(emulator, alice, channel=games, difficulty="easy")
        assert not first.ephemeral and not (await start(emulator, bob, channel=games)).ephemeral
        res = await emulator.click(alice, first.message, buttons(first.message)[0][0]["custom_id"])
        assert buttons(res.message)[0][0]["emoji"]["name"] == "🐱"
        res = await emulator.invoke(admin, "ttt config", {"colour": "green"})
        assert res.ephemeral and "#5865F2" in res.content


async def test_config_survives_a_restart(emulator: DiscordEmulator, tmp_path) -> None:
    admin = emulator.create_user("admin")
    admin.permissions = MANAGE_GUILD
    settings = settings_for(emulator, tmp_path / "db.sqlite3")
    async with running_bot(emulator, settings):
        await emulator.invoke(admin, "ttt config", {"size": 4})
    async with running_bot(emulator, settings):
        res = await start(emulator, emulator.create_user("alice"))
        assert [len(row) for row in buttons(res.message)] == [4, 4, 4, 4, 2]


async def test_default_difficulty(emulator: DiscordEmulator, tmp_path) -> None:
    settings = settings_for(emulator, tmp_path / "db.sqlite3", default_difficulty="unbeatable")
    async with running_bot(emulator, settings):
        res = await start(emulator, emulator.create_user("alice"))
        assert "the bot (unbeatable)" in res.content


def image_environment() -> dict[str, str]:
    """The variables the Dockerfile's ENV instructions set."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    found: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("ENV "):
            found |= dict(pair.split("=", 1) for pair in shlex.split(line[4:]))
    return found


def test_an_env_file_made_from_the_example_keeps_the_images_settings() -> None:
    """docker run --env-file and compose's env_file set every KEY=VALUE line of the file
    over the image's ENV (an empty value too): the example must set none the image does,
    and an empty value must mean the default."""
    image = image_environment()
    assert image["TTT_DATABASE"] == "/data/ttt.sqlite3" and image["TTT_HEALTH_PORT"] == "8080"
    from_file = {k: v or "" for k, v in dotenv_values(ROOT / ".env.example").items()}
    assert not from_file.keys() & image.keys(), "the example overrides the image's settings"
    settings = Settings.from_env(image | from_file | {"DISCORD_TOKEN": TOKEN})
    assert settings.database == "/data/ttt.sqlite3"
    assert (settings.health_host, settings.health_port) == ("0.0.0.0", 8080)
    assert settings.policy == Settings.from_env({"DISCORD_TOKEN": TOKEN}).policy  # defaults


def test_an_empty_value_means_the_default() -> None:
    empty = {name: "" for name in ("TTT_DATABASE", "TTT_HEALTH_PORT", "TTT_TURN_TIMEOUT",
                                   "TTT_DB_POOL_SIZE", "TTT_LOG_LEVEL")}  # fmt: skip
    assert Settings.from_env(empty | {"DISCORD_TOKEN": TOKEN}) == Settings.from_env(
        {"DISCORD_TOKEN": TOKEN}
    )


# --- the table ------------------------------------------------------------------------

EXAMPLE_LINE = re.compile(r"^(?:# ?)?([A-Z][A-Z0-9_]*)=(.*)$", re.MULTILINE)
COMPOSES = {"POSTGRES_PASSWORD"}
"""In .env.example for compose.yaml's PostgreSQL, not read by the bot."""
NOT_SETTINGS = {"defer_after", "policy", "web_limits"}
"""Settings fields no environment variable fills (the tests set defer_after)."""


def test_every_field_is_filled_by_one_setting() -> None:
    """A field added to Settings, ServerPolicy or WebLimits without a row in the table
    (or a row naming no field) fails here, before it is missing from the docs."""
    paths = [path for setting in SETTINGS.values() for path in setting.paths]
    fields = [f.name for f in dataclasses.fields(Settings) if f.name not in NOT_SETTINGS]
    fields += [f"policy.{f.name}" for f in dataclasses.fields(ServerPolicy)]
    fields += [f"web_limits.{f.name}" for f in dataclasses.fields(WebLimits)]
    assert sorted(paths) == sorted(fields)
    assert [s for s in SETTINGS.values() if not s.paths] == [
        SETTINGS["TTT_GATEWAY"], SETTINGS["TTT_DISCORD_EMULATOR"]]  # fmt: skip


def test_each_setting_reaches_its_field() -> None:
    """A value set for each setting in turn lands in its field and nowhere else."""
    values = {"TTT_CHALLENGE_TIMEOUT": "61", "TTT_TURN_TIMEOUT": "301",
              "TTT_DEFAULT_DIFFICULTY": "hard", "TTT_DEFAULT_SIZE": "4",
              "TTT_ALLOWED_CHANNELS": "5,6", "TTT_GAMES_PER_CHANNEL": "2",
              "TTT_ONE_GAME_PER_MEMBER": "true", "TTT_START_COOLDOWN": "3", "TTT_START_ROLE": "7",
              "TTT_EMBED_COLOUR": "#000001", "TTT_EMOJI_SET": "fruit", "TTT_MARKS": "🐱 🐶 ⬛",
              "TTT_LANGUAGE": "de", "TTT_HINTS": "false", "TTT_TURN_PING": "true",
              "TTT_DATABASE": "x.sqlite3", "TTT_THINK_TIME": "3", "TTT_ENGINE_WORKERS": "2",
              "TTT_WARM_WORKERS": "false", "TTT_LOG_LEVEL": "debug", "TTT_LOG_FORMAT": "json",
              "TTT_DEV_GUILD_ID": "8", "TTT_DB_POOL_SIZE": "11", "TTT_HEALTH_PORT": "9",
              "TTT_HEALTH_HOST": "0.0.0.0", "TTT_WEB_HOST": "0.0.0.0",
              "DISCORD_API_BASE": "https://x/api/", "DISCORD_GATEWAY_URL": "wss://x/",
              "TTT_DISCORD_EMULATOR": "true"}  # fmt: skip
    values |= {name: "99" for name in (*WEB_LIMITS.values(), *WEB_SECONDS.values())}
    values |= {"TTT_REVIEW_QUEUE": "98", "TTT_HINT_QUEUE": "97", "TTT_SIGN_INS_OVERALL": "96",
               "TTT_SIGN_INS_PER_MEMBER": "95"}  # fmt: skip
    base = Settings.from_env({"DISCORD_TOKEN": TOKEN})
    for name, raw in values.items():
        setting = SETTINGS[name]
        read = Settings.from_env({"DISCORD_TOKEN": TOKEN, name: raw})
        changed = {path for path in all_paths() if value_at(read, path) != value_at(base, path)}
        assert changed == set(setting.paths), name
    together = Settings.from_env({"DISCORD_TOKEN": TOKEN, "TTT_DATABASE_URL": "postgres://d",
                                  "TTT_SHARD_COUNT": "4", "TTT_SHARD_IDS": "1-2",
                                  "TTT_WEB_PORT": "8081", "DISCORD_PUBLIC_KEY": "ab" * 32,
                                  "DISCORD_CLIENT_SECRET": "s", "TTT_GATEWAY": "off"})  # fmt: skip
    assert (together.database_url, together.shard_count, together.shard_ids) == (
        "postgres://d", 4, (1, 2))  # fmt: skip
    assert (together.web_port, together.public_key, together.client_secret) == (
        8081, "ab" * 32, "s")  # fmt: skip
    assert together.web_only  # TTT_GATEWAY=off is a web-only process


def all_paths() -> list[str]:
    return [path for setting in SETTINGS.values() for path in setting.paths]


def value_at(settings: Settings, path: str) -> object:
    value: object = settings
    for part in path.split("."):
        value = getattr(value, part)
    return value


def test_a_default_shown_as_a_value_reads_back_as_the_default() -> None:
    """What --help and the docs show as a default (``300``, ``#5865F2``, ``true``) is
    what the bot uses when the setting is unset."""
    shown = {name: shown_default(s) for name, s in SETTINGS.items() if not isinstance(s.shown, str)}
    assert shown["TTT_EMBED_COLOUR"] == "#5865F2" and shown["TTT_TURN_TIMEOUT"] == "300"
    for name, text in shown.items():
        setting = SETTINGS[name]
        if text:
            assert setting.read(text, name) == default_of(setting), name
        else:
            assert default_of(setting) in (None, "", ()), name


def test_the_settings_page_is_written_from_the_table() -> None:
    """docs/run/settings.md holds the table as ``python -m bot.settings.doc`` writes it:
    a setting added, or a meaning or default changed, without writing the page fails."""
    page = PAGE.read_text(encoding="utf-8")
    assert with_table(page) == page, "run: python -m bot.settings.doc"
    for name, setting in SETTINGS.items():
        assert f"| `{name}`" in page and setting.meaning in page, name
    stale = page.replace("| `TTT_TURN_TIMEOUT` | `300` |", "| `TTT_TURN_TIMEOUT` | `120` |")
    assert stale != page and with_table(stale) == page
    with pytest.raises(ValueError, match="markers"):
        with_table(page.replace(END, ""))


def example_settings() -> dict[str, str]:
    """Every ``NAME=value`` line of .env.example, commented out or not."""
    return dict(EXAMPLE_LINE.findall((ROOT / ".env.example").read_text(encoding="utf-8")))


def test_the_example_names_every_setting_and_nothing_else() -> None:
    example = example_settings()
    assert set(example) - COMPOSES == set(SETTINGS), (
        f"missing from .env.example: {sorted(set(SETTINGS) - set(example))}; "
        f"unknown to the table: {sorted(set(example) - COMPOSES - set(SETTINGS))}"
    )
    assert EXAMPLE_LINE.findall("# TTT_X=1\nTTT_Y=\n#TTT_Z=a b\n# Say TTT_W=2.\n") == [
        ("TTT_X", "1"), ("TTT_Y", ""), ("TTT_Z", "a b"),
    ]  # fmt: skip


def test_the_examples_values_are_the_defaults() -> None:
    """A value written in .env.example is the default, or, for a setting off by default
    (a port), an example of a valid one."""
    for name, raw in example_settings().items():
        if name in COMPOSES or not raw.strip():
            continue
        setting = SETTINGS[name]
        value = setting.read(raw.strip(), name)
        assert value == default_of(setting) or default_of(setting) is None, (name, raw)


def test_a_secrets_value_is_in_no_repr() -> None:
    secrets = {"DISCORD_TOKEN": TOKEN, "DISCORD_CLIENT_SECRET": "client-secret-value",
               "TTT_DATABASE_URL": "postgresql://ttt:pass-word-42@db:5432/ttt"}  # fmt: skip
    assert {n for n, s in SETTINGS.items() if s.secret} == set(secrets)
    settings = Settings.from_env(secrets | {"TTT_WEB_PORT": "8081"})
    assert settings.client_secret == "client-secret-value"
    assert not [value for value in secrets.values() if value in repr(settings)]
    assert "pass-word-42" not in repr(settings)
