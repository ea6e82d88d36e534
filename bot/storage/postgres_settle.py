"""Making the fate of a write final once its connection was cut with it in flight.

A connection the bot gave up on (a timeout) may still have its backend running the write
on the server: waiting for a lock, or frozen with it in its socket. Re-read too soon, the
store could show the write undone and take it a moment later, and the board would stay
behind for good. So before the reconciler re-reads, each such backend is ended (a write
not yet committed is then rolled back) and waited for until it is gone: from then on
what is stored is final. A backend is named by its pid and its connection's unique
``application_name``, since by then its pid could be another connection's.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import secrets
import weakref
from typing import Any

SETTLE_TRIES = 40
SETTLE_PAUSE = 0.05
"""How often, and how far apart, the cut-off backends are looked for before giving up
for now (the reconciler tries again)."""
_numbers = itertools.count(1)


_PROCESS = secrets.token_hex(4)
"""This process among all that share the database (a pid is 1 in every container)."""


def connection_name() -> str:
    """A pooled connection's ``application_name``: ``ttt-bot`` and a name of its own."""
    return f"ttt-bot {os.getpid()}.{_PROCESS}.{next(_numbers)}"


class CutOff:
    """Backends of connections cut with a write in flight, until their fate is final."""

    def __init__(self) -> None:
        self._backends: dict[int, str] = {}
        self._names: weakref.WeakKeyDictionary[Any, tuple[int, str]] = weakref.WeakKeyDictionary()
        """Each open connection's backend, noted when it connected: a connection that
        timed out may no longer say."""

    def __bool__(self) -> bool:
        return bool(self._backends)

    def connected(self, conn: Any, name: str) -> None:
        self._names[conn] = (conn.get_server_pid(), name)

    def add(self, conn: Any) -> None:
        backend = self._names.get(conn)
        if backend is not None:
            pid, name = backend
            self._backends[pid] = name

    async def settle(self, conn: Any) -> None:
        """End each of those backends still there and wait until none is (on ``conn``, a
        connection of the same role: a role may end its own backends).

        Raises:
            TimeoutError: one was still there after every try.
        """
        if not self._backends:
            return
        checked = dict(self._backends)
        for _ in range(SETTLE_TRIES):
            alive = await conn.fetch(
                "SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE (pid, application_name) IN (SELECT * FROM unnest($1::int[], $2::text[]))",
                list(checked), list(checked.values()),
            )  # fmt: skip
            if not alive:
                for pid, name in checked.items():  # not one added since under that pid
                    if self._backends.get(pid) == name:
                        del self._backends[pid]
                return
            await asyncio.sleep(SETTLE_PAUSE)
        raise TimeoutError(f"backends {sorted(checked)} still running a cut-off write")
