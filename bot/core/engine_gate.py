"""Engine work on request, bounded and shared fairly (STYLE.md rule 17): hints and
reviews that take the engine's time (past 3×3) go to a worker pool of their own, one
each; this gate admits them. A member has at most one in flight, hint or review (a
second is refused at once); each pool has at most ``bound`` computations admitted (the
one running and those queued in the worker).

Past the bound a computation waits its turn in a line, and the line is fair by place (a
server; a DM counts as its channel; see :func:`~bot.core.budgets.place_of`):

- a place that comes free goes to the waiting place that holds the fewest places in the
  pool now (ties: the one waiting longest), so a member of another server is answered
  next while accounts of one server hold the whole pool;
- the line holds ``bound`` more; when it is full, a newcomer whose place has fewer
  computations (admitted and waiting) than the busiest place's, less one, takes the
  place of that busiest place's newest waiter, which is refused; otherwise the newcomer
  is refused at once (``engine.busy``). So a server is refused only once it already has
  as much as any other;
- a *patient* request, a hint for the position in front of its member (once per ply),
  is never refused by the pool: it waits its turn whatever the line holds, and is never
  displaced. Its member's one request at a time bounds how many wait so.

Pure: nothing awaited but a turn, no I/O; one gate per process, built by the composition
root and shared by the hints (:class:`~bot.core.service.GameService`) and the reviews
(:class:`~bot.core.reviews.Reviews`), so the limit per member spans both.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Hashable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
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
"""The refusal of a request past its pool's bound and its line's: busy, try again."""


class Turn:
    """A computation's place in a pool: admitted at once, or waiting in the line until
    :meth:`wait` returns. :meth:`close` it when the computation ends (or never began)."""

    def __init__(self, gate: EngineGate, work: Work, place: Hashable, patient: bool) -> None:
        self.gate = gate
        self.work = work
        self.place = place
        self.patient = patient
        self.state: Literal["waiting", "admitted", "refused", "closed"] = "waiting"
        self._called: asyncio.Future[None] | None = None

    async def wait(self) -> None:
        """Until this computation is admitted.

        Raises:
            Refusal: :data:`BUSY`, a newcomer of a less busy place took its place in line.
        """
        if self.state == "waiting":
            self._called = asyncio.get_running_loop().create_future()
            try:
                await self._called
            except asyncio.CancelledError:
                self.close()
                raise
        if self.state == "refused":
            raise Refusal(BUSY)

    def close(self) -> None:
        """Give the place back (the next in line takes it), or leave the line."""
        if self.state == "admitted":
            self.gate._release(self)
        elif self.state == "waiting":
            self.gate._lines[self.work].remove(self)
        self.state = "closed"

    def _settle(self, state: Literal["admitted", "refused"]) -> None:
        self.state = state
        if self._called is not None and not self._called.done():
            self._called.set_result(None)


class EngineGate:
    """The admissions of engine work: per member, one at a time; per kind of work
    (``bounds``: hints, reviews), at most its bound at once and a fair line behind it.

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
        """Requests refused so far, by the refusal's key (displaced ones too)."""
        self._members: set[int] = set()
        self._held: dict[Work, Counter[Hashable]] = {work: Counter() for work in WORKS}
        self._lines: dict[Work, list[Turn]] = {work: [] for work in WORKS}
        """Each pool's waiting turns, oldest first."""

    def busy(self, member: int) -> bool:
        """Whether ``member`` has a request in flight."""
        return member in self._members

    def waiting(self, work: Work) -> int:
        """Computations waiting for a place in ``work``'s pool."""
        return len(self._lines[work])

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

    def enter(self, work: Work, place: Hashable = None, *, patient: bool = False) -> Turn:
        """A turn in ``work``'s pool for a computation of ``place``'s: admitted at once if
        there is room, else waiting in the line (the module's rule). Decided at once.

        Raises:
            Refusal: :data:`BUSY`, the line is full and ``place`` has its share (never
                for a ``patient`` request).
        """
        turn = Turn(self, work, place, patient)
        line = self._lines[work]
        if self.admitted[work] < self.bounds[work]:
            self._admit(turn)
        elif patient or len(line) < self.bounds[work]:
            line.append(turn)
        else:
            busiest = self._busiest(work)
            if busiest is None or self._load(work, place) + 1 >= self._load(work, busiest.place):
                self.refused[BUSY] += 1
                raise Refusal(BUSY)
            line.remove(busiest)
            self.refused[BUSY] += 1
            busiest._settle("refused")
            line.append(turn)
        return turn

    def take(self, work: Work, place: Hashable = None) -> None:
        """Take a place in ``work``'s pool at once, or be refused: no waiting (tests,
        and callers that cannot wait); :meth:`give_back` it.

        Raises:
            Refusal: :data:`BUSY`, the pool has its bound admitted.
        """
        if self.admitted[work] >= self.bounds[work]:
            self.refused[BUSY] += 1
            raise Refusal(BUSY)
        self._admit(Turn(self, work, place, False))

    def give_back(self, work: Work, place: Hashable = None) -> None:
        """Give back what :meth:`take` took."""
        self._release(Turn(self, work, place, False))

    @asynccontextmanager
    async def admit(
        self, work: Work, member: int, place: Hashable = None, *, patient: bool = False
    ) -> AsyncIterator[None]:
        """Hold ``member``'s one request and a place in ``work``'s pool for the block (its
        turn waited for): a computation of their own (a hint).

        Raises:
            Refusal: :data:`BUSY_MEMBER` or :data:`BUSY` (nothing is held then).
        """
        with self.member(member):
            turn = self.enter(work, place, patient=patient)
            try:
                await turn.wait()
                yield
            finally:
                turn.close()

    # --- internals -----------------------------------------------------------------------

    def _admit(self, turn: Turn) -> None:
        self.admitted[turn.work] += 1
        self._held[turn.work][turn.place] += 1
        turn._settle("admitted")

    def _release(self, turn: Turn) -> None:
        work, held = turn.work, self._held[turn.work]
        self.admitted[work] -= 1
        held[turn.place] -= 1
        if held[turn.place] <= 0:
            del held[turn.place]
        line = self._lines[work]
        while line and self.admitted[work] < self.bounds[work]:
            # the place holding the fewest now; the oldest of equals (min keeps the first)
            following = min(line, key=lambda waiting: held[waiting.place])
            line.remove(following)
            self._admit(following)

    def _load(self, work: Work, place: Hashable) -> int:
        return self._held[work][place] + sum(t.place == place for t in self._lines[work])

    def _busiest(self, work: Work) -> Turn | None:
        """The newest impatient waiter of the place with the most computations."""
        movable = [turn for turn in self._lines[work] if not turn.patient]
        if not movable:
            return None
        most = max(self._load(work, turn.place) for turn in movable)
        return [turn for turn in movable if self._load(work, turn.place) == most][-1]
