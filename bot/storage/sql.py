"""What the queries are written against: one connection interface and a dialect, so each
query is written once for SQLite and PostgreSQL.

A query is an ``async def`` taking a :class:`Db`. Its SQL uses named parameters
(``:game_id``), which each driver's :class:`Db` translates (sqlite3 takes them as they
are, asyncpg gets ``$1``, ``$2`` …), and its rows are read by column name. The few
things the two servers really do differently are the :class:`Dialect`'s: row locks, the
claim a timekeeper holds on a due deadline, and which error means a broken constraint.

On SQLite a query runs whole on the database thread: its ``Db`` methods never suspend,
so :func:`run_to_end` drives the coroutine to its result in one step, and a store call
is one hop to that thread however many statements it runs. On PostgreSQL the same
coroutine is awaited on the event loop, one round trip per statement.
"""

from __future__ import annotations

from collections.abc import Coroutine, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

T = TypeVar("T")
Row = Mapping[str, Any]
Params = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Dialect:
    name: str
    for_update: str
    """Appended to a SELECT whose rows the transaction will write: PostgreSQL locks them
    (a concurrent writer waits, then reads what this one wrote); SQLite's one writer
    holds the whole file already."""
    skip_locked: str
    """Appended to the SELECT of a claim: rows another process is claiming are skipped."""
    claim_seconds: float
    """How long a timekeeper's claim on a due deadline keeps other processes off it:
    ample to resolve it; if the claiming process dies, another takes it after that. One
    process per SQLite file: nobody to keep off."""
    integrity_errors: tuple[type[Exception], ...]
    """What the driver raises when a unique index refuses a row."""
    writable_with: bool
    """An UPDATE … RETURNING may feed an INSERT in one statement (a WITH query that
    writes): PostgreSQL's round trips are saved so; SQLite has no such WITH, and runs a
    query's statements in one step anyway."""
    locks_in_statement: bool
    """A statement takes the advisory locks its condition needs itself (PostgreSQL, with
    ``game_queries.ROOM_AFTER_LOCKS``); SQLite has none to take: its one connection runs
    each statement alone."""


class Db(Protocol):
    """A connection (or a transaction's) as the queries see it."""

    dialect: Dialect

    async def rows(self, sql: str, params: Params = ...) -> list[Row]: ...

    async def row(self, sql: str, params: Params = ...) -> Row | None: ...

    async def value(self, sql: str, params: Params = ...) -> Any:
        """The first column of the first row, None if there is no row."""

    async def run(self, sql: str, params: Params = ...) -> int:
        """Execute a statement; the number of rows it changed."""

    def atomic(self) -> AbstractAsyncContextManager[None]:
        """Its own transaction, or a savepoint of the one already open: rolled back if
        the block raises."""

    async def serialize(self, key: tuple[str, int]) -> None:
        """Hold the named lock (``("channel", id)``) until the transaction ends."""


def insert_returning_id(table: str, columns: Sequence[str], where: str | None = None) -> str:
    """``INSERT INTO table (columns) VALUES (:columns) RETURNING id``: a row from the
    parameters named as its columns, and the id the database gave it; with ``where``, the
    row is inserted only if that condition holds (no id comes back otherwise)."""
    values = ", ".join(":" + c for c in columns)
    row = f"VALUES ({values})" if where is None else f"SELECT {values} WHERE {where}"
    return f"INSERT INTO {table} ({', '.join(columns)}) {row} RETURNING id"


def run_to_end(coro: Coroutine[Any, Any, T]) -> T:
    """The result of a query coroutine that never suspends (one over SQLite's ``Db``).

    Raises:
        RuntimeError: it awaited something that suspends (a bug: a SQLite query must
            await nothing but its ``Db``).
    """
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    coro.close()
    raise RuntimeError("a query on SQLite suspended: it may await only its Db")
