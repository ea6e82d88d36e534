"""Start-up: problems end ``python -m bot`` with one clear line and a non-zero status;
what the bot asks Discord for at start-up; the token stays out of the logs."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
from pathlib import Path

import pytest

from bot_harness import BotProcess, bot_process_env, running_bot, settings_for, start_bot_process
from discord_emulator import DiscordEmulator

RUN_TIMEOUT = 20.0
INTENT_MEMBERS, INTENT_PRESENCES, INTENT_MESSAGE_CONTENT = 1 << 1, 1 << 8, 1 << 15

# Every setting but the one under test is valid and explicit, so a test is about that
# one setting only (test_a_bot_with_only_the_required_settings_starts covers defaults).
VALID = {
    "TTT_DEFAULT_DIFFICULTY": "medium",
    "TTT_TURN_TIMEOUT": "300",
    "TTT_CHALLENGE_TIMEOUT": "60",
    "TTT_LOG_LEVEL": "INFO",
}


def closed_port() -> int:
    """A local port nobody listens on: a bot that got past its checks fails fast there
    instead of reaching the real Discord."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def offline_env(tmp_path: Path, **settings: str) -> dict[str, str]:
    port = closed_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TTT_"))}
    return env | {
        "DISCORD_TOKEN": "not.a.real.token",
        "DISCORD_API_BASE": f"http://127.0.0.1:{port}/api/v10",
        "DISCORD_GATEWAY_URL": f"ws://127.0.0.1:{port}/",
        "TTT_DATABASE": str(tmp_path / "ttt.sqlite3"),
        **VALID,
        **settings,
    }


def run_bot(env: dict[str, str], cwd: Path) -> tuple[int, list[str]]:
    """Run ``python -m bot`` to its end; its exit status and stderr lines."""
    proc = start_bot_process(env, cwd)
    try:
        _, err = proc.communicate(timeout=RUN_TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, err.decode(errors="replace").splitlines()


def assert_one_line(code: int, lines: list[str], *needles: str) -> str:
    assert code != 0
    assert "Traceback" not in "\n".join(lines)
    assert len(lines) == 1, lines
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


# --- settings ------------------------------------------------------------------------


@pytest.mark.parametrize("token", [None, "  "], ids=["unset", "blank"])
def test_a_missing_token_is_one_line_pointing_at_dotenv(tmp_path: Path, token: str | None) -> None:
    env = offline_env(tmp_path)
    del env["DISCORD_TOKEN"]
    if token is not None:
        env["DISCORD_TOKEN"] = token
    code, lines = run_bot(env, tmp_path)
    line = assert_one_line(code, lines, "DISCORD_TOKEN", ".env")
    assert line.startswith("ttt-bot: ")
    assert list(tmp_path.iterdir()) == []  # no database was created


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("TTT_TURN_TIMEOUT", "abc"),
        ("TTT_TURN_TIMEOUT", "0"),
        ("TTT_CHALLENGE_TIMEOUT", "-5"),
        ("TTT_CHALLENGE_TIMEOUT", "nan"),
        ("TTT_DEV_GUILD_ID", "my-guild"),
        ("TTT_DEFAULT_DIFFICULTY", "impossible"),
        ("TTT_DEV_GUILD_ID", "²"),
        ("TTT_LOG_LEVEL", "LOUD"),
    ],
)
def test_a_malformed_setting_is_one_line_naming_it(tmp_path: Path, name: str, value: str) -> None:
    code, lines = run_bot(offline_env(tmp_path, **{name: value}), tmp_path)
    assert_one_line(code, lines, name, repr(value))


def test_the_dotenv_in_the_working_directory_is_read(tmp_path: Path) -> None:
    env = offline_env(tmp_path)
    dotenv = {name: env.pop(name) for name in ("DISCORD_TOKEN", *VALID)}
    dotenv["TTT_TURN_TIMEOUT"] = "abc"  # read from .env, it is the one error reported
    (tmp_path / ".env").write_text("".join(f"{k}={v}\n" for k, v in dotenv.items()))
    code, lines = run_bot(env, tmp_path)
    assert_one_line(code, lines, "TTT_TURN_TIMEOUT", "'abc'")


# --- the database --------------------------------------------------------------------


def test_a_database_in_a_missing_folder_is_one_line_and_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "missing" / "ttt.sqlite3"
    code, lines = run_bot(offline_env(tmp_path, TTT_DATABASE=str(path)), tmp_path)
    assert_one_line(code, lines, str(path), "does not exist")
    assert list(tmp_path.iterdir()) == []


def test_a_file_that_is_not_a_database_is_one_line_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "notes.sqlite3"
    garbage = bytes(range(256)) * 16
    path.write_bytes(garbage)
    code, lines = run_bot(offline_env(tmp_path, TTT_DATABASE=str(path)), tmp_path)
    assert_one_line(code, lines, str(path), "not a database")
    assert path.read_bytes() == garbage
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.sqlite3"]  # no -wal, -shm


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads and writes regardless of modes")
def test_an_unreadable_database_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "ttt.sqlite3"
    path.write_bytes(b"")
    path.chmod(0)
    try:
        code, lines = run_bot(offline_env(tmp_path, TTT_DATABASE=str(path)), tmp_path)
    finally:
        path.chmod(0o600)
    assert_one_line(code, lines, str(path))


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads and writes regardless of modes")
def test_a_database_in_a_read_only_folder_is_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    path = folder / "ttt.sqlite3"
    try:
        code, lines = run_bot(offline_env(tmp_path, TTT_DATABASE=str(path)), tmp_path)
    finally:
        folder.chmod(0o700)
    assert_one_line(code, lines, str(path))
    assert list(folder.iterdir()) == []


# --- Discord -------------------------------------------------------------------------


async def test_a_rejected_token_is_one_line_and_no_gateway_session(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    wrong = "emu.wrong-token"
    env = bot_process_env(emulator, tmp_path / "ttt.sqlite3", **VALID) | {"DISCORD_TOKEN": wrong}
    code, lines = await asyncio.to_thread(run_bot, env, tmp_path)
    assert code != 0
    assert "Traceback" not in "\n".join(lines)
    ours = [line for line in lines if line.startswith("ttt-bot:")]
    assert len(ours) == 1, lines
    assert "Discord rejected DISCORD_TOKEN" in ours[0]
    assert wrong not in "\n".join(lines)
    # it asked once who it is, got 401, and never opened the gateway
    assert [(r.method, r.path) for r in emulator.requests] == [("GET", "/users/@me")]
    assert emulator.identify_payloads == []


def test_an_unreachable_discord_is_one_line(tmp_path: Path) -> None:
    code, lines = run_bot(offline_env(tmp_path), tmp_path)
    assert code != 0
    assert "Traceback" not in "\n".join(lines)
    assert len([line for line in lines if line.startswith("ttt-bot:")]) == 1, lines


async def test_a_bot_with_only_the_required_settings_starts(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    child = BotProcess(bot_process_env(emulator, tmp_path / "ttt.sqlite3"), tmp_path)
    try:
        await child.wait_until_ready(emulator, 1)
        res = await emulator.invoke(emulator.create_user("alice"), "ttt help")
        # the documented defaults: medium, a 60 s challenge, a 300 s turn
        assert "default difficulty is **medium**" in res.content
        assert "60 seconds to answer" in res.content and "more than 300 seconds" in res.content
    finally:
        await child.stop()


async def test_the_token_never_appears_in_debug_logs(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    env = bot_process_env(
        emulator, tmp_path / "ttt.sqlite3", **(VALID | {"TTT_LOG_LEVEL": "DEBUG"})
    )
    child = BotProcess(env, tmp_path)
    try:
        await child.wait_until_ready(emulator, 1)
        alice = emulator.create_user("alice")
        res = await emulator.invoke(alice, "ttt start", {"first": "me"})
        assert res.type == 4
    finally:
        await child.stop(signal.SIGTERM)
    log = "\n".join(child.lines)
    assert emulator.identify_payloads[0]["token"] == emulator.token  # the token was in use
    # the log is really at DEBUG and covers the REST calls and the gateway
    assert "DEBUG" in log and "discord.http" in log and "discord.gateway" in log
    assert emulator.token not in log
    secret = emulator.token.split(".", 1)[1]
    assert secret not in log


# --- in process ----------------------------------------------------------------------


async def test_intents_are_minimal_and_commands_go_to_the_dev_guild(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    guild_id = emulator.guild.id
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3", dev_guild_id=guild_id)
    async with running_bot(emulator, settings):
        assert len(emulator.identify_payloads) == 1
        intents = emulator.identify_payloads[0]["intents"]
        assert intents & 1  # guilds: the channel and guild cache
        for privileged in (INTENT_MEMBERS, INTENT_PRESENCES, INTENT_MESSAGE_CONTENT):
            assert not intents & privileged, (intents, privileged)

        assert emulator.commands() == []
        [group] = emulator.commands(guild_id=guild_id)
        assert group["name"] == "ttt"
        assert sorted(o["name"] for o in group["options"]) == [
            "config",
            "forget-me",
            "help",
            "history",
            "leaderboard",
            "resign",
            "review",
            "start",
            "stats",
        ]
        puts = [r.path for r in emulator.requests if r.method == "PUT"]
        assert puts == [f"/applications/{emulator.application_id}/guilds/{guild_id}/commands"]
        # and the guild commands work
        res = await emulator.invoke(emulator.create_user("alice"), "ttt help")
        assert res.ephemeral and "Tic-tac-toe" in res.content
