"""Three ttt processes with no gateway connection (TTT_GATEWAY=off) on one PostgreSQL,
behind a real nginx with the repository's configuration (deploy/nginx.conf): the
emulator POSTs every interaction to nginx, which hands each to any process; one process
is SIGKILLed mid-game (between two clicks, nothing of it in flight), and every later
click is answered by another, applied once.

The emulator gives an answer :data:`bot_harness.BUSY_DEADLINE` seconds here, not
Discord's 3: this test checks correctness (every click answered, applied exactly once,
the boards matching the store), and prints the slowest answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path

import aiohttp
import pytest

from bot_harness import (
    BUSY_DEADLINE,
    BotProcess,
    accepted_member_game,
    board_of,
    bot_process_env,
    cell_id,
    easy_bot_game,
    free_port,
    stored_games,
)
from discord_emulator import DiscordEmulator
from discord_emulator.interactions import WAIT_CEILING
from nginx_harness import answered_by, need_nginx, nginx_config, running_nginx

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture(autouse=True)
def nginx_here() -> None:
    need_nginx()


ROOT = Path(__file__).resolve().parents[1]
PROCESSES = 3
SERVERS = 6


async def serving(bot: BotProcess, port: int, emu: DiscordEmulator) -> None:
    """Until the process answers a signed PING on its own port."""
    body = b'{"type": 1}'
    deadline = time.monotonic() + WAIT_CEILING
    async with aiohttp.ClientSession() as http:
        while True:
            assert bot.proc.poll() is None, f"the process exited:\n{bot.stderr}"
            with contextlib.suppress(aiohttp.ClientError):
                async with http.post(f"http://127.0.0.1:{port}/interactions", data=body,
                                     headers=emu.http_mode.headers(body)) as res:  # fmt: skip
                    if res.status == 200:
                        return
            assert time.monotonic() < deadline, f"not serving:\n{bot.stderr}"
            await asyncio.sleep(0.1)


async def duel(emu: DiscordEmulator, channel, a, b, *, until: int = 5) -> dict:
    """a challenges b and they play the top row win's first ``until`` moves, with a
    double click on the first: it must apply once."""
    board = await accepted_member_game(emu, a, b, channel=channel)
    first, second = await asyncio.gather(
        emu.click(a, board, cell_id(board, 0)), emu.click(a, board, cell_id(board, 0))
    )
    assert sorted(r.ephemeral for r in (first, second)) == [False, True]
    for player, cell in ((b, 3), (a, 1), (b, 4), (a, 2))[: until - 1]:
        board = emu.message(board["id"])
        res = await emu.click(player, board, cell_id(board, cell))
        assert res.type == 7 and not res.ephemeral, res
    return emu.message(board["id"])


async def test_three_processes_behind_nginx_answer_every_click_once(
    emulator: DiscordEmulator, pg_database: str, tmp_path: Path
) -> None:
    emulator.interaction_deadline = BUSY_DEADLINE
    ports = [free_port() for _ in range(PROCESSES)]
    proxy_port = free_port()

    def env(port: int) -> dict[str, str]:
        return bot_process_env(
            emulator, tmp_path / "unused.sqlite3", TTT_DATABASE_URL=pg_database,
            TTT_GATEWAY="off", DISCORD_PUBLIC_KEY=emulator.public_key,
            TTT_WEB_PORT=str(port), TTT_ENGINE_WORKERS="1", TTT_DB_POOL_SIZE="4",
        )  # fmt: skip

    guilds = [emulator.guild] + [emulator.create_guild(f"s{i}") for i in range(SERVERS - 1)]
    for guild in guilds:  # a duel in the first, then a game against the bot in each other
        emulator.create_channel(guild, "bot-games")
        emulator.create_channel(guild, "more-bot-games")
    people = {g.id: [emulator.create_user(f"{g.id}-{i}", guilds=[g]) for i in range(3)]
              for g in guilds}  # fmt: skip
    bots = [BotProcess(env(port), tmp_path) for port in ports]
    prefix = tmp_path / "nginx"
    prefix.mkdir()
    try:
        await asyncio.gather(*(serving(b, p, emulator) for b, p in zip(bots, ports, strict=True)))
        await emulator.wait_for_commands()
        assert emulator.ready_count == 0  # no gateway connection at all
        config = nginx_config(ports, proxy_port, prefix)
        with running_nginx(config, prefix, proxy_port) as log:
            emulator.use_http(f"http://127.0.0.1:{proxy_port}/interactions")
            # every server: a duel to a win and a game against the bot, and a duel left
            # three moves in, all at once
            halfway = await asyncio.gather(
                *(duel(emulator, g.channels[0], people[g.id][0], people[g.id][1], until=3)
                  for g in guilds),
                *(easy_bot_game(emulator, g.channels[1], people[g.id][2]) for g in guilds),
            )  # fmt: skip
            before = answered_by(log)
            assert {addrs[-1] for addrs, _ in before} == {f"127.0.0.1:{p}" for p in ports}
            await bots[1].kill()  # between clicks: nothing of it in flight
            dead = f"127.0.0.1:{ports[1]}"
            # the halfway duels finish on the two that are left, as do new games
            a_b = [(people[g.id][0], people[g.id][1]) for g in guilds]
            for board, (a, b) in zip(halfway[:SERVERS], a_b, strict=True):
                for player, cell in ((b, 4), (a, 2)):
                    current = emulator.message(board["id"])
                    res = await emulator.click(player, current, cell_id(current, cell))
                    assert res.type == 7 and not res.ephemeral, res
                assert f"<@{a.id}> wins" in emulator.message(board["id"])["content"]
            await asyncio.gather(*(easy_bot_game(emulator, g.channels[2], people[g.id][1])
                                   for g in guilds))  # fmt: skip
            after = answered_by(log)[len(before) :]
        slowest = max((r.response_at or r.created) - r.created
                      for r in emulator.interactions.values())  # fmt: skip
        print(f"slowest answer: {slowest:.2f} s over {len(emulator.interactions)} interactions")
    finally:
        emulator.use_http(None)
        codes = [await bot.stop(15) for bot in bots]  # SIGTERM
    assert codes[0] == codes[2] == 0, "\n".join(b.stderr for b in bots)
    # every request after the kill was answered by a live process; a request sent to
    # the dead one was refused its connection and passed on, never answered twice
    assert after and all(status == "200" for _, status in after)
    assert all(addrs[-1] != dead for addrs, _ in after)
    assert any(dead in addrs for addrs, _ in after), "nginx tried the dead process"
    # every game finished, each board as stored: each click applied once
    games = await stored_games(pg_database)
    assert len(games) == 3 * SERVERS and not any(g.running for g in games)
    for game in games:
        assert board_of(emulator.message(game.message_id)) == game.board.to_string(), game
