"""The SQLite repository: one file, one connection in WAL mode, queried on the event loop.

Implements :class:`bot.core.repository.Repository`. Each call holds the connection for
its statement(s); :meth:`SqliteRepository.atomic` holds it for a whole unit of work
(``BEGIN IMMEDIATE`` … ``COMMIT``), so a rule checked inside it cannot be raced by another
coroutine of this process. One process per database file: SQLite is the embedded choice.

Why on the loop: a query here takes tens of microseconds, and in WAL mode with
``synchronous = NORMAL`` a commit only appends to the log in the page cache; the disk is
waited for only when the log is copied back into the file (a checkpoint). A hop to a
database thread cost more than the query: measured with ``bench/bot_latency.py --think
0``, about 0.5 ms of CPU per interaction (the two threads trading the GIL) and twice the
click latency. So queries run inline, and what waits for the disk runs on the database
thread: opening and migrating, closing, and the checkpoints, which a connection of their
own makes every few seconds (the query connection never checkpoints by itself).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import logging
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from bot.core.doubts import Doubts, Touched
from bot.core.repository import GAMES_TOPIC, DatabaseError
from bot.storage.board_writes import BoardWrites
from bot.storage.outcomes import WriteTracker, settle
from bot.storage.sql import Dialect, Params, Row, run_to_end
from bot.storage.sqlite_file import open_file, release, user_version
from bot.storage.store import SqlStore
from bot.storage.transactions import transaction

T = TypeVar("T")
log = logging.getLogger(__name__)

SQLITE = Dialect(
    name="sqlite", for_update="", skip_locked="", claim_seconds=0.0,
    integrity_errors=(sqlite3.IntegrityError,), writable_with=False, locks_in_statement=False,
)  # fmt: skip
SQLITE_IOERR, SQLITE_CORRUPT = 10, 11
"""Primary result codes after which a statement's (or a COMMIT's) fate is not known."""
CHECKPOINT_SECONDS = 2.0
"""How often the log is copied into the database file, when anything was written."""


@functools.lru_cache(maxsize=512)
def _sqlite_sql(sql: str) -> str:
    """The queries' SQL as SQLite reads it: sqlite3 takes ``:name`` parameters as they
    are; ``IS [NOT] DISTINCT FROM`` came only with 3.39, where ``IS [NOT]`` says the same."""
    return sql.replace("IS NOT DISTINCT FROM", "IS").replace("IS DISTINCT FROM", "IS NOT")


def _answered(exc: BaseException) -> bool:
    """An error SQLite reported for the statement, which it then rolled back (a full
    disk included); an I/O error or a corrupt file may leave a COMMIT's fate unknown."""
    if not isinstance(exc, sqlite3.Error):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    return code is None or code & 0xFF not in (SQLITE_IOERR, SQLITE_CORRUPT)


class SqliteDb:
    """The queries' :class:`~bot.storage.sql.Db` over the one connection: nothing here
    suspends, so a whole query runs to its end in one step of the event loop. Its
    :attr:`tracker` follows what the writes came to."""

    dialect = SQLITE

    def __init__(self, conn: sqlite3.Connection, tracker: WriteTracker | None = None) -> None:
        self.conn = conn
        self.tracker = tracker or WriteTracker(_answered, in_transaction=conn.in_transaction)

    def _execute(self, sql: str, params: Params | None) -> sqlite3.Cursor:
        sent = self.tracker.sending(sql)  # the tracker's statement(), without its context
        try:
            cursor = self.conn.execute(_sqlite_sql(sql), params or {})
        except BaseException as exc:
            self.tracker.failed(sent, exc)
            raise
        # a statement with RETURNING counts its rows only as they are read: it is taken
        # to have changed some (the doubt errs toward a needless re-read)
        self.tracker.answered(sent, cursor.rowcount > 0 or cursor.description is not None)
        return cursor

    async def rows(self, sql: str, params: Params | None = None) -> list[Row]:
        return self._execute(sql, params).fetchall()

    async def row(self, sql: str, params: Params | None = None) -> Row | None:
        row: Row | None = self._execute(sql, params).fetchone()
        return row

    async def value(self, sql: str, params: Params | None = None) -> Any:
        row = self._execute(sql, params).fetchone()
        return None if row is None else row[0]

    async def run(self, sql: str, params: Params | None = None) -> int:
        return self._execute(sql, params).rowcount

    @contextlib.asynccontextmanager
    async def atomic(self) -> AsyncIterator[None]:
        with transaction(self.conn, self.tracker):
            yield

    async def serialize(self, key: tuple[str, int]) -> None:
        """Nothing to take: the transaction holds the only connection, and BEGIN
        IMMEDIATE the file's write lock, until it ends."""


def _run_query(fn: Callable[..., Awaitable[T]], db: SqliteDb, *args: Any) -> T:
    """The whole query, to its result, without suspending."""
    return run_to_end(fn(db, *args))  # type: ignore[arg-type]


class SqliteTransaction(SqlStore):
    """The store inside :meth:`SqliteRepository.atomic`: calls run in the open transaction."""

    def __init__(self, repo: SqliteRepository, tracker: WriteTracker) -> None:
        self._repo = repo
        self._boards = repo._boards
        self._tracker = tracker
        self.touched: list[Touched] = []
        """What the unit's writes touch: stored or not with its COMMIT."""

    async def _call(
        self, fn: Callable[..., Awaitable[T]], *args: Any, touches: Sequence[Touched] = ()
    ) -> T:
        self.touched += touches
        return _run_query(fn, SqliteDb(self._repo.conn, self._tracker), *args)

    async def serialize(self, *keys: tuple[str, int]) -> None:
        """Nothing to take: the transaction already holds the only connection, and
        BEGIN IMMEDIATE the file's write lock, until it ends."""


class SqliteRepository(SqlStore):
    """Async access to the SQLite file at ``path``."""

    def __init__(self, path: str | Path, doubts: Doubts | None = None) -> None:
        self.path = str(path)
        self.doubts = Doubts() if doubts is None else doubts
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ttt-db")
        self._conn: sqlite3.Connection | None = None
        self._checkpointer: sqlite3.Connection | None = None
        self._checkpoints: asyncio.Task[None] | None = None
        self._lock_fd: int | None = None
        self._identify_lock = asyncio.Lock()
        self._listeners: dict[str, list[Callable[[str], None]]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._last_identify: dict[int, float] = {}
        self._boards = BoardWrites(self._set_game_message_if_none)
        self._turn = asyncio.Lock()
        """Held by a unit of work while its transaction is open: a statement issued then
        would otherwise join (or roll back with) it, so it waits for the lock."""

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise DatabaseError(f"database {self.path} is not open")
        return self._conn

    async def _on_db_thread(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, fn, *args)

    async def _call(
        self, fn: Callable[..., Awaitable[T]], *args: Any, touches: Sequence[Touched] = ()
    ) -> T:
        if not self._turn.locked():
            return self._run(fn, args, touches)
        async with self._turn:  # a unit of work is open and waiting on something else
            return self._run(fn, args, touches)

    def _run(
        self, fn: Callable[..., Awaitable[T]], args: tuple[Any, ...], touches: Sequence[Touched]
    ) -> T:
        db = SqliteDb(self.conn)
        try:
            result = _run_query(fn, db, *args)
        except BaseException as exc:
            settle(db.tracker, touches, self.doubts, self.path, exc)
            raise
        settle(db.tracker, touches, self.doubts, self.path)
        return result

    @contextlib.asynccontextmanager
    async def atomic(self) -> AsyncIterator[SqliteTransaction]:
        async with self._turn:
            tracker = WriteTracker(_answered)
            unit = SqliteTransaction(self, tracker)
            try:
                with transaction(self.conn, tracker):
                    yield unit
            except BaseException as exc:
                settle(tracker, unit.touched, self.doubts, self.path, exc)
                raise
            settle(tracker, unit.touched, self.doubts, self.path)

    # --- lifecycle ----------------------------------------------------------------------

    async def open(self) -> None:
        """Open the file, switch to WAL and apply pending migrations.

        Raises:
            DatabaseError: the path cannot be opened or is not a SQLite database.
        """
        await self._on_db_thread(self._open)
        if self._checkpointer is not None:
            self._checkpoints = asyncio.create_task(self._checkpoint_now_and_then())

    async def _checkpoint_now_and_then(self) -> None:
        """Every :data:`CHECKPOINT_SECONDS`, when anything was written, copy the log into
        the file on the database thread (a PASSIVE checkpoint: it waits for no query)."""
        assert self._checkpointer is not None
        checkpointer, written = self._checkpointer, -1  # the migrations may have written
        while True:
            await asyncio.sleep(CHECKPOINT_SECONDS)
            if self._conn is None or self._conn.total_changes == written:
                continue
            written = self._conn.total_changes
            try:
                await self._on_db_thread(checkpointer.execute, "PRAGMA wal_checkpoint(PASSIVE)")
            except sqlite3.Error as exc:
                log.warning("checkpoint of %s failed (next try in %g s): %s", self.path,
                            CHECKPOINT_SECONDS, exc)  # fmt: skip

    def _open(self) -> None:
        opened = open_file(self.path)
        self._conn, self._checkpointer = opened.conn, opened.checkpointer
        self._lock_fd = opened.lock_fd

    def _tell_games_written(self, conn: sqlite3.Connection) -> None:
        """From the first listener to ``games`` on, every game written is told to them
        (``channel:game``), as PostgreSQL's trigger tells every process: a temporary
        trigger calling back into this process, which schedules the listeners after the
        statement (without listeners, writes pay nothing for it)."""
        conn.create_function("ttt_game_written", 2, self._game_written, deterministic=False)
        told = " BEGIN SELECT ttt_game_written(NEW.channel_id, NEW.id); END"
        conn.execute(f"CREATE TEMP TRIGGER games_inserted_told AFTER INSERT ON main.games{told}")
        conn.execute(  # as on PostgreSQL: only what a page shows
            "CREATE TEMP TRIGGER games_changed_told AFTER UPDATE ON main.games WHEN"
            " OLD.moves IS NOT NEW.moves OR OLD.status IS NOT NEW.status"
            " OR OLD.hinted IS NOT NEW.hinted OR OLD.extra_time_ply IS NOT NEW.extra_time_ply"
            f" OR OLD.draw_offer_until IS NOT NEW.draw_offer_until{told}"
        )

    def _game_written(self, channel_id: int, game_id: int) -> None:
        listeners = self._listeners.get(GAMES_TOPIC)
        if not listeners or self._loop is None:
            return
        payload = f"{channel_id}:{game_id}"
        for callback in listeners:  # outside the writer's context (its Journal, say)
            try:
                self._loop.call_soon_threadsafe(callback, payload, context=contextvars.Context())
            except RuntimeError:  # the loop is closed: nobody is listening any more
                return

    def _release(self) -> None:
        release(self._lock_fd)
        self._lock_fd = None

    async def close(self) -> None:
        if self._conn is not None:
            await self._boards.close()
        if self._checkpoints is not None:
            self._checkpoints.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._checkpoints
            self._checkpoints = None
        if self._checkpointer is not None:
            await self._on_db_thread(self._checkpointer.close)
            self._checkpointer = None
        if self._conn is not None:
            async with self._turn:  # the last connection out checkpoints: on the thread
                await self._on_db_thread(self._conn.close)
            self._conn = None
        self._release()
        self._executor.shutdown(wait=True)

    async def schema_version(self) -> int:
        return user_version(self.conn)

    async def settle_writes(self) -> None:
        """Nothing to wait for: a statement here has ended when its call returns."""

    async def listen(self, topic: str, callback: Callable[[str], None]) -> None:
        self._loop = asyncio.get_running_loop()
        if topic == GAMES_TOPIC and topic not in self._listeners:
            self._tell_games_written(self.conn)
        self._listeners.setdefault(topic, []).append(callback)

    async def notify(self, topic: str, payload: str = "") -> None:
        """One process per file: the listeners are all here."""
        for callback in self._listeners.get(topic, []):
            callback(payload)

    async def _tell(self, topic: str, payload: str) -> None:
        await self.notify(topic, payload)

    async def identify_turn(self, bucket: int, spacing: float) -> None:
        """One process per SQLite file: spacing this process's own IDENTIFYs is enough."""
        async with self._identify_lock:
            loop = asyncio.get_running_loop()
            wait = self._last_identify.get(bucket, -spacing) + spacing - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            self._last_identify[bucket] = loop.time()

    async def describe(self) -> str:
        where = self.path if self.path == ":memory:" else Path(self.path).resolve()
        return f"SQLite {where} (schema version {await self.schema_version()})"
