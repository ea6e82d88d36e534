"""The PostgreSQL repository: a pool of asyncpg connections that any number of bot
processes share the database through.

Implements :class:`bot.core.repository.Repository` with SQLite's semantics. What one
process's ``asyncio`` locks and SQLite's single writer gave for free, the database's own
locks give across processes:

- :meth:`PostgresTransaction.serialize` takes transaction-scoped advisory locks, so the
  per-channel and per-member start rules are checked and applied one start at a time;
- a move is a compare-and-set on the ply (``UPDATE … WHERE ply = $n``);
- an Elo update locks both rating rows in user-id order before reading them;
- due deadlines are claimed in batches with ``FOR UPDATE SKIP LOCKED``;
- migrations run under a session advisory lock, once, however many processes start.

Units of work run at READ COMMITTED: each statement sees what committed before it began,
so a rule read after taking its lock sees every start that held the lock before.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

import asyncpg  # type: ignore[import-untyped]

from bot.core.doubts import Doubts, Touched
from bot.core.repository import DatabaseError
from bot.storage.board_writes import BoardWrites
from bot.storage.outcomes import settle
from bot.storage.postgres_db import POSTGRES, PostgresDb, UnitDb, lock_statements
from bot.storage.postgres_identify import identify_turn
from bot.storage.postgres_locks import lock_key
from bot.storage.postgres_migrations import migrate, schema_version
from bot.storage.postgres_notify import Listener, notify
from bot.storage.postgres_pool import ConnectionPool
from bot.storage.postgres_settle import CutOff, connection_name
from bot.storage.store import SqlStore

log = logging.getLogger(__name__)
T = TypeVar("T")
QUERY_TIMEOUT = 2.0
"""Seconds any pooled query (and the wait for a pooled connection) may take: a server
that accepts connections but does not answer (frozen, or cut off by the network) then
fails the interaction in time for its apology to reach Discord within its 3 s. Work
that may wait longer (migrations, IDENTIFY turns, LISTEN) has connections of its own."""
__all__ = ["POSTGRES", "PostgresRepository", "PostgresTransaction", "lock_key", "name_of"]


def name_of(dsn: str) -> str:
    """The database a DSN names, for messages: ``db on host:port``, never the password."""
    try:
        parts = urlsplit(dsn)
        host = parts.hostname or parse_qs(parts.query).get("host", ["localhost"])[0]
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "PostgreSQL database (unreadable TTT_DATABASE_URL)"
    name = parts.path.lstrip("/") or parts.username or "postgres"
    return f"PostgreSQL database {name} on {host}{port}"


class PostgresTransaction(SqlStore):
    """The store inside :meth:`PostgresRepository.atomic`: calls run on its connection, in
    its transaction."""

    def __init__(self, db: UnitDb, boards: BoardWrites) -> None:
        self._db = db
        self._boards = boards
        self.touched: list[Touched] = []
        """What the unit's writes touch: stored or not with its COMMIT."""

    async def _call(
        self, fn: Callable[..., Awaitable[T]], *args: Any, touches: Sequence[Touched] = ()
    ) -> T:
        self.touched += touches
        return await fn(self._db, *args)

    async def serialize(self, *keys: tuple[str, int]) -> None:
        """Take a transaction-scoped advisory lock per key, in the order given (the caller
        sorts them, so two units of work never wait on each other in a cycle): one round
        trip, with the unit's BEGIN if it has not been sent yet."""
        if keys:
            await self._db.begin(lock_statements(keys))


class PostgresRepository(SqlStore):
    """Async access to the PostgreSQL database at ``dsn``
    (``postgresql://user:pass@host:5432/db``) through at most ``pool_size`` connections."""

    def __init__(self, dsn: str, pool_size: int = 10, doubts: Doubts | None = None) -> None:
        if pool_size < 1:
            raise ValueError(f"pool_size must be at least 1, not {pool_size}")
        self.doubts = Doubts() if doubts is None else doubts
        self.dsn = dsn
        self.pool_size = pool_size
        self.name = name_of(dsn)
        self._pool: ConnectionPool | None = None
        self._listener = Listener(dsn)
        self._boards = BoardWrites(self._set_game_message_if_none)
        self._cut_off = CutOff()

    async def _connect(self) -> Any:
        name = connection_name()
        conn = await asyncpg.connect(
            self.dsn, timeout=10, command_timeout=QUERY_TIMEOUT,
            server_settings={"application_name": name},
        )  # fmt: skip
        self._cut_off.connected(conn, name)
        return conn

    @property
    def pool(self) -> ConnectionPool:
        if self._pool is None:
            raise DatabaseError(f"{self.name} is not open")
        return self._pool

    async def _call(
        self, fn: Callable[..., Awaitable[T]], *args: Any, touches: Sequence[Touched] = ()
    ) -> T:
        async with self.pool.connection(QUERY_TIMEOUT) as conn:
            db = PostgresDb(conn)
            try:
                result = await fn(db, *args)
            except BaseException as exc:
                self._give_up(conn, db, exc)
                settle(db.tracker, touches, self.doubts, self.name, exc)
                raise
            settle(db.tracker, touches, self.doubts, self.name)
            return result

    @contextlib.asynccontextmanager
    async def atomic(self) -> AsyncIterator[PostgresTransaction]:
        async with self.pool.connection(QUERY_TIMEOUT) as conn:
            db = UnitDb(conn)
            unit = PostgresTransaction(db, self._boards)
            try:
                yield unit
            except BaseException as exc:
                if isinstance(exc, TimeoutError):
                    # The server does not answer: a ROLLBACK would wait as long again, and
                    # the pool for the cancelled query. Cut the connection instead: the
                    # server rolls the transaction back when it sees it gone.
                    conn.terminate()
                elif not conn.is_closed():
                    await db.end(commit=False)
                raise
            try:
                await db.end(commit=True)
            except BaseException as exc:
                self._give_up(conn, db, exc)
                settle(db.tracker, unit.touched, self.doubts, self.name, exc)
                raise
            settle(db.tracker, unit.touched, self.doubts, self.name)

    def _give_up(self, conn: Any, db: PostgresDb, exc: BaseException) -> None:
        """After a store call failed: a connection whose server did not answer, or that
        still has a write in flight (a cancelled call), is cut (see :meth:`atomic`), and
        one cut with a write in flight is remembered, to make that write's fate final
        before anything it touched is read again."""
        if db.tracker.in_flight:
            self._cut_off.add(conn)
        if isinstance(exc, TimeoutError) or db.tracker.in_flight:
            conn.terminate()

    async def settle_writes(self) -> None:
        """Make final every write whose outcome was unknown: the backends still running
        one are ended (see :mod:`bot.storage.postgres_settle`).

        Raises:
            TimeoutError: the database does not answer yet, or a backend lingers.
        """
        if self._cut_off:
            async with self.pool.connection(QUERY_TIMEOUT) as conn:
                await self._cut_off.settle(conn)

    # --- lifecycle ----------------------------------------------------------------------

    async def open(self) -> None:
        """Connect the pool and apply pending migrations (once, under an advisory lock).

        Raises:
            DatabaseError: the server cannot be reached, refuses the login, or the schema
                is newer than this bot; the one-line message names the database.
        """
        try:
            session = await asyncpg.connect(self.dsn, timeout=10)
            try:  # its own connection: closing it frees the session lock, come what may
                await migrate(session)
            finally:
                await session.close()
            pool = ConnectionPool(self._connect, self.pool_size)
            await pool.start()
            self._pool = pool
        except Exception as exc:  # any failure here means: this database cannot be used
            await self.close()
            reason = " ".join(str(exc).split()) or type(exc).__name__
            with contextlib.suppress(ValueError):
                if password := urlsplit(self.dsn).password:  # a driver may echo the DSN
                    reason = reason.replace(password, "***")
            raise DatabaseError(f"cannot open {self.name}: {reason}") from None

    async def close(self) -> None:
        if self._pool is not None:
            await self._boards.close()
        await self._listener.close()
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    async def schema_version(self) -> int:
        async with self.pool.connection(QUERY_TIMEOUT) as conn:
            return await schema_version(conn)

    async def describe(self) -> str:
        version = await self.schema_version()
        return f"{self.name} (schema version {version}, pool of {self.pool_size})"

    async def identify_turn(self, bucket: int, spacing: float) -> None:
        await identify_turn(self.dsn, bucket, spacing)

    async def listen(self, topic: str, callback: Callable[[str], None]) -> None:
        await self._listener.listen(topic, callback)

    async def notify(self, topic: str, payload: str = "") -> None:
        async with self.pool.connection(QUERY_TIMEOUT) as conn:
            await notify(conn, topic, payload)

    async def _tell(self, topic: str, payload: str) -> None:
        # what was written holds whether or not this is heard: a listener that misses it
        # finds the stamp at its next read of the session
        try:
            await self.notify(topic, payload)
        except Exception as exc:
            if not self.unreachable(exc):
                raise
            log.warning("could not notify %s (%s): the database did not answer", topic, exc)
