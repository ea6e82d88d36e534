"""One way to write atomically: a transaction, or a savepoint inside one already open."""

from __future__ import annotations

import contextlib
import itertools
import sqlite3
from collections.abc import Iterator

from bot.storage.outcomes import WriteTracker

_savepoints = itertools.count()


@contextlib.contextmanager
def transaction(
    conn: sqlite3.Connection, tracker: WriteTracker | None = None
) -> Iterator[sqlite3.Connection]:
    """Run the block atomically: in its own BEGIN IMMEDIATE … COMMIT (the connection is
    in autocommit mode, so a statement outside any block commits by itself), or, inside
    a transaction a unit of work already opened, as a savepoint of it. Rolled back if the
    block raises. ``tracker`` follows its COMMIT (a savepoint's end commits nothing)."""
    if conn.in_transaction:
        name = f"sp{next(_savepoints)}"
        conn.execute(f"SAVEPOINT {name}")
        try:
            yield conn
        except BaseException:
            conn.execute(f"ROLLBACK TO {name}")
            conn.execute(f"RELEASE {name}")
            raise
        conn.execute(f"RELEASE {name}")
        return
    conn.execute("BEGIN IMMEDIATE")
    if tracker is not None:
        tracker.begin()
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        if tracker is not None:
            tracker.rollback()
        raise
    with tracker.commit() if tracker is not None else contextlib.nullcontext():
        conn.execute("COMMIT")
