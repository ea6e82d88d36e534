"""nginx in front of gateway-less ttt processes, with the repository's configuration
(deploy/nginx.conf), its upstream lines and port rewritten: for tests/test_http_cluster.py
and bench/http_cluster.py."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WAIT = 60.0
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def nginx_missing() -> str | None:
    """Why nginx cannot run here (Debian's package: ``apt-get install nginx``), or None."""
    if Path(NGINX).is_file() and os.access(NGINX, os.X_OK):
        return None
    return "no nginx (apt-get install nginx): the load balancer's tests need it"


def nginx_config(upstreams: list[int], port: int, prefix: Path) -> Path:
    """deploy/nginx.conf with its upstream lines and its port rewritten for this test."""
    text = (ROOT / "deploy" / "nginx.conf").read_text()
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
    log = prefix / "access.log"
    directives = f"daemon off; pid {prefix}/nginx.pid; error_log stderr warn;"
    if os.geteuid() == 0:  # its workers would run as nobody, who cannot write in prefix
        directives += " user root;"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [NGINX, "-p", str(prefix), "-c", str(config), "-g", directives],
            stdout=out, stderr=subprocess.PIPE,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + WAIT
            while not listening(port):
                if proc.poll() is not None or time.monotonic() > deadline:
                    proc.kill()
                    raise AssertionError(f"nginx did not start: {proc.communicate()[1]!r}")
                time.sleep(0.05)
            yield log
        finally:
            proc.terminate()
            proc.communicate(timeout=WAIT)


def listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def logged(log: Path) -> list[tuple[str, str, str, list[str]]]:
    """Each request in nginx's access log (deploy/nginx.conf's ``upstreams`` format): its
    method, path, status, and the processes nginx tried, in order (none: nginx answered
    it itself, as a limit's refusal)."""
    rows = []
    for line in log.read_text().splitlines():
        method, uri, status, addrs, _codes, _took = line.split(" | ")
        rows.append((method, uri, status, re.findall(r"127\.0\.0\.1:\d+", addrs)))
    return rows


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
