"""The members' open attempts as this process last stored or read them, so a click at
the ply an attempt stands at is judged without reading the attempt again (a game's
click is read so too: :mod:`bot.core.recent_games`).

Nothing is decided from it that a write does not check: a move is stored by a
compare-and-set on the ply of an open attempt, so whatever another process did since
(a move, an end, a Retry's drop, forget-me) makes the write a
:class:`~bot.core.repository.Conflict`, and the service reads the attempt then.
"""

from __future__ import annotations

from bot.core.puzzles.models import Attempt

LIMIT = 10_000
"""Members kept at most (the oldest kept is dropped first): an attempt left open stays
here until the member's next action, and a process may see many members."""


class OpenAttempts:
    def __init__(self) -> None:
        self._by_member: dict[int, Attempt] = {}

    def clicked(self, user_id: int, attempt_id: int, ply: int) -> Attempt | None:
        """The member's attempt as last known here, if that is the one clicked, open, at
        the ply clicked; None: read it."""
        known = self._by_member.get(user_id)
        if known is None or known.id != attempt_id or known.ply != ply or known.over:
            return None
        return known

    def keep(self, attempt: Attempt) -> Attempt:
        """Remember ``attempt`` as stored (an attempt over is forgotten); it is returned."""
        known = self._by_member.pop(attempt.user_id, None)
        if not attempt.over:
            if len(self._by_member) >= LIMIT:
                del self._by_member[next(iter(self._by_member))]
            self._by_member[attempt.user_id] = attempt
        elif known is not None and known.id != attempt.id:
            self._by_member[attempt.user_id] = known  # another attempt's end was shown
        return attempt

    def forget(self, user_id: int) -> None:
        self._by_member.pop(user_id, None)
