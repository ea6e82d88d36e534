"""The queries' :class:`~bot.storage.sql.Db` over one asyncpg connection
(:class:`PostgresDb`) and over a unit of work's (:class:`UnitDb`, its BEGIN sent with its
first statement or its locks), with the ``:name`` parameters written as asyncpg's
``$n``. :mod:`bot.storage.postgres` hands them the pool's connections."""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import AsyncIterator
from typing import Any

import asyncpg  # type: ignore[import-untyped]

from bot.storage.outcomes import WriteTracker
from bot.storage.postgres_locks import lock_key
from bot.storage.sql import Dialect, Params, Row

POSTGRES = Dialect(
    name="postgres", for_update=" FOR UPDATE", skip_locked=" FOR UPDATE SKIP LOCKED",
    claim_seconds=30.0, integrity_errors=(asyncpg.IntegrityConstraintViolationError,),
    writable_with=True, locks_in_statement=True,
)  # fmt: skip
_PARAMETER = re.compile(r"(?<![:\w]):([a-z_][a-z0-9_]*)")


@functools.lru_cache(maxsize=512)
def _numbered(sql: str) -> tuple[str, tuple[str, ...]]:
    """The queries' ``:name`` parameters as asyncpg's ``$1``, ``$2`` … (a name used twice
    is one parameter), and the names in that order. ``::type`` casts are left alone."""
    names: list[str] = []

    def number(match: re.Match[str]) -> str:
        if match[1] not in names:
            names.append(match[1])
        return f"${names.index(match[1]) + 1}"

    return _PARAMETER.sub(number, sql), tuple(names)


def _answered(exc: BaseException) -> bool:
    """Whether the statement surely did not take effect: the server reported an error for
    it, or asyncpg refused to send it (a connection still busy with, or closed by, the
    server's goodbye). A connection closed *in the middle* of the statement says nothing
    of its fate."""
    if isinstance(exc, asyncpg.PostgresConnectionError | asyncpg.exceptions.ProtocolError):
        return False  # closed in the middle, or a reply that made no sense
    refused = asyncpg.InterfaceError | asyncpg.exceptions.InternalClientError
    return isinstance(exc, asyncpg.PostgresError | refused)


class PostgresDb:
    """The queries' :class:`~bot.storage.sql.Db` over an asyncpg connection: one round
    trip per statement. Its :attr:`tracker` follows what the writes came to."""

    dialect = POSTGRES

    def __init__(self, conn: Any, tracker: WriteTracker | None = None) -> None:
        self.conn = conn
        self.tracker = tracker or WriteTracker(_answered)

    @staticmethod
    def _args(sql: str, params: Params | None) -> tuple[Any, ...]:
        query, names = _numbered(sql)
        values = params or {}
        return (query, *(values[name] for name in names))

    async def rows(self, sql: str, params: Params | None = None) -> list[Row]:
        with self.tracker.statement(sql) as answer:
            rows: list[Row] = await self.conn.fetch(*self._args(sql, params))
            answer(bool(rows))
        return rows

    async def row(self, sql: str, params: Params | None = None) -> Row | None:
        with self.tracker.statement(sql) as answer:
            row: Row | None = await self.conn.fetchrow(*self._args(sql, params))
            answer(row is not None)
        return row

    async def value(self, sql: str, params: Params | None = None) -> Any:
        with self.tracker.statement(sql) as answer:
            value = await self.conn.fetchval(*self._args(sql, params))
            answer(value is not None)
        return value

    async def run(self, sql: str, params: Params | None = None) -> int:
        with self.tracker.statement(sql) as answer:
            status: str = await self.conn.execute(*self._args(sql, params))
            answer(not status.endswith(" 0"))  # "UPDATE 1", "INSERT 0 1", "UPDATE 0"
        return int(status.rsplit(" ", 1)[-1])

    @contextlib.asynccontextmanager
    async def atomic(self) -> AsyncIterator[None]:
        transaction = self.conn.transaction()
        await transaction.start()
        self.tracker.begin()
        try:
            yield
        except BaseException as exc:
            self.tracker.rollback()
            # a server that did not answer gets no more statements: the caller cuts it
            if not isinstance(exc, TimeoutError) and not self.conn.is_closed():
                await transaction.rollback()
            raise
        with self.tracker.commit():
            await transaction.commit()

    async def serialize(self, key: tuple[str, int]) -> None:
        """A transaction-scoped advisory lock: held until the transaction ends."""
        await self.conn.execute("SELECT pg_advisory_xact_lock($1)", lock_key(key))


def lock_statements(keys: tuple[tuple[str, int], ...]) -> str:
    """Statements taking a transaction-scoped advisory lock per key, in the order given.
    The keys are integers this module computes, so they are written into the SQL: that
    lets them travel in one simple query with the BEGIN before them."""
    return "".join(f"; SELECT pg_advisory_xact_lock({int(lock_key(key))})" for key in keys)


class UnitDb(PostgresDb):
    """The :class:`~bot.storage.sql.Db` of a unit of work: its BEGIN is sent with the
    first thing the unit asks for, so a unit that starts by taking its locks (every start
    rule does) spends one round trip on both. asyncpg's transactions cannot nest in one
    begun by hand, so savepoints are written here too."""

    BEGIN = "BEGIN ISOLATION LEVEL READ COMMITTED"

    def __init__(self, conn: Any) -> None:
        super().__init__(conn, WriteTracker(_answered, in_transaction=True))
        self.begun = False
        self._savepoints = 0

    async def begin(self, then: str = "") -> None:
        """Send the BEGIN if it has not been sent, with ``then`` (statements written
        whole, each after a ``"; "``) in the same round trip."""
        if not self.begun:
            self.begun = True  # set first: whatever happens next, the end rolls it back
            await self.conn.execute(self.BEGIN + then)
        elif then:
            await self.conn.execute(then.removeprefix("; "))

    async def rows(self, sql: str, params: Params | None = None) -> list[Row]:
        await self.begin()
        return await super().rows(sql, params)

    async def row(self, sql: str, params: Params | None = None) -> Row | None:
        await self.begin()
        return await super().row(sql, params)

    async def value(self, sql: str, params: Params | None = None) -> Any:
        await self.begin()
        return await super().value(sql, params)

    async def run(self, sql: str, params: Params | None = None) -> int:
        await self.begin()
        return await super().run(sql, params)

    @contextlib.asynccontextmanager
    async def atomic(self) -> AsyncIterator[None]:
        """A savepoint of the unit's transaction: rolled back if the block raises."""
        self._savepoints += 1
        name = f"sp{self._savepoints}"
        await self.begin(f"; SAVEPOINT {name}")
        try:
            yield
        except BaseException as exc:
            # a server that did not answer gets no more statements: the unit cuts it
            if not isinstance(exc, TimeoutError) and not self.conn.is_closed():
                await self.conn.execute(f"ROLLBACK TO SAVEPOINT {name}; RELEASE SAVEPOINT {name}")
            raise
        await self.conn.execute(f"RELEASE SAVEPOINT {name}")

    async def serialize(self, key: tuple[str, int]) -> None:
        await self.begin(lock_statements((key,)))

    async def end(self, commit: bool) -> None:
        """COMMIT or ROLLBACK, if anything was begun."""
        if not (self.begun and self.conn.is_in_transaction()):
            return
        if not commit:
            await self.conn.execute("ROLLBACK")
            return
        with self.tracker.commit():
            await self.conn.execute("COMMIT")
