"""The web edge's request budgets (STYLE.md rule 17): each costly route of the page spends
a credit of its member's (the session's user: Discord's proxy hides the addresses) and
one of everyone's, and is refused at once, never queued, when either is spent: a 429
with a reason in the member's language and the seconds to wait.

The engine's own bounds (one review or hint in flight per member, a bounded queue) are
the core's; these only keep a page from asking faster than a person would.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.core.budgets import Budget, Spent
from bot.i18n import text
from bot.settings import WebLimits
from bot.web.errors import WebRefusal
from bot.web.page_text import plain

WINDOW = 60.0
"""The settings count requests a minute."""


@dataclass(frozen=True, slots=True)
class WebBudgets:
    hints: Budget
    reviews: Budget
    starts: Budget
    """New games and rematches."""
    connects: Budget
    """Live sockets opened."""
    puzzles: Budget
    """Puzzle starts, moves and retries."""

    @classmethod
    def of(cls, limits: WebLimits, clock: Callable[[], float] = time.monotonic) -> WebBudgets:
        def budget(name: str, per_member: int, overall: int) -> Budget:
            return Budget(name, per_key=per_member, overall=overall, window=WINDOW, clock=clock)

        return cls(
            budget("hints", limits.hints_per_member, limits.hints_overall),
            budget("reviews", limits.reviews_per_member, limits.reviews_overall),
            budget("starts", limits.starts_per_member, limits.starts_overall),
            budget("connects", limits.connects_per_member, limits.connects_overall),
            budget("puzzles", limits.puzzles_per_member, limits.puzzles_overall),
        )

    def refused(self) -> dict[str, int]:
        """Requests each budget refused so far (for /metrics)."""
        every = (self.hints, self.reviews, self.starts, self.connects, self.puzzles)
        return {b.name: b.refused for b in every}


def too_many(spent: Spent, locale: str) -> WebRefusal:
    """The 429 for a spent budget: whose credits ran out says which sentence, and the
    wait is whole seconds (as HTTP's Retry-After), at least one."""
    seconds = max(1, math.ceil(spent.retry_after))
    reason = plain(text(f"web.limit.{spent.whose}", locale, seconds=seconds))
    return WebRefusal(429, "too_many", reason, retry_after=seconds)


def spend(budget: Budget, user_id: int, locale: str) -> None:
    """Spend one of ``user_id``'s credits and one of everyone's.

    Raises:
        WebRefusal: 429 when either is spent (nothing is spent then).
    """
    spent = budget.spend(user_id)
    if spent is not None:
        raise too_many(spent, locale)
