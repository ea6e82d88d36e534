"""deploy/nginx.conf's limits, with a real nginx in front of a real ttt process (its
upstream lines and port rewritten by tests/nginx_harness.py): a burst of interactions
from one address all reach the process, since a refused one is an interaction failed
for a member and Discord sends them all from its own few addresses; a burst on the
Activity's API from one address, past the loose backstop, is refused by nginx itself
(429 with a reason, as the API refuses), without reaching the process."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import aiohttp
import pytest

from bot_harness import eventually, free_port
from discord_emulator import DiscordEmulator
from nginx_harness import logged, need_nginx, nginx_config, running_nginx
from web_harness import bot_with_web, sign_in

INTERACTIONS = 600
"""More than the API's burst (400 in deploy/nginx.conf), from one address at once."""
AT_ONCE = 100
"""Connections the client holds open together (below the process's listen backlog, 128:
past it, a connection nginx opens to the process waits for a SYN sent again, longer
than nginx's 1 s connect timeout)."""
API_CAP = 5_000
"""Requests to the API before the test gives up on seeing a refusal."""


@pytest.fixture(autouse=True)
def nginx_here() -> None:
    need_nginx()


async def test_interactions_all_pass_while_the_api_has_a_backstop(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    alice = emulator.create_user("alice")
    prefix, proxy = tmp_path / "nginx", free_port()
    prefix.mkdir()
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3",
                            public_key=emulator.public_key) as (_bot, base, _http):  # fmt: skip
        port = int(base.rsplit(":", 1)[1])
        config = nginx_config([port], proxy, prefix)
        front = f"http://127.0.0.1:{proxy}"
        connector = aiohttp.TCPConnector(limit=AT_ONCE)
        with running_nginx(config, prefix, proxy) as log:
            async with aiohttp.ClientSession(connector=connector) as http:
                # the live board's socket is proxied (its location passes the upgrade)
                page = await sign_in(emulator, http, front, alice)
                async with page.live():
                    pass

                async def ping(n: int) -> tuple[int, object]:
                    body = json.dumps({"type": 1, "id": str(n)}).encode()
                    headers = emulator.http_mode.headers(body)
                    async with http.post(f"{front}/interactions", data=body,
                                         headers=headers) as res:  # fmt: skip
                        return res.status, await res.json()

                answers = await asyncio.gather(*(ping(n) for n in range(INTERACTIONS)))
                assert answers == [(200, {"type": 1})] * INTERACTIONS

                async def config() -> tuple[int, dict, str]:
                    async with http.get(f"{front}/api/config") as res:
                        return res.status, await res.json(), res.headers.get("Server", "")

                statuses: list[tuple[int, dict, str]] = []
                while len(statuses) < API_CAP and all(s == 200 for s, _, _ in statuses):
                    statuses += await asyncio.gather(*(config() for _ in range(AT_ONCE)))

            def all_logged() -> list[tuple[str, str, str, list[str]]] | None:
                rows = logged(log)
                return rows if len(rows) >= 2 + INTERACTIONS + len(statuses) else None

            rows = await eventually(all_logged, "every request in nginx's access log")
    # every interaction reached the process, none was refused by nginx
    passed = [r for r in rows if r[:2] == ("POST", "/interactions")]
    assert len(passed) == INTERACTIONS
    assert all(status == "200" and addrs == [f"127.0.0.1:{port}"]
               for _, _, status, addrs in passed)  # fmt: skip
    # the API's burst: the first ones reached the process (the backstop is loose), then
    # nginx refused the rest itself, with the API's shape of refusal
    refused = [(s, body) for s, body, _ in statuses if s != 200]
    assert refused, f"nginx refused none of {len(statuses)} requests to the API"
    assert {s for s, _ in refused} == {429}
    assert all(body["error"] == "too_many" and body["reason"] for _, body in refused)
    served = sum(1 for s, _, _ in statuses if s == 200)
    assert served >= 400, served  # a member's page is never near this
    api = [r for r in rows if r[:2] == ("GET", "/api/config")]
    assert sum(1 for r in api if r[2] == "429" and not r[3]) == len(refused)
    assert {server for _, _, server in statuses} == {"nginx"}  # no version shown
