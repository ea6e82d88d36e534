"""deploy/nginx.conf's limits, with a real nginx in front of a real ttt process (its
upstream lines and port rewritten, and a test's small caps set, by tests/nginx_harness.py).
Every address is shared (Discord sends interactions from a few of its own, members come
through Discord's proxy), so nothing is counted per address: floods from one address
all reach the process. A body that says it is compressed (415), one past its location's
cap (413), and any body on the live socket or the page's files (413) are refused by
nginx itself, answered as the API answers, and never reach the process. Slow requests:
tests/test_nginx_slow.py."""

from __future__ import annotations

import asyncio
import gzip
import json
from pathlib import Path

import pytest

from bot_harness import eventually
from discord_emulator import DiscordEmulator
from nginx_harness import answer, behind_nginx, clients, logged, need_nginx
from web_harness import sign_in

BURST = 600
"""Requests from one address at once: more than the per-address burst nginx used to
allow the API (400), and as many interactions."""


@pytest.fixture(autouse=True)
def nginx_here() -> None:
    need_nginx()


async def test_floods_from_one_address_all_reach_the_process(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    alice = emulator.create_user("alice")
    async with behind_nginx(emulator, tmp_path) as front:
        http = front.http
        # the live board's socket is proxied (its location passes the upgrade)
        page = await sign_in(emulator, http, front.url, alice)
        async with page.live():
            pass

        async def ping(n: int) -> tuple[int, object]:
            body = json.dumps({"type": 1, "id": str(n)}).encode()
            headers = emulator.http_mode.headers(body)
            async with http.post(f"{front.url}/interactions", data=body, headers=headers) as res:
                return await answer(res)

        async def config() -> tuple[int, object]:
            async with http.get(f"{front.url}/api/config") as res:
                assert res.headers.get("Server") == "nginx"  # no version shown
                return await answer(res)

        pongs = await asyncio.gather(*(ping(n) for n in range(BURST)))
        assert pongs == [(200, {"type": 1})] * BURST
        configs = await asyncio.gather(*(config() for _ in range(BURST)))
        assert {status for status, _ in configs} == {200}

        def all_logged() -> list[tuple[str, list[str]]] | None:
            rows = front.reached("GET", "/api/config")
            return rows if len(rows) >= BURST else None

        api = await eventually(all_logged, "every request in nginx's access log")
    interactions = front.reached("POST", "/interactions")
    assert len(interactions) == BURST
    assert all(row == ("200", [front.upstream]) for row in interactions + api)


async def test_a_compressed_body_is_refused_by_nginx_and_never_reaches_the_process(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    bomb = gzip.compress(bytes(1 << 20))  # 1 KB that a process would inflate to 1 MB
    async with behind_nginx(emulator, tmp_path) as front:
        sent = 0
        for path in ("/interactions", "/api/session", "/.proxy/api/session"):
            for encoding in ("gzip", "GZIP", "br", "deflate", "identity, gzip"):
                headers = emulator.http_mode.headers(bomb) | {"Content-Encoding": encoding}
                async with front.http.post(f"{front.url}{path}", data=bomb,
                                           headers=headers) as res:  # fmt: skip
                    status, body = await answer(res)
                sent += 1
                assert status == 415, (path, encoding, body)
                assert isinstance(body, dict) and body["error"] == "encoded_body", body
                assert body["reason"]
        # "identity" (any case) is no encoding: a signed PING so marked is answered
        ping = b'{"type": 1}'
        headers = emulator.http_mode.headers(ping) | {"Content-Encoding": "Identity"}
        async with front.http.post(f"{front.url}/interactions", data=ping,
                                   headers=headers) as res:  # fmt: skip
            assert await answer(res) == (200, {"type": 1})

        def all_logged() -> list[tuple[str, list[str]]] | None:
            rows = [(s, a) for m, _, s, a in logged(front.log) if m == "POST"]
            return rows if len(rows) >= sent + 1 else None

        rows = await eventually(all_logged, "every request in nginx's access log")
    # none of the encoded ones was passed to the process; the PING was (a line is
    # written once nginx has read and dropped the body's rest: not in the order sent)
    assert sorted(rows) == [("200", [front.upstream])] + [("415", [])] * sent


async def test_a_body_past_its_locations_cap_is_refused_by_nginx(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    async with behind_nginx(emulator, tmp_path) as front:

        async def post(path: str, body: bytes) -> tuple[int, object]:
            headers = emulator.http_mode.headers(body)
            async with front.http.post(f"{front.url}{path}", data=body, headers=headers) as res:
                return await answer(res)

        # the API takes 16 KB, an interaction 128 KB (bot/web/bodies.py's figures)
        over_api = b'{"pad": "%s"}' % (b"x" * (16 * 1024))
        for path in ("/api/session", "/.proxy/api/games"):
            status, body = await post(path, over_api)
            assert status == 413 and isinstance(body, dict), body
            assert body["error"] == "too_large"
        padded_ping = b'{"type": 1, "pad": "%s"}' % (b"x" * (20 * 1024))
        assert await post("/interactions", padded_ping) == (200, {"type": 1})
        status, body = await post("/interactions", b"x" * (128 * 1024 + 1))
        assert status == 413 and isinstance(body, dict) and body["error"] == "too_large"
        # the live socket and the page's files take no body at all: one announced is
        # refused before it could be dripped
        async with front.http.get(f"{front.url}/api/live", data=b"x") as res:
            status, body = await answer(res)
        assert status == 413, body
        status, body = await post("/", b"{}")
        assert status == 413 and isinstance(body, dict) and body["error"] == "too_large"

        def all_logged() -> list[tuple[str, str, str, list[str]]] | None:
            rows = logged(front.log)
            return rows if len(rows) >= 6 else None

        rows = await eventually(all_logged, "every request in nginx's access log")
    # only the PING reached the process (in the log in the order nginx finished each)
    assert sorted((u, s, a) for _, u, s, a in rows) == sorted([
        ("/api/session", "413", []), ("/.proxy/api/games", "413", []),
        ("/interactions", "200", [front.upstream]), ("/interactions", "413", []),
        ("/api/live", "413", []), ("/", "413", []),
    ])  # fmt: skip


async def test_only_the_trusted_proxy_names_the_client(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    """nginx takes the client's address from X-Forwarded-For (its last entry, what the
    TLS proxy saw) only from the address set_real_ip_from names: compose.http.yaml's
    gateway as shipped, which this test's 127.0.0.1 is not, then 127.0.0.1 itself."""
    said = {"X-Forwarded-For": "198.51.100.7, 203.0.113.9"}
    for trusted, seen in (({}, "127.0.0.1"), ({"set_real_ip_from": "127.0.0.1"}, "203.0.113.9")):
        folder = tmp_path / str(len(trusted))
        folder.mkdir()
        async with behind_nginx(emulator, folder, trusted) as front:
            async with front.http.get(f"{front.url}/api/config", headers=said) as res:
                assert res.status == 200

            def one_logged() -> list[str]:
                return clients(front.log)

            assert await eventually(one_logged, "the request in nginx's log") == [seen]
