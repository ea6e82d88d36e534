"""The web edge's request budgets (STYLE.md rule 17): each costly route of the page spends
a credit of its member's (the session's user: Discord's proxy hides the addresses), one
of its place's (the session's server; in a DM, its channel) and one of everyone's, and
is refused at once, never queued, when one is spent: a 429 with a reason in the
member's language and the seconds to wait.

Fair shares (:class:`~bot.core.budgets.Budget`): a server spends at most
``TTT_WEB_SERVER_SHARE`` percent of each overall budget a minute, and the overall's last
quarter is kept for servers that asked little lately, so accounts of one server (or a
few) cannot spend everyone's budget. A hint for the position in front of its member,
the first of its ply, spends nothing (:meth:`~bot.web.api.ActivityApi.hint`).

The engine's own bounds (one review or hint in flight per member, a fair queue per
server) are the core's; these only keep a page from asking faster than a person would.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.core.budgets import Budget, Spent, place_of
from bot.i18n import text
from bot.settings import WebLimits
from bot.web.errors import WebRefusal
from bot.web.page_text import plain
from bot.web.sessions import Session

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
            share = max(per_member, math.ceil(overall * limits.server_share / 100))
            return Budget(name, per_key=per_member, overall=overall, window=WINDOW,
                          per_place=share, clock=clock)  # fmt: skip

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


__all__ = ["WebBudgets", "charge", "place_of", "spend", "too_many"]


def charge(budget: Budget, session: Session) -> None:
    """Spend a credit of ``session``'s member, place and everyone's (:func:`spend`).

    Raises:
        WebRefusal: 429 when one is spent (nothing is spent then).
    """
    spend(budget, session.user_id, session.locale, place_of(session.guild_id,
                                                           session.channel_id))  # fmt: skip


def spend(budget: Budget, user_id: int, locale: str, place: tuple[str, int] | None = None) -> None:
    """Spend one of ``user_id``'s credits, one of ``place``'s (see :func:`place_of`;
    None: the member's and everyone's alone) and one of everyone's.

    Raises:
        WebRefusal: 429 when one is spent (nothing is spent then).
    """
    spent = budget.spend(user_id, place)
    if spent is not None:
        raise too_many(spent, locale)
