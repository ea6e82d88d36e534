"""Engine work on request, bounded (STYLE.md rule 17): hints and reviews that take the
engine's time (past 3×3) go to a worker pool of their own, one each; this gate admits
them. A member has at most one in flight, hint or review; each pool has at most
``bound`` computations admitted (the one running and those queued behind it). Past
either limit the request is refused at once, never queued, so one member's page asking
the same review over and over holds nobody else's answer for minutes.

Pure: no I/O, nothing awaited; one gate per process, built by the composition root and
shared by the hints (:class:`~bot.core.service.GameService`) and the reviews
(:class:`~bot.core.reviews.Reviews`), so the limit per member spans both.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Literal

from bot.core.refusals import Refusal

Work = Literal["hint", "review"]
WORKS: tuple[Work, ...] = ("hint", "review")

HINT_BOUND = 8
"""Hints admitted at once by default: a hint searches up to about a second (5×5, and
ultimate's 0.6 s), so the last of them is answered within seconds."""
REVIEW_BOUND = 4
"""Reviews admitted at once by default: an ultimate game's takes about 12 s (0.2 s a
position), so the last of them is answered within a minute."""

BUSY_MEMBER = "engine.busy_member"
"""The refusal of a member's second request while their first is worked out."""
BUSY = "engine.busy"
"""The refusal of a request past its pool's bound: busy, try again."""


class EngineGate:
    """The admissions of engine work: per member, one at a time; per kind of work
    (``bounds``: hints, reviews), at most its bound at once.

    Raises:
        ValueError: a bound below 1, or a kind of work without one.
    """

    def __init__(self, bounds: Mapping[Work, int] | None = None) -> None:
        given: dict[Work, int] = {"hint": HINT_BOUND, "review": REVIEW_BOUND}
        if bounds is not None:
            given = dict(bounds)
        if set(given) != set(WORKS) or min(given.values()) < 1:
            raise ValueError(f"the engine gate needs a bound of at least 1 for {WORKS}")
        self.bounds = given
        self.admitted: dict[Work, int] = dict.fromkeys(WORKS, 0)
        """Computations admitted and not done, by kind (for tests and /metrics)."""
        self.refused: dict[str, int] = {BUSY_MEMBER: 0, BUSY: 0}
        """Requests refused so far, by the refusal's key."""
        self._members: set[int] = set()

    def busy(self, member: int) -> bool:
        """Whether ``member`` has a request in flight."""
        return member in self._members

    @contextmanager
    def member(self, member: int) -> Iterator[None]:
        """Hold ``member``'s one request in flight for the block (a review that joins a
        computation already under way takes no room in the pool, only this).

        Raises:
            Refusal: :data:`BUSY_MEMBER`, they have one in flight already.
        """
        if member in self._members:
            self.refused[BUSY_MEMBER] += 1
            raise Refusal(BUSY_MEMBER)
        self._members.add(member)
        try:
            yield
        finally:
            self._members.discard(member)

    def take(self, work: Work) -> None:
        """Take a place in ``work``'s pool for a computation; :meth:`give_back` it when
        the computation ends, however many members waited for it.

        Raises:
            Refusal: :data:`BUSY`, the pool has its bound admitted.
        """
        if self.admitted[work] >= self.bounds[work]:
            self.refused[BUSY] += 1
            raise Refusal(BUSY)
        self.admitted[work] += 1

    def give_back(self, work: Work) -> None:
        self.admitted[work] -= 1

    @contextmanager
    def admit(self, work: Work, member: int) -> Iterator[None]:
        """Hold ``member``'s one request and a place in ``work``'s pool for the block: a
        computation of their own (a hint).

        Raises:
            Refusal: :data:`BUSY_MEMBER` or :data:`BUSY` (nothing is held then).
        """
        with self.member(member):
            self.take(work)
            try:
                yield
            finally:
                self.give_back(work)
