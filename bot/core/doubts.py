"""Writes whose outcome is not known, and what they touched.

A statement sent to a database that then stops answering (frozen, cut off mid-COMMIT) may
have been applied or not: a client-side timeout cannot tell. Storage says so by raising
:class:`~bot.core.repository.OutcomeUnknown`, and records in :class:`Doubts` each game,
challenge or tournament the write touched; the reconciler re-reads those once the
database answers again and shows them as stored. So a board never stays behind its store.

Each interaction keeps a :class:`Journal` of its writes (a context variable, so the
repository records into it without being handed it): its answer says "nothing was
changed" only when no write of it was stored or may have been.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Literal

Kind = Literal["game", "challenge", "tournament", "new_game", "new_challenge"]


@dataclass(frozen=True, slots=True)
class Touched:
    """One thing a write changes, as shown somewhere: a game, challenge or tournament by
    its id; or one being created (``new_game``, ``new_challenge``), which has no id yet,
    by its channel and the creation time it was written with."""

    kind: Kind
    id: int
    created_at: float = 0.0


@dataclass(slots=True)
class Journal:
    """What one interaction's writes came to."""

    stored: set[Touched] = field(default_factory=set)
    """Touched by writes known to be stored."""
    unknown: set[Touched] = field(default_factory=set)
    """Touched by writes whose outcome is not known."""
    wrote: bool = False
    """Some write was stored or may have been (one that touched nothing shown, too)."""

    @property
    def changed_maybe(self) -> bool:
        return self.wrote  # set by every note, whatever the write touched


_journal: ContextVar[Journal | None] = ContextVar("ttt_journal", default=None)


@contextlib.contextmanager
def journal() -> Iterator[Journal]:
    """Record the writes made in this block (and the tasks it starts) in a new journal."""
    current = Journal()
    token = _journal.set(current)
    try:
        yield current
    finally:
        _journal.reset(token)


def note_stored(touched: Iterable[Touched]) -> None:
    """Storage: a write that touched ``touched`` is stored."""
    current = _journal.get()
    if current is not None:
        current.wrote = True
        current.stored.update(touched)


def note_unknown(touched: Iterable[Touched]) -> None:
    """Storage: a write that touched ``touched`` may or may not be stored."""
    current = _journal.get()
    if current is not None:
        current.wrote = True
        current.unknown.update(touched)


class Doubts:
    """What to re-read and show again once the database answers: one per process, shared
    by its repository (which adds) and its reconciler (which takes)."""

    def __init__(self) -> None:
        self._pending: set[Touched] = set()
        self._waiting = asyncio.Event()

    def add(self, touched: Iterable[Touched]) -> None:
        """Pending from now; the reconciler is woken even for none (a write that touched
        nothing shown still has its fate made final)."""
        self._pending.update(touched)
        self._waiting.set()

    def take(self) -> set[Touched]:
        """Everything pending, forgotten here (give back with :meth:`add` what could not
        be shown yet)."""
        taken, self._pending = self._pending, set()
        self._waiting.clear()
        return taken

    async def wait(self) -> None:
        """Until something is pending."""
        await self._waiting.wait()
