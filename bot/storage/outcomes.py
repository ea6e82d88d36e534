"""What became of a connection's writes: stored, never applied, or not known.

Known not applied: the statement was never sent, the server answered it with an error,
or it ran inside a transaction whose COMMIT was never sent (the server rolls back a
transaction whose connection is gone). Not known: a statement that commits by itself, or
a COMMIT, was sent and no answer came (a timeout, a connection cut). Only then does a
store call raise :class:`~bot.core.repository.OutcomeUnknown` and record what it touched
in :class:`~bot.core.doubts.Doubts`, for the reconciler to show as stored later.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Literal

from bot.core.doubts import Doubts, Touched, note_stored, note_unknown
from bot.core.repository import OutcomeUnknown

Sent = Literal["read", "in transaction", "on its own"]
"""A statement as :meth:`WriteTracker.sending` saw it: a read, a write in the open
transaction (stored with its COMMIT), or a write that commits by itself."""
Answered = Callable[[BaseException], bool]
"""Whether an exception raised by a statement is the server's answer to it (an error it
reported: the statement did not take effect), rather than a silence."""


def writes(sql: str) -> bool:
    """Whether a statement may change data: anything but a plain SELECT (a SELECT's locks
    and notifications change nothing stored)."""
    return sql.lstrip()[:6].upper() != "SELECT"


class WriteTracker:
    """Follows one connection's statements for a store call or a unit of work."""

    def __init__(self, answered: Answered, *, in_transaction: bool = False) -> None:
        self._answered = answered
        self._depth = 1 if in_transaction else 0
        self.in_flight = False
        """A write that commits by itself, or the COMMIT of writes, was sent and not
        answered: its outcome is not known."""
        self._pending = False
        """Writes were made in the open transaction and not committed yet."""
        self.stored = False
        """Some write changed a row and is committed."""

    @contextlib.contextmanager
    def statement(self, sql: str) -> Iterator[Callable[[bool], None]]:
        """Around sending ``sql``; the block calls the function it gets with whether the
        statement changed a row, once it has its answer."""
        changed = [False]

        def answer(did_change: bool) -> None:
            changed[0] = did_change

        kind = self.sending(sql)
        try:
            yield answer
        except BaseException as exc:
            self.failed(kind, exc)
            raise
        self.answered(kind, changed[0])

    def sending(self, sql: str) -> Sent:
        """What :meth:`statement` does before ``sql`` is sent, for a caller that runs it
        without a suspension (SQLite: a statement on every click, where two generator
        context managers cost more than the rest); then :meth:`answered` or :meth:`failed`
        with what this returns."""
        if not writes(sql):
            return "read"
        if self._depth:
            return "in transaction"
        self.in_flight = True
        return "on its own"

    def answered(self, sent: Sent, changed: bool) -> None:
        if sent == "in transaction":
            self._pending = self._pending or changed
        elif sent == "on its own":
            self.in_flight = False
            self.stored = self.stored or changed

    def failed(self, sent: Sent, exc: BaseException) -> None:
        if sent == "on its own" and self._answered(exc):
            self.in_flight = False

    def begin(self) -> None:
        self._depth += 1

    def rollback(self) -> None:
        self._depth -= 1
        if not self._depth:
            self._pending = False

    @contextlib.contextmanager
    def commit(self) -> Iterator[None]:
        """Around sending the COMMIT of the transaction begun last."""
        self._depth -= 1
        if self._depth or not self._pending:
            yield
            return
        self._pending = False
        with self._sending():
            yield
        self.stored = True

    @contextlib.contextmanager
    def _sending(self) -> Iterator[None]:
        self.in_flight = True
        try:
            yield
        except BaseException as exc:
            if self._answered(exc):
                self.in_flight = False
            raise
        self.in_flight = False


def settle(
    tracker: WriteTracker, touches: Sequence[Touched], doubts: Doubts, name: str,
    failure: BaseException | None = None,
) -> None:  # fmt: skip
    """Tell the interaction's journal what the call's writes came to; after ``failure``,
    turn a write whose outcome is unknown into :class:`OutcomeUnknown`.

    Raises:
        OutcomeUnknown: ``failure`` (an error, not a cancellation: that one goes on as
            it is, its doubt recorded) came while a write was in flight.
    """
    if failure is not None and tracker.in_flight:
        doubts.add(touches)
        note_unknown(touches)
        if not isinstance(failure, Exception):  # CancelledError: the caller's own stop
            return
        reason = " ".join(str(failure).split()) or type(failure).__name__
        raise OutcomeUnknown(f"{name}: a write's outcome is unknown ({reason})") from failure
    if tracker.stored:
        note_stored(touches)
