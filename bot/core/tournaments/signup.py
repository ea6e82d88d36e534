"""A tournament's sign-up: what the organiser may choose, who may join or leave, and the
start that closes it, seeds the players by rating and opens round 1.

The changes here run inside the transaction :class:`~bot.core.tournaments.service.
TournamentService` holds under the tournament's lock (each is a
:data:`~bot.core.tournaments.progress.Change`); settling that follows the start pairs
round 1.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, replace

from bot.core.models import Variant
from bot.core.policy import SIZES
from bot.core.rating import INITIAL_RATING
from bot.core.refusals import Refusal
from bot.core.repository import Transaction
from bot.core.tournaments import pairing
from bot.core.tournaments.models import Entrant, Format, Tournament
from bot.core.tournaments.progress import Step
from bot.core.variants import variant_of

log = logging.getLogger(__name__)

MIN_PLAYERS = 2
MAX_PLAYERS = 64


@dataclass(frozen=True, slots=True)
class Setup:
    """What the organiser chose in /ttt tournament create."""

    name: str
    format: Format
    size: int = 3
    """The board's size, for a variant that has sizes (ignored for ultimate's fixed grid)."""
    variant: Variant = "classic"
    best_of: int = 1
    max_players: int = 16
    rounds: int = 0
    """Swiss only: the rounds to play (0: enough to tell the players apart)."""
    signup_seconds: float | None = None
    """Sign-up closes and play starts this long after creation; None: by hand."""
    show_up: float = 600.0


def check_setup(setup: Setup) -> None:
    """Raises: Refusal: a board size, match length or player limit out of range."""
    size_ok = not variant_of(setup.variant).sized or setup.size in SIZES
    if not size_ok or setup.best_of not in (1, 3):
        raise Refusal("tournament.bad_setup")
    if not MIN_PLAYERS <= setup.max_players <= MAX_PLAYERS:
        raise Refusal("tournament.bad_setup")


def new_tournament(
    setup: Setup, *, guild_id: int, channel_id: int, organiser_id: int, locale: str | None,
    now: float,
) -> Tournament:  # fmt: skip
    """The tournament ``setup`` describes, in sign-up from ``now``; not stored yet."""
    rounds = setup.rounds if setup.format == "swiss" else 0
    closes = None if setup.signup_seconds is None else now + setup.signup_seconds
    return Tournament(
        id=0, guild_id=guild_id, channel_id=channel_id, message_id=None,
        organiser_id=organiser_id, name=setup.name.strip()[:80] or "Tournament",
        format=setup.format, rounds=rounds, best_of=setup.best_of,
        size=variant_of(setup.variant).shape(setup.size)[0],
        max_players=setup.max_players, signup_closes_at=closes, show_up=setup.show_up,
        status="signup", round=0, created_at=now, locale=locale, variant=setup.variant,
    )  # fmt: skip


async def join(
    tx: Transaction, t: Tournament, step: Step, *, user_id: int, name: str,
    clock: Callable[[], float],
) -> None:  # fmt: skip
    """Raises: Refusal: sign-up closed, already in, or full."""
    if t.status != "signup":
        raise Refusal("tournament.signup_closed")
    entrants = await tx.entrants(t.id)
    if any(e.user_id == user_id for e in entrants):
        raise Refusal("tournament.already_in")
    if len(entrants) >= t.max_players:
        raise Refusal("tournament.full", count=t.max_players)
    await tx.add_entrant(t.id, Entrant(user_id, name or str(user_id), clock()))


async def leave(tx: Transaction, t: Tournament, step: Step, *, user_id: int) -> None:
    """Raises: Refusal: sign-up closed, or not signed up."""
    if t.status != "signup":
        raise Refusal("tournament.signup_closed")
    if not await tx.drop_entrant(t.id, user_id):
        raise Refusal("tournament.not_in")


async def start(tx: Transaction, t: Tournament, step: Step, *, rng: random.Random) -> None:
    """Raises: Refusal: no longer in sign-up, or too few players."""
    if t.status != "signup":
        raise Refusal("tournament.already_started")
    if not await begin(tx, t, rng):
        raise Refusal("tournament.too_few", count=MIN_PLAYERS)


async def begin(tx: Transaction, t: Tournament, rng: random.Random) -> bool:
    """Seed the players by the server's ratings and start round 1; False (nothing
    changed) with fewer than two."""
    entrants = await tx.entrants(t.id)
    if len(entrants) < MIN_PLAYERS:
        return False
    ratings = await tx.ratings_of(t.guild_id, [e.user_id for e in entrants], t.variant)
    order = pairing.seed({e.user_id: ratings.get(e.user_id, INITIAL_RATING) for e in entrants}, rng)
    by_user = {e.user_id: e for e in entrants}
    for number, user_id in enumerate(order, start=1):
        await tx.save_entrant(t.id, replace(by_user[user_id], seed=number))
    rounds = t.rounds
    if t.format == "swiss" and rounds <= 0:
        rounds = max(1, (len(order) - 1).bit_length())
    await tx.save_tournament(t.with_changes(status="running", round=0, rounds=rounds))
    log.info("tournament %d started with %d players", t.id, len(order))
    return True
