"""nginx in front of gateway-less ttt processes, with the repository's configuration
(deploy/nginx.conf), its upstream lines and port rewritten: for tests/test_http_cluster.py,
tests/test_nginx_limits.py, bench/http_cluster.py, bench/abuse.py and
bench/abuse_second.py."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import aiohttp

    from discord_emulator import DiscordEmulator

ROOT = Path(__file__).resolve().parents[1]
WAIT = 60.0
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def nginx_missing() -> str | None:
    """Why nginx cannot run here (Debian's package: ``apt-get install nginx``), or None."""
    if Path(NGINX).is_file() and os.access(NGINX, os.X_OK):
        return None
    return "no nginx (apt-get install nginx): the load balancer's tests need it"


def nginx_config(
    upstreams: list[int], port: int, prefix: Path, changes: dict[str, str] | None = None,
    source: Path | None = None,
) -> Path:  # fmt: skip
    """deploy/nginx.conf (or ``source``, an older one, say) with its upstream lines and its
    port rewritten for this test, and each directive named in ``changes`` given that
    value wherever it stands: a test's small totals and caps (``{"client_header_timeout":
    "1s", "limit_conn api_all": "3"}``), so that what it shows happens at once."""
    text = (source or ROOT / "deploy" / "nginx.conf").read_text()
    for name, value in (changes or {}).items():
        line = re.compile(rf"^(\s*){re.escape(name)} [^;]+;", flags=re.MULTILINE)
        text, found = line.subn(lambda m: f"{m[1]}{name} {value};", text)  # noqa: B023
        assert found, f"deploy/nginx.conf has no {name!r}"
    servers = re.findall(r"^\s*server ttt-http-\d+:8081 (.*);$", text, flags=re.MULTILINE)
    assert len(servers) == 3, "deploy/nginx.conf names three processes"
    ours = "\n".join(f"        server 127.0.0.1:{p} {servers[0]};" for p in upstreams)
    text = re.sub(r"(?:^\s*server ttt-http-\d+:8081 .*;\n)+", ours + "\n", text,
                  flags=re.MULTILINE)  # fmt: skip
    text = text.replace("listen 8080;", f"listen 127.0.0.1:{port};")
    path = prefix / "nginx.conf"
    path.write_text(text)
    return path


@contextlib.contextmanager
def running_nginx(config: Path, prefix: Path, port: int) -> Iterator[Path]:
    """nginx in the foreground on ``config``, listening on ``port``; yields the file its
    access log goes to."""
    log, errors = prefix / "access.log", prefix / "error.log"
    directives = f"daemon off; pid {prefix}/nginx.pid; error_log stderr warn;"
    if os.geteuid() == 0:  # its workers would run as nobody, who cannot write in prefix
        directives += " user root;"
    # both logs to files: a pipe nobody reads fills (64 KB of "limiting connections"
    # lines under a flood) and stops nginx's workers where they write the next line
    with log.open("wb") as out, errors.open("wb") as err:
        proc = subprocess.Popen(
            [NGINX, "-p", str(prefix), "-c", str(config), "-g", directives],
            stdout=out, stderr=err,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + WAIT
            while not listening(port):
                if proc.poll() is not None or time.monotonic() > deadline:
                    proc.kill()
                    proc.wait(WAIT)
                    raise AssertionError(f"nginx did not start: {errors.read_text()!r}")
                time.sleep(0.05)
            yield log
        finally:
            proc.terminate()
            proc.wait(WAIT)


def listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def logged(log: Path) -> list[tuple[str, str, str, list[str]]]:
    """Each request in nginx's access log (deploy/nginx.conf's ``upstreams`` format): its
    method, path, status, and the processes nginx tried, in order (none: nginx answered
    it itself, as a limit's refusal)."""
    rows = []
    for line in log.read_text().splitlines():
        method, uri, status, addrs = line.split(" | ")[:4]
        rows.append((method, uri, status, re.findall(r"127\.0\.0\.1:\d+", addrs)))
    return rows


def clients(log: Path) -> list[str]:
    """The client of each request in nginx's access log, as nginx took it (the address
    the connection came from, or what a trusted proxy said in X-Forwarded-For)."""
    return [line.rsplit(" | ", 1)[1] for line in log.read_text().splitlines()]


def answered_by(log: Path) -> list[tuple[list[str], str]]:
    """Per /interactions request nginx passed on: the processes it tried, in order, and
    the status the emulator got."""
    return [(addrs, status) for method, uri, status, addrs in logged(log)
            if method == "POST" and uri == "/interactions"]  # fmt: skip


def need_nginx() -> None:
    """Skips the test without nginx on a developer's machine; under CI=true fails it, as
    the browser tests are without Chromium (.ci/run installs it)."""
    import pytest  # here: bench/docker_http_stack.py uses this module without pytest

    missing = nginx_missing()
    if missing is None:
        return
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(missing)
    pytest.skip(missing)


@dataclass
class Front:
    """nginx in front of a process: its base URL and port, its access log, the process's
    own address (what the log names for a request passed on), and a client."""

    url: str
    port: int
    log: Path
    upstream: str
    http: aiohttp.ClientSession

    def reached(self, method: str, uri: str) -> list[tuple[str, list[str]]]:
        """Each such request nginx logged: its status and the processes it tried (none:
        nginx answered it itself)."""
        return [(s, addrs) for m, u, s, addrs in logged(self.log) if (m, u) == (method, uri)]


@contextlib.asynccontextmanager
async def in_front(
    upstream: int, prefix: Path, changes: dict[str, str] | None = None, at_once: int = 100
) -> AsyncIterator[Front]:
    """nginx on deploy/nginx.conf (with ``changes``) in front of the process listening on
    ``upstream``, and a client holding at most ``at_once`` connections (below a process's
    listen backlog, 128: past it, a connection nginx opens waits for a SYN sent again,
    longer than nginx's 1 s connect timeout)."""
    import aiohttp  # here: bench/docker_http_stack.py uses this module without a loop

    prefix.mkdir(exist_ok=True)
    proxy = free_port()
    config = nginx_config([upstream], proxy, prefix, changes)
    with running_nginx(config, prefix, proxy) as log:
        connector = aiohttp.TCPConnector(limit=at_once)
        async with aiohttp.ClientSession(connector=connector) as http:
            yield Front(f"http://127.0.0.1:{proxy}", proxy, log, f"127.0.0.1:{upstream}", http)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.asynccontextmanager
async def behind_nginx(
    emulator: DiscordEmulator, tmp_path: Path, changes: dict[str, str] | None = None
) -> AsyncIterator[Front]:
    """The bot in this process (its web service with the Activity and /interactions, on
    SQLite) behind nginx."""
    from web_harness import bot_with_web  # here: the docker bench needs no bot in-process

    database, key = tmp_path / "ttt.sqlite3", emulator.public_key
    async with contextlib.AsyncExitStack() as stack:
        _bot, base, _http = await stack.enter_async_context(
            bot_with_web(emulator, database, public_key=key)
        )
        port = int(base.rsplit(":", 1)[1])
        yield await stack.enter_async_context(in_front(port, tmp_path / "nginx", changes))


async def answer(res: aiohttp.ClientResponse) -> tuple[int, object]:
    """A response's status and JSON (its text when it is not JSON: nginx's own pages)."""
    raw = await res.read()
    try:
        return res.status, json.loads(raw)
    except ValueError:
        return res.status, raw.decode(errors="replace")
