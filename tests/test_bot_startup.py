"""Start-up: problems end ``python -m bot`` with one clear line and a non-zero status;
what the bot asks Discord for at start-up; the token stays out of the logs."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bot.settings.doc import shown_default
from bot.settings.table import SETTINGS
from bot.storage import MIGRATIONS, SqliteRepository

from bot_harness import (
    BotProcess,
    bot_process_env,
    eventually,
    free_port,
    running_bot,
    settings_for,
    start_bot_process,
)
from discord_emulator import DiscordEmulator

RUN_TIMEOUT = 20.0
WELL_FORMED_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.R2VuZQ.bm90LWEtcmVhbC10b2tlbi1hdC1hbGwtcmVhbGx5"
# Root passes every permission check; without these two capabilities it meets file modes
# like any user (its own files' owner bits apply), and can still run this venv's Python.
UNPRIVILEGED: tuple[str, ...] = (
    ("setpriv", "--inh-caps=-dac_override,-dac_read_search",
     "--bounding-set=-dac_override,-dac_read_search")
    if os.geteuid() == 0 and shutil.which("setpriv") else ()
)  # fmt: skip
needs_unprivileged = pytest.mark.skipif(
    os.geteuid() == 0 and not UNPRIVILEGED, reason="root without setpriv passes every mode check"
)
INTENT_MEMBERS, INTENT_PRESENCES, INTENT_MESSAGE_CONTENT = 1 << 1, 1 << 8, 1 << 15

# Every setting but the one under test is valid and explicit, so a test is about that
# one setting only (test_a_bot_with_only_the_required_settings_starts covers defaults).
VALID = {
    "TTT_DEFAULT_DIFFICULTY": "medium",
    "TTT_TURN_TIMEOUT": "300",
    "TTT_CHALLENGE_TIMEOUT": "60",
    "TTT_LOG_LEVEL": "INFO",
}


def offline_env(tmp_path: Path, **settings: str) -> dict[str, str]:
    port = free_port()  # a bot past its checks fails fast here, not at the real Discord
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TTT_"))}
    return env | {
        "DISCORD_TOKEN": WELL_FORMED_TOKEN,
        "DISCORD_API_BASE": f"http://127.0.0.1:{port}/api/v10",
        "DISCORD_GATEWAY_URL": f"ws://127.0.0.1:{port}/",
        "TTT_DISCORD_EMULATOR": "true",  # plain http to a local port
        "TTT_DATABASE": str(tmp_path / "ttt.sqlite3"),
        **VALID,
        **settings,
    }


def run_bot(env: dict[str, str], cwd: Path, prefix: tuple[str, ...] = ()) -> tuple[int, list[str]]:
    """Run ``python -m bot`` to its end; its exit status and stderr lines."""
    proc = start_bot_process(env, cwd, prefix)
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


def test_a_plain_http_discord_is_one_line_unless_the_emulator_says_so(tmp_path: Path) -> None:
    """A real bot's DISCORD_API_BASE on http:// would send its token unencrypted: the
    start stops at the settings, one line, before any database is made."""
    env = offline_env(tmp_path)
    del env["TTT_DISCORD_EMULATOR"]
    code, lines = run_bot(env, tmp_path)
    assert_one_line(code, lines, "DISCORD_API_BASE must start with https://",
                    "TTT_DISCORD_EMULATOR=true", repr(env["DISCORD_API_BASE"]))  # fmt: skip
    assert list(tmp_path.iterdir()) == []


def test_the_dotenv_in_the_working_directory_is_read(tmp_path: Path) -> None:
    env = offline_env(tmp_path)
    dotenv = {name: env.pop(name) for name in ("DISCORD_TOKEN", *VALID)}
    dotenv["TTT_TURN_TIMEOUT"] = "abc"  # read from .env, it is the one error reported
    (tmp_path / ".env").write_text("".join(f"{k}={v}\n" for k, v in dotenv.items()))
    code, lines = run_bot(env, tmp_path)
    assert_one_line(code, lines, "TTT_TURN_TIMEOUT", "'abc'")


# --- --help and arguments -------------------------------------------------------------

HELP_TIMEOUT = 30.0
SECRETS = {
    "DISCORD_TOKEN": WELL_FORMED_TOKEN,
    "DISCORD_CLIENT_SECRET": "client-secret-not-for-eyes",
    "TTT_DATABASE_URL": "postgresql://ttt:hunter2-password@db:5432/ttt",
}


def run_cli(env: dict[str, str], cwd: Path, *args: str, python: tuple[str, ...] = ()
            ) -> subprocess.CompletedProcess[str]:  # fmt: skip
    """``python -m bot ARGS`` to its end (``python`` adds interpreter options)."""
    return subprocess.run([sys.executable, *python, "-m", "bot", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=HELP_TIMEOUT)  # fmt: skip


def imported(importtime: str) -> set[str]:
    """The modules ``-X importtime`` says were imported (its stderr)."""
    return {line.rsplit("|", 1)[1].strip() for line in importtime.splitlines()
            if line.startswith("import time:") and line.count("|") == 2}  # fmt: skip


def test_help_lists_every_setting_needs_no_token_and_imports_no_discord(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TTT_"))}
    done = run_cli(env, tmp_path, "--help", python=("-X", "importtime"))
    assert done.returncode == 0, done.stderr
    modules = imported(done.stderr)
    assert {"bot.settings.table", "bot.settings.doc", "dotenv"} <= modules  # the check sees
    heavy = ("discord", "aiohttp", "bot.app", "bot.runner", "bot.storage", "bot.web")
    assert not {m for m in modules if m.startswith(heavy)}
    lines = done.stdout.splitlines()
    assert lines[0] == "usage: ttt-bot [--help]" and "DISCORD_TOKEN" in done.stdout
    for name, setting in SETTINGS.items():
        [entry] = [i for i, line in enumerate(lines) if line.startswith(f"  {name} (")]
        default = shown_default(setting)
        assert setting.required or (f"default {default}" if default else "unset") in lines[entry]
        assert setting.meaning.replace("`", "").split()[:4] == lines[entry + 1].split()[:4]
    assert "Here the settings would come from the environment (no .env file)." in done.stdout
    assert list(tmp_path.iterdir()) == []  # no database


@pytest.mark.parametrize("where", ["environment", ".env"])
def test_help_prints_no_secret_and_starts_nothing(tmp_path: Path, where: str) -> None:
    """With every secret set (and a .env that would start the bot), --help prints the
    help only: no secret's value, no connection, no database."""
    env = offline_env(tmp_path)
    if where == ".env":
        for name in SECRETS:
            env.pop(name, None)
        (tmp_path / ".env").write_text("".join(f"{k}={v}\n" for k, v in SECRETS.items()))
    else:
        env |= SECRETS
    for flag in ("--help", "-h"):
        done = run_cli(env, tmp_path, flag)
        assert done.returncode == 0 and done.stderr == "", done.stderr
        for value in [*SECRETS.values(), "hunter2-password", WELL_FORMED_TOKEN.split(".")[2]]:
            assert value not in done.stdout, value
        assert "DISCORD_CLIENT_SECRET (unset by default; secret)" in done.stdout
    if where == ".env":
        assert f"come from the environment and {tmp_path / '.env'}." in done.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ([".env"] if where == ".env" else [])


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (("--foo",), "ttt-bot: unknown option --foo (try --help)"),
        (("--help", "--verbose"), "ttt-bot: unknown option --verbose (try --help)"),
        (("run",), "ttt-bot: unknown argument run (try --help)"),
    ],
)
def test_an_unknown_argument_is_one_line_and_status_2(
    tmp_path: Path, args: tuple[str, ...], line: str
) -> None:
    env = offline_env(tmp_path)  # a token: a bot that ignored the arguments would start
    done = run_cli(env, tmp_path, *args)
    assert (done.returncode, done.stderr, done.stdout) == (2, line + "\n", "")
    assert list(tmp_path.iterdir()) == []


def test_the_installed_command_answers_help(tmp_path: Path) -> None:
    """``ttt-bot``, the console script pip installs, is the same main."""
    script = Path(sys.executable).with_name("ttt-bot")
    if not script.exists():
        pytest.skip(f"no {script}: the package is not installed in this interpreter's venv")
    done = subprocess.run([script, "--help"], env=offline_env(tmp_path), cwd=tmp_path,
                          capture_output=True, text=True, timeout=HELP_TIMEOUT)  # fmt: skip
    assert done.returncode == 0 and done.stdout.startswith("usage: ttt-bot [--help]\n")
    assert WELL_FORMED_TOKEN not in done.stdout and list(tmp_path.iterdir()) == []


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


@needs_unprivileged
@pytest.mark.parametrize("mode", [0, 0o400], ids=["unreadable", "read-only"])
def test_a_database_file_the_bot_cannot_write_is_one_line(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "ttt.sqlite3"
    path.write_bytes(b"")
    path.chmod(mode)
    try:
        env = offline_env(tmp_path, TTT_DATABASE=str(path))
        code, lines = run_bot(env, tmp_path, UNPRIVILEGED)
    finally:
        path.chmod(0o600)
    assert_one_line(code, lines, str(path), "not readable and writable")


@needs_unprivileged
def test_a_database_in_a_read_only_folder_is_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    path = folder / "ttt.sqlite3"
    try:
        env = offline_env(tmp_path, TTT_DATABASE=str(path))
        code, lines = run_bot(env, tmp_path, UNPRIVILEGED)
    finally:
        folder.chmod(0o700)
    assert_one_line(code, lines, str(path), "not writable")
    assert list(folder.iterdir()) == []


def test_a_malformed_token_is_one_line_and_creates_nothing(tmp_path: Path) -> None:
    env = offline_env(tmp_path, DISCORD_TOKEN="MTIz.only-two-parts")
    code, lines = run_bot(env, tmp_path)
    assert_one_line(code, lines, "DISCORD_TOKEN", "three parts")
    assert "only-two-parts" not in lines[0]  # a token, even a broken one, is not echoed
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("value", "says"),
    [("0", "more than 0 and at most 604800"), ("nan", "finite"), ("inf", "finite")],
)
def test_a_timeout_error_states_the_real_bounds(tmp_path: Path, value: str, says: str) -> None:
    code, lines = run_bot(offline_env(tmp_path, TTT_TURN_TIMEOUT=value), tmp_path)
    assert_one_line(code, lines, "TTT_TURN_TIMEOUT", says, repr(value))


# --- Discord -------------------------------------------------------------------------


async def test_a_rejected_token_is_one_line_and_no_gateway_session(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    wrong = "d3Jvbmc.dG9rZW4.dGhhdC1kaXNjb3JkLXdpbGwtcmVqZWN0"
    env = bot_process_env(emulator, tmp_path / "ttt.sqlite3", **VALID) | {"DISCORD_TOKEN": wrong}
    code, lines = await asyncio.to_thread(run_bot, env, tmp_path)
    assert code != 0
    assert "Traceback" not in "\n".join(lines)
    assert len(lines) == 1, lines  # not even a library line before ours
    assert lines[0].startswith("ttt-bot: Discord rejected DISCORD_TOKEN")
    assert wrong not in "\n".join(lines)
    # it asked once who it is, got 401, and never opened the gateway
    assert [(r.method, r.path) for r in emulator.requests] == [("GET", "/users/@me")]
    assert emulator.identify_payloads == []


def test_an_unreachable_discord_is_one_line(tmp_path: Path) -> None:
    env = offline_env(tmp_path)
    code, lines = run_bot(env, tmp_path)
    assert_one_line(code, lines, f"cannot reach Discord at {env['DISCORD_API_BASE']}")
    assert list(tmp_path.iterdir()) == []  # no database file left behind


async def test_an_unreachable_discord_leaves_an_existing_database_alone(tmp_path: Path) -> None:
    env = offline_env(tmp_path)
    database = Path(env["TTT_DATABASE"])
    earlier = SqliteRepository(database)  # the games of an earlier run
    await earlier.open()
    await earlier.set_meta("commands", "kept")
    await earlier.close()
    code, _ = await asyncio.to_thread(run_bot, env, tmp_path)
    again = SqliteRepository(database)
    await again.open()
    try:
        assert code != 0 and await again.get_meta("commands") == "kept"
    finally:
        await again.close()


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


async def test_the_start_up_says_what_it_did_and_the_stop_says_so(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    database = tmp_path / "ttt.sqlite3"
    (tmp_path / ".env").write_text("TTT_START_COOLDOWN=5\n")
    child = BotProcess(bot_process_env(emulator, database), tmp_path)
    try:
        await child.wait_until_ready(emulator, 1)
        await emulator.wait_for_commands(count=1)
        # on_ready runs once the guilds have arrived
        await eventually(lambda: "connected to the gateway" in child.stderr, "on_ready's log")
    finally:
        code = await child.stop(signal.SIGTERM)
    log = child.stderr
    assert code == 0, log
    bot = emulator.users[emulator.application_id]
    assert f"signed in as {bot.name}" in log and f"(id {emulator.application_id})" in log
    assert f"settings: the environment and {tmp_path / '.env'}" in log
    assert f"database: SQLite {database} (schema version {len(MIGRATIONS)})" in log
    assert "slash commands: synced 1 globally" in log
    assert f"servers: {len(emulator.guilds)}" in log
    assert child.lines[-1].endswith("bot: stopped")
    assert "\x1b[" not in log  # stderr is a pipe, not a terminal: no colour codes


async def test_json_logs_are_one_object_a_line(emulator: DiscordEmulator, tmp_path: Path) -> None:
    env = bot_process_env(emulator, tmp_path / "ttt.sqlite3", TTT_LOG_FORMAT="json")
    child = BotProcess(env, tmp_path)
    try:
        await child.wait_until_ready(emulator, 1)
    finally:
        await child.stop(signal.SIGTERM)
    entries = [json.loads(line) for line in child.lines]
    assert {e["logger"] for e in entries} >= {"bot", "bot.app"}
    assert all(set(e) >= {"time", "level", "logger", "message"} for e in entries)
    assert any(e["message"].startswith("signed in as") for e in entries)


async def test_a_second_instance_on_the_same_database_is_refused(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    database = tmp_path / "ttt.sqlite3"
    env = bot_process_env(emulator, database)
    first = BotProcess(env, tmp_path)
    try:
        await first.wait_until_ready(emulator, 1)
        code, lines = await asyncio.to_thread(run_bot, env, tmp_path)
        assert_one_line(code, lines, str(database), "in use by another running ttt-bot")
        assert emulator.ready_count == 1  # the second never reached Discord
        assert first.proc.poll() is None
    finally:
        await first.stop(signal.SIGTERM)
    # once the first has stopped, the file is free again
    again = BotProcess(env, tmp_path)
    try:
        await again.wait_until_ready(emulator, 2)
    finally:
        await again.stop(signal.SIGTERM)


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
            "block",
            "board",
            "config",
            "forget-me",
            "games",
            "help",
            "history",
            "leaderboard",
            "notify",
            "puzzle",
            "resign",
            "review",
            "start",
            "stats",
            "stop",
            "tournament",
            "unblock",
        ]
        (tournament,) = [o for o in group["options"] if o["name"] == "tournament"]
        assert tournament["type"] == 2  # a subcommand group
        assert sorted(o["name"] for o in tournament["options"]) == [
            "cancel", "correct", "create", "remove", "start", "status",
        ]  # fmt: skip
        puts = [r.path for r in emulator.requests if r.method == "PUT"]
        assert puts == [f"/applications/{emulator.application_id}/guilds/{guild_id}/commands"]
        # and the guild commands work
        res = await emulator.invoke(emulator.create_user("alice"), "ttt help")
        assert res.ephemeral and "Tic-tac-toe" in res.content


async def test_a_web_port_in_use_is_one_line_and_leaves_no_file(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    """TTT_WEB_PORT taken by another program: the owner reads which setting and why, in
    one line, and the start leaves nothing behind."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        database = tmp_path / "ttt.sqlite3"
        env = bot_process_env(emulator, database, TTT_WEB_PORT=str(port),
                              DISCORD_CLIENT_SECRET=emulator.client_secret)  # fmt: skip
        code, lines = await asyncio.to_thread(run_bot, env, tmp_path)
    line = assert_one_line(code, lines, f"127.0.0.1:{port}", "TTT_WEB_PORT")
    assert line.startswith("ttt-bot: cannot serve the web service"), line
    assert not database.exists()
