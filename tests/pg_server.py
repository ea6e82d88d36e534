"""A real PostgreSQL server for the tests (a pytest plugin, registered in conftest.py).

One server per test session, started on first use: from the ``pgserver`` wheel (the test
extra installs it where it has wheels), else ``initdb``/``pg_ctl`` from the PATH or
/usr/lib/postgresql/*/bin, run as the ``postgres`` user when we are root. It listens on a
unix socket in its temporary data folder only, and is stopped and deleted at the end.
Each test gets a database of its own (``pg_database``: its DSN).

No server: the PostgreSQL tests are skipped, and the terminal summary says why. Under
``CI=true`` that is an error instead: CI must never pass without them.
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import itertools
import os
import shutil
import subprocess
import tempfile
import threading
import warnings
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import pytest

T = TypeVar("T")
_numbers = itertools.count(1)
_skipped: list[str] = []
_used: list[str] = []


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to the end on a fresh event loop in a thread of its own, so it works
    from a fixture whether or not a test's loop is running."""
    result: list[T] = []
    failure: list[BaseException] = []

    def target() -> None:
        try:
            result.append(asyncio.run(coro))
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return result[0]


class PgServer:
    """A running server: its admin DSN, databases made on it, and how it stops."""

    def __init__(self, admin_dsn: str, how: str, stop: Callable[[], None], data_dir: Path) -> None:
        self.admin_dsn = admin_dsn
        self.data_dir = data_dir
        """The cluster's folder (its ``postmaster.pid`` names the server's process)."""
        self.how = how
        self.stop = stop

    def dsn(self, database: str) -> str:
        parts = urlsplit(self.admin_dsn)
        return urlunsplit(parts._replace(path=f"/{database}"))

    async def _admin(self, *statements: str) -> None:
        import asyncpg  # type: ignore[import-untyped]

        conn = await asyncpg.connect(self.admin_dsn)
        try:
            for statement in statements:
                await conn.execute(statement)
        finally:
            await conn.close()

    def tune(self) -> None:
        """Durability off: a test server that loses its data on a crash loses nothing."""
        run_async(self._admin(
            "ALTER SYSTEM SET fsync = off", "ALTER SYSTEM SET synchronous_commit = off",
            "ALTER SYSTEM SET full_page_writes = off", "SELECT pg_reload_conf()",
        ))  # fmt: skip

    def create_database(self) -> str:
        name = f"ttt_test_{os.getpid()}_{next(_numbers)}"
        run_async(self._admin(f"CREATE DATABASE {name}"))
        return name

    def drop_database(self, name: str) -> None:
        run_async(self._admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


def _from_pgserver(root: Path) -> PgServer:
    with warnings.catch_warnings():  # it warns when XDG_RUNTIME_DIR is unset, as in CI
        warnings.simplefilter("ignore")
        import pgserver  # type: ignore[import-not-found, import-untyped, unused-ignore]

    server = pgserver.get_server(root / "pgdata", cleanup_mode="delete")
    return PgServer(server.get_uri(), "pgserver", server.cleanup, root / "pgdata")


def _pg_bin() -> Path | None:
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).resolve().parent
    versions = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0,
    )
    return Path(versions[-1]).parent if versions else None


def _from_pg_ctl(root: Path) -> PgServer:
    bin_dir = _pg_bin()
    if bin_dir is None or not (bin_dir / "initdb").exists():
        raise RuntimeError("no pg_ctl/initdb on the PATH or under /usr/lib/postgresql")
    prefix: list[str] = []
    data = root / "data"
    data.mkdir(mode=0o700)
    if os.name == "posix" and os.geteuid() == 0:  # PostgreSQL refuses to run as root
        import pwd

        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            raise RuntimeError("running as root and there is no postgres user") from None
        for path in (root, data):
            os.chown(path, user.pw_uid, user.pw_gid)
        prefix = ["runuser", "-u", "postgres", "--"]

    def run(*args: str) -> None:
        subprocess.run([*prefix, *args], check=True, capture_output=True, timeout=60)

    run(str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
    log = data / "server.log"
    options = f"-h '' -k {data} -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    run(str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-t", "30",
        "-o", options, "start")  # fmt: skip

    def stop() -> None:
        with contextlib.suppress(subprocess.SubprocessError):
            run(str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop")

    return PgServer(
        f"postgresql://postgres@/postgres?host={data}", f"pg_ctl in {bin_dir}", stop, data
    )


def start_server(root: Path) -> tuple[PgServer | None, str]:
    """A running server, or None and why none could be started."""
    reasons = []
    for start in (_from_pgserver, _from_pg_ctl):
        folder = Path(tempfile.mkdtemp(prefix="ttt-pg-", dir=root))
        folder.chmod(0o755)
        server = None
        try:
            server = start(folder)
            server.tune()
            return server, ""
        except Exception as exc:
            if server is not None:
                server.stop()
            reasons.append(f"{start.__name__.removeprefix('_from_')}: {exc}".splitlines()[0])
            shutil.rmtree(folder, ignore_errors=True)
    return None, "; ".join(reasons)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """The session's PostgreSQL server; skips (fails under CI=true) if none can start."""
    root = Path(tempfile.mkdtemp(prefix="ttt-pgs-", dir="/tmp" if os.name == "posix" else None))
    root.chmod(0o755)
    server, reason = start_server(root)
    if server is None:
        shutil.rmtree(root, ignore_errors=True)
        message = f"no PostgreSQL server could be started ({reason})"
        if os.environ.get("CI", "").lower() == "true":
            raise RuntimeError(f"{message}; CI needs the PostgreSQL tests")
        _skipped.append(message)
        pytest.skip(message)
    _used.append(server.how)
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def pg_database(pg_server: PgServer) -> Iterator[str]:
    """The DSN of a fresh, empty database for this test alone."""
    name = pg_server.create_database()
    yield pg_server.dsn(name)
    pg_server.drop_database(name)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _used:
        terminalreporter.write_line(f"PostgreSQL tests ran on a server from {_used[0]}")
    if _skipped:
        terminalreporter.section("PostgreSQL")
        terminalreporter.write_line(
            f"PostgreSQL tests SKIPPED: {_skipped[0]}. Install the test extra (pgserver) or"
            " PostgreSQL (pg_ctl) to run them.",
            yellow=True,
        )
