"""One way to write atomically: a transaction, or a savepoint inside one already open."""

from __future__ import annotations

import contextlib
import itertools
import sqlite3
from collections.abc import Iterator

_savepoints = itertools.count()


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Run the block atomically: in its own BEGIN IMMEDIATE … COMMIT (the connection is
    in autocommit mode, so a statement outside any block commits by itself), or, inside
    a transaction a unit of work already opened, as a savepoint of it. Rolled back if the
    block raises."""
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
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
