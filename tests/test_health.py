"""The operator's probes: /healthz, /readyz and /metrics of a running bot."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal

import aiohttp
import pytest

from bot_harness import (
    TOKEN,
    BotProcess,
    board_of,
    bot_process_env,
    cell_id,
    eventually,
    free_port,
    running_bot,
    settings_for,
)
from discord_emulator import DiscordEmulator


async def get(port: int, path: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{port}{path}") as r:
        return r.status, await r.text()


def metric(page: str, name: str) -> float:
    """The value of the sample whose name (with its labels) is exactly ``name``."""
    for line in page.splitlines():
        key, _, value = line.rpartition(" ")
        if key == name:
            return float(value)
    raise AssertionError(f"no {name} in:\n{page}")


@pytest.mark.slow  # seconds: readiness waits on a database that went away
async def test_health_readiness_and_metrics(emulator: DiscordEmulator, tmp_path) -> None:
    port = free_port()
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3", health_port=port)
    async with running_bot(emulator, settings) as bot:
        assert await get(port, "/healthz") == (200, "ok\n")
        await bot.wait_until_ready()  # the guilds have arrived
        assert await get(port, "/readyz") == (200, "ready\n")
        alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
        res = await emulator.invoke(alice, "ttt start", {"first": "me"})
        res = await emulator.click(alice, res.message, cell_id(res.message, 4))
        free = board_of(res.message).index(".")  # not the square the bot's reply took
        await emulator.click(bob, res.message, cell_id(res.message, free))  # refused: not theirs
        status, page = await get(port, "/metrics")
        assert status == 200
        assert metric(page, 'ttt_interactions_answered_total{outcome="answered"}') == 2
        assert metric(page, 'ttt_interactions_answered_total{outcome="refused"}') == 1
        assert metric(page, "ttt_answer_seconds_count") == 3
        assert metric(page, "ttt_running_games") == 1
        assert metric(page, 'ttt_shard_latency_seconds{shard="0"}') >= 0
        await bot.repo.close()  # the database goes away
        status, text = await get(port, "/readyz")
        assert status == 503 and text.startswith("database:")
        assert await get(port, "/healthz") == (200, "ok\n")  # the process itself still answers


async def test_no_health_port_no_server(emulator: DiscordEmulator, tmp_path) -> None:
    async with running_bot(emulator, settings_for(emulator, tmp_path / "ttt.sqlite3")) as bot:
        assert bot.health is None and bot.responder.observe is None


@pytest.mark.slow
async def test_healthz_answers_while_discord_does_not(tmp_path) -> None:
    """A Discord that accepts connections and never answers (the process still signing
    in): the process is alive, so /healthz says so; /readyz says it is not ready."""
    silent = await asyncio.start_server(lambda reader, writer: None, "127.0.0.1", 0)
    port, health = silent.sockets[0].getsockname()[1], free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TTT_"))}
    env |= {
        "DISCORD_TOKEN": TOKEN, "DISCORD_API_BASE": f"http://127.0.0.1:{port}/api/v10",
        "DISCORD_GATEWAY_URL": f"ws://127.0.0.1:{port}/", "TTT_DISCORD_EMULATOR": "true",
        "TTT_DATABASE": str(tmp_path / "ttt.sqlite3"), "TTT_HEALTH_PORT": str(health),
    }  # fmt: skip
    bot = BotProcess(env, tmp_path)
    try:

        async def serving() -> bool:  # once the process has started its health server
            assert bot.proc.poll() is None, bot.stderr
            with contextlib.suppress(aiohttp.ClientError):
                return await get(health, "/healthz") == (200, "ok\n")
            return False

        await eventually(serving, "/healthz answering", every=0.05)
        assert await get(health, "/healthz") == (200, "ok\n")
        status, body = await get(health, "/readyz")
        assert status == 503 and "gateway: not ready" in body
    finally:
        await bot.stop()
        silent.close()


@pytest.mark.slow
async def test_a_process_without_gateway_is_ready_and_stops_cleanly(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """TTT_GATEWAY=off with a health port, as compose.http.yaml runs it: ready once signed
    in, and SIGTERM ends it with 0 (its two closes, the signal's and the client's own on
    the way out, once stopped the health server together: exit 1)."""
    health = free_port()
    env = bot_process_env(
        emulator, tmp_path / "ttt.sqlite3", TTT_GATEWAY="off",
        DISCORD_PUBLIC_KEY=emulator.public_key, TTT_WEB_PORT=str(free_port()),
        TTT_HEALTH_PORT=str(health),
    )  # fmt: skip
    bot = BotProcess(env, tmp_path)
    try:

        async def ready() -> bool:
            assert bot.proc.poll() is None, bot.stderr
            with contextlib.suppress(aiohttp.ClientError):
                return await get(health, "/readyz") == (200, "ready\n")
            return False

        await eventually(ready, "/readyz ready", every=0.05)
        assert emulator.ready_count == 0  # no gateway connection to be ready for
    finally:
        code = await bot.stop(signal.SIGTERM)
    assert code == 0, bot.stderr
