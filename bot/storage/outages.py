"""Telling an outage from a fault: whether an error a store call raised means the
database could not be reached or did not answer (the same call may work once it does),
or that the call itself is wrong (a programming error, SQL the server refuses, a row the
code cannot read), which no number of tries will mend. The reconciler retries the first
and gives up on the second (see :meth:`bot.core.repository.Repository.unreachable`)."""

from __future__ import annotations

import sqlite3
import sys

from bot.core.repository import DatabaseError
from bot.storage.postgres_pool import PoolClosed

SQLITE_OUTAGES = frozenset({5, 6, 7, 8, 10, 13, 14, 15})
"""SQLite's primary result codes for a file that cannot be used right now: BUSY and
LOCKED (another program holds it), NOMEM, READONLY, IOERR, FULL, CANTOPEN, PROTOCOL.
SQLITE_ERROR (1: a syntax error, no such table or column) is a fault, as is CORRUPT."""
SQLITE_OUTAGE_WORDS = ("locked", "busy", "disk i/o", "unable to open", "readonly", "full")
"""The same, read from the message where no result code came with the error."""
POSTGRES_OUTAGES = frozenset({"08", "40", "53", "55", "57", "58"})
"""SQLSTATE classes of an outage: connection exception, transaction rollback (a
serialization failure or deadlock, worth a retry), insufficient resources, an object
not in the state needed (a lock not available, a database not accepting connections),
operator intervention (shutdown, cannot connect now, a cancelled query) and system
error. Class 42 (syntax error, undefined column) and the rest are faults."""


def unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it was raised from) means the database is out of reach."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if _outage(current):
            return True
        current = current.__cause__
    return False


def _outage(exc: BaseException) -> bool:
    if isinstance(exc, DatabaseError | PoolClosed | TimeoutError | OSError):
        return True  # OutcomeUnknown, a store not open; no answer; a connection refused or cut
    refused = sqlite3.IntegrityError | sqlite3.ProgrammingError  # a fault of the call
    if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, refused):
        code = getattr(exc, "sqlite_errorcode", None)
        if code is not None:
            return code & 0xFF in SQLITE_OUTAGES
        return any(word in str(exc).lower() for word in SQLITE_OUTAGE_WORDS)
    return _asyncpg_outage(exc)


def _asyncpg_outage(exc: BaseException) -> bool:
    """asyncpg is an optional driver: its errors exist only once it was imported."""
    asyncpg = sys.modules.get("asyncpg")
    if asyncpg is None:
        return False
    if isinstance(exc, asyncpg.PostgresError):
        return str(getattr(exc, "sqlstate", "") or "")[:2] in POSTGRES_OUTAGES
    if isinstance(exc, asyncpg.InterfaceError):  # a connection closed under the call
        return "closed" in str(exc)
    # the protocol left mid-operation by a backend ended under it ("cannot switch to
    # state …; another operation is in progress"): the next connection will do
    return isinstance(exc, asyncpg.exceptions.InternalClientError)
