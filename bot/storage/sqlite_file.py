"""Opening the SQLite file: what is refused before it is touched (a missing or read-only
folder, a second process on the same file), the connection's settings, and the schema
brought up to date. :class:`~bot.storage.sqlite.SqliteRepository` queries what this
opens; everything here runs on its database thread."""

from __future__ import annotations

import fcntl
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from bot.core.repository import DatabaseError
from bot.storage.migrations import MIGRATIONS
from bot.storage.transactions import transaction

MIN_VERSION = (3, 35, 0)
"""UPDATE … RETURNING, which the queries use, came with SQLite 3.35."""


@dataclass(slots=True)
class OpenFile:
    conn: sqlite3.Connection
    """The connection every query runs on."""
    checkpointer: sqlite3.Connection | None
    """A second connection that copies the log into the file (none in memory)."""
    lock_fd: int | None
    """The descriptor holding the file's flock until :func:`release` (none in memory)."""


def open_file(path: str) -> OpenFile:
    """Open ``path`` (or ``:memory:``), switch to WAL and apply pending migrations.

    Raises:
        DatabaseError: SQLite is too old, or the path cannot be opened or used (see
            :func:`lock_file`), or is not a SQLite database.
    """
    if sqlite3.sqlite_version_info < MIN_VERSION:
        raise DatabaseError(
            f"SQLite {sqlite3.sqlite_version} is too old: ttt needs 3.35 or newer "
            "(or PostgreSQL: TTT_DATABASE_URL)"
        )
    lock_fd = None if path == ":memory:" else lock_file(Path(path))
    try:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        release(lock_fd)
        raise DatabaseError(f"cannot open database {path}: {exc}") from None
    conn.row_factory = sqlite3.Row  # the queries read columns by name
    checkpointer = None
    try:
        # Only another program writing the file (the sqlite3 shell, a backup) makes a
        # query wait for a lock, and a query here holds the event loop: one second,
        # then it fails (an apology) rather than stall every interaction.
        conn.execute("PRAGMA busy_timeout = 1000")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        # Migrations that rebuild a table need foreign keys off; a check after them
        # proves nothing was left dangling.
        conn.execute("PRAGMA foreign_keys = OFF")
        _migrate(conn)
        problems = conn.execute("PRAGMA foreign_key_check").fetchall()
        if problems:
            raise sqlite3.DatabaseError(f"broken references after migrating: {problems}")
        conn.execute("PRAGMA foreign_keys = ON")
        if path != ":memory:":
            # the repository checkpoints now and then, on a connection of its own
            conn.execute("PRAGMA wal_autocheckpoint = 0")
            checkpointer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            checkpointer.execute("PRAGMA busy_timeout = 5000")
    except sqlite3.Error as exc:
        conn.close()
        release(lock_fd)
        raise DatabaseError(f"cannot use database {path}: {exc}") from None
    return OpenFile(conn, checkpointer, lock_fd)


def lock_file(path: Path) -> int:
    """Refuse what would fail later: a missing folder, a file or folder the bot cannot
    write, and a second process on the same file (its games would drift from what
    this one shows). The last is an exclusive flock on the database file itself, held
    until :func:`release` (SQLite's own locks are POSIX locks, which flock does not
    touch); the kernel drops it if the process dies. Returns the descriptor holding it.

    Raises:
        DatabaseError: one of those, naming the path.
    """
    if not path.parent.is_dir():
        raise DatabaseError(f"cannot open database {path}: folder {path.parent} does not exist")
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        raise DatabaseError(
            f"cannot use database {path}: the file is not readable and writable by this "
            "user (check its owner and mode)"
        )
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise DatabaseError(
            f"cannot use database {path}: its folder {path.parent} is not writable "
            "(SQLite keeps its journal next to the file)"
        )
    try:
        lock_fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise DatabaseError(f"cannot open database {path}: {exc.strerror}") from None
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        release(lock_fd)
        raise DatabaseError(
            f"database {path} is in use by another running ttt-bot: stop that one "
            "first (to run several processes, use PostgreSQL)"
        ) from None
    return lock_fd


def release(lock_fd: int | None) -> None:
    if lock_fd is not None:
        os.close(lock_fd)  # closing the descriptor drops the flock


def user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def _migrate(conn: sqlite3.Connection) -> None:
    version = user_version(conn)
    if version > len(MIGRATIONS):
        raise sqlite3.DatabaseError(
            f"schema version {version} is newer than this bot knows ({len(MIGRATIONS)})"
        )
    for number in range(version + 1, len(MIGRATIONS) + 1):
        with transaction(conn):
            for statement in MIGRATIONS[number - 1].split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number}")
