"""What the core needs from storage: the repository interface. ``bot.storage`` implements
it (SQLite today); the core never sees SQL or a driver.

Every method of :class:`Store` is atomic on its own. A rule that reads and then writes
(a channel's game limit checked, then a game inserted) runs inside :meth:`Repository.atomic`,
one transaction whose reads see what its writes will change.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Protocol

from bot.core.doubts import Doubts
from bot.core.models import Challenge, Game, Variant
from bot.core.puzzles.store import PuzzleStore
from bot.core.reminders.store import ReminderStore
from bot.core.tournaments.models import Entrant, Match, Tournament

DEADLINES_TOPIC = "deadlines"
"""Notified when a game or challenge starts with a deadline sooner than the last told
(see :class:`bot.core.alarm.DeadlineAlarm`), so every timekeeper plans for it."""
GAMES_TOPIC = "games"
"""Notified with ``channel_id:game_id`` by the store itself whenever a game row is
written, by any process (the Activity's live pages follow it)."""
SESSIONS_TOPIC = "sessions"
"""Notified with a member's id when their Activity sessions were revoked (forget-me, a
ban), so every process closes that member's live pages."""
POLICY_TOPIC = "policy"
"""Notified with a server's id when its /ttt config changes."""
MISSED = "*"
"""The payload every listener gets when notifications may have been lost meanwhile:
anything may have changed."""


class Conflict(Exception):
    """A write lost a race (the row changed since it was read); nothing was written."""


class DatabaseError(Exception):
    """The database cannot be opened or used; the message names it."""


class OutcomeUnknown(DatabaseError):
    """A write was sent and its answer never came (the server stopped answering, or the
    connection was cut mid-statement or mid-COMMIT): it may have been applied or not.
    What it touched is in the repository's :attr:`Repository.doubts`, to be re-read when
    the database answers again."""


@dataclass(frozen=True, slots=True)
class Rating:
    user_id: int
    rating: float
    wins: int
    losses: int
    draws: int


@dataclass(frozen=True, slots=True)
class BotRecord:
    user_id: int
    difficulty: str
    wins: int
    losses: int
    draws: int


class Store(PuzzleStore, ReminderStore, Protocol):
    """Reads and writes of games, challenges, records and settings (and puzzles:
    :class:`~bot.core.puzzles.store.PuzzleStore`)."""

    # --- games ---
    async def create_game(self, game: Game) -> Game:
        """Insert ``game`` (its id is ignored) and return it with its new id."""

    async def create_game_if_room(
        self, game: Game, room: int, locks: Sequence[tuple[str, int]] = ()
    ) -> Game | None:
        """Insert a running ``game`` unless its channel already holds ``room`` running
        games or a pending challenge (None then): the start rules' count of the channel
        and the insert in one statement. That statement takes ``locks`` (sorted, as
        :meth:`Transaction.serialize` takes them) before it counts, so it needs no
        transaction around it; inside :meth:`Repository.atomic`, after the channel's
        lock, it needs none."""

    async def get_game(self, game_id: int) -> Game | None: ...

    async def save_game(self, game: Game, expected_ply: int, clicked: int | None = None) -> Game:
        """Store a changed running game (one statement: atomic, and one round trip); a
        finished one updates the records with it, in one transaction. Returns the game as
        stored: with the hint flag, message id and turn ping other writers may have set
        since it was read (a save writes none of them). ``game`` may be several moves on
        from ``expected_ply``: a member's move and the bot's reply are one save.

        Raises:
            Conflict: the stored game is no longer running at ``expected_ply``, or the
                message ``clicked`` is no longer its board (it was posted again since).
        """

    async def save_courtesy(self, game: Game, before: Game) -> None:
        """Store ``game``'s deadline and courtesy (more time given, a draw offer) if the
        stored game still is ``before`` in those and its ply.

        Raises:
            Conflict: it changed since ``before`` was read.
        """

    async def set_game_message(self, game_id: int, message_id: int) -> None:
        """``message_id`` is the board just posted for the game. Games read through this
        store show it at once; it is written with the first click on it, or within a
        second, or when the store closes, and never over a board stored meanwhile."""

    async def move_game_message(self, game_id: int, old: int | None, new: int) -> bool:
        """Make ``new`` the running game's message if it still is ``old`` (a board posted
        again); False if the game ended or another process moved it first."""

    async def set_ping_message(self, game_id: int, ply: int, message_id: int) -> bool:
        """Remember the turn ping for the move number ``ply``; False (nothing stored) if the
        game has moved on or ended since: the ping is stale, delete it."""

    async def take_ping_message(self, game_id: int, message_id: int) -> bool:
        """Forget the game's turn ping if it still is ``message_id``: of two processes
        taking it at once, only one gets True, to delete the message."""

    async def mark_hinted(self, game_id: int, expected_ply: int) -> None:
        """Mark a running game as played with a hint (it will not count towards the best
        records), if it still stands at ``expected_ply``.

        Raises:
            Conflict: the game moved on or ended since the hint was worked out.
        """

    async def running_games(self) -> list[Game]: ...

    async def running_games_in(self, channel_id: int) -> list[Game]: ...

    async def channel_load(self, channel_id: int) -> tuple[int, int]:
        """How many games run in the channel and how many challenges wait there: what a
        start asks of it in one read (the games and the challenge only when it says no)."""

    async def running_game_of(self, guild_id: int | None, user_id: int) -> Game | None:
        """A member's running game in a server, if any (the bot's own id is no member)."""

    async def correspondence_games_of(self, user_id: int, guild_id: int | None = None) -> int:
        """How many running correspondence games the member plays, everywhere together
        (``guild_id`` given: in that server only)."""

    async def block_member(self, blocker_id: int, blocked_id: int, now: float) -> bool:
        """``blocker_id`` declines every challenge from ``blocked_id`` from now on; False
        if that was stored already."""

    async def unblock_member(self, blocker_id: int, blocked_id: int) -> bool:
        """Undo :meth:`block_member`; False if there was no such block."""

    async def blockers_between(self, first: int, second: int) -> set[int]:
        """Which of the two members blocked the other: none, one, or both."""

    async def games_list_of(self, user_id: int, now: float) -> tuple[list[Game], list[Challenge]]:
        """The member's running games (live and correspondence, against the bot too) and
        the pending challenges they made or that name them (not past their time at
        ``now``), in every place they play (:mod:`bot.core.my_games` orders them)."""

    async def last_start(self, guild_id: int | None, user_id: int) -> float | None:
        """When the member last started a challenge or a game against the bot."""

    async def games_due(self, now: float) -> list[Game]:
        """Running games whose turn deadline has passed."""

    async def next_deadline(self) -> float | None:
        """The soonest turn deadline or challenge expiry still pending."""

    # --- challenges ---
    async def create_challenge(self, challenge: Challenge) -> Challenge:
        """Raises: Conflict: the channel already has a pending challenge."""

    async def get_challenge(self, challenge_id: int) -> Challenge | None: ...

    async def pending_challenge_in(self, channel_id: int) -> Challenge | None:
        """The live challenge pending in the channel, which holds it (a correspondence
        challenge holds none)."""

    async def pending_challenges_in(self, channel_id: int) -> list[Challenge]:
        """Every challenge pending in the channel, correspondence ones too, oldest first."""

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None: ...

    async def close_challenge(self, challenge: Challenge, status: str) -> None:
        """Raises: Conflict: it was no longer pending."""

    async def accept_challenge(self, challenge: Challenge, game: Game) -> Game:
        """Mark the challenge accepted and create its game, together.

        Raises:
            Conflict: the challenge was no longer pending.
        """

    async def challenges_due(self, now: float) -> list[Challenge]: ...

    # --- records ---
    async def finished_games_of(
        self, guild_id: int | None, user_id: int, limit: int | None = None
    ) -> list[Game]:
        """A member's finished games in a server (None: in direct messages with the bot),
        newest first."""

    async def leaderboard(
        self, guild_id: int, limit: int, variant: Variant = "classic"
    ) -> list[Rating]:
        """The top of a records scope (a server's id, or ``DM_SCOPE``) at one game (each
        variant has its own ratings), by rating."""

    async def rank_of(
        self, guild_id: int, user_id: int, variant: Variant = "classic"
    ) -> tuple[int, Rating] | None:
        """A member's place on the server's leaderboard (1 = top), or None if unrated."""

    async def rating_series(
        self, scope: int, user_id: int, limit: int, variant: Variant = "classic"
    ) -> list[float]:
        """A member's rating in a records scope before their first recorded rated game
        and after each (the last ``limit``), oldest first; empty if none is recorded."""

    async def best_against_bot(
        self, guild_id: int, difficulty: str, limit: int, variant: Variant = "classic"
    ) -> list[BotRecord]: ...

    async def forget_player(self, user_id: int) -> int:
        """Delete a member's finished games (their reviews too), ratings and records,
        and their puzzle attempts and puzzle record (a puzzle's own rating stays);
        return the game count."""

    async def revoke_sessions(self, user_id: int, at: float) -> None:
        """Refuse from now on the member's Activity sessions issued before ``at`` (their
        not-before stamp, which only moves forward), and tell every process
        (:data:`SESSIONS_TOPIC`)."""

    async def sessions_not_before(self, user_id: int) -> float | None:
        """The member's not-before stamp (None: none was ever set)."""

    async def review_of(self, game_id: int) -> str | None:
        """The review kept for a finished game (the text :meth:`keep_review` was given),
        or None."""

    async def keep_review(self, game_id: int, body: str, now: float) -> bool:
        """Keep ``body``, a finished game's review as the core wrote it, for every process
        to read (over one kept before); False, and nothing kept, when there is no such
        finished game (forgotten while its review was worked out)."""

    # --- interaction tokens (games shown only through them; see Game.guest) ---
    async def keep_token(
        self, kind: str, item_id: int, token: str, expires_at: float, now: float
    ) -> None:
        """Keep the token of the latest interaction that showed a game or challenge, or
        came from a channel (``kind``: game, challenge, channel), unless one that expires
        later is kept; expired ones are deleted."""

    async def token_of(self, kind: str, item_id: int, now: float) -> str | None:
        """The kept token of a game or challenge, if still valid at ``now``."""

    async def kept_token(self, kind: str, item_id: int, now: float) -> tuple[str, float] | None:
        """The kept token of a game, a challenge or a channel (``kind``), with its expiry,
        if still valid at ``now``."""

    async def forget_token(self, kind: str, item_id: int) -> None: ...

    # --- interactions over HTTP (each answered once: see bot.web.replays) ---
    async def claim_interaction(self, interaction_id: int, forget_below: int | None = None) -> bool:
        """Whether this is the first claim of the interaction by any process sharing the
        database (the claim is kept); False: it was claimed before, it is a replay. With
        ``forget_below``, the claims of lower ids (older interactions: a snowflake grows
        with its time) are deleted first."""

    # --- tournaments ---
    async def create_tournament(self, tournament: Tournament) -> Tournament:
        """Raises: Conflict: the channel already has one in sign-up or running."""

    async def get_tournament(self, tournament_id: int) -> Tournament | None: ...

    async def active_tournament_in(self, channel_id: int) -> Tournament | None:
        """The tournament in sign-up or running in a channel, or in whose match thread."""

    async def save_tournament(self, tournament: Tournament) -> None:
        """Its status, round, number of rounds and champion."""

    async def set_tournament_message(self, tournament_id: int, message_id: int) -> None: ...

    async def running_tournaments(self) -> list[int]: ...

    async def tournaments_due(self, now: float) -> list[int]:
        """Tournaments whose sign-up time ran out, or with a match nobody started in time."""

    async def tournaments_unshown(self, now: float, grace: float) -> list[int]:
        """Running tournaments with a match whose thread nobody opened or is opening, or a
        game not posted ``grace`` seconds after it started."""

    async def entrants(self, tournament_id: int) -> list[Entrant]: ...

    async def add_entrant(self, tournament_id: int, entrant: Entrant) -> None: ...

    async def drop_entrant(self, tournament_id: int, user_id: int) -> bool: ...

    async def save_entrant(self, tournament_id: int, entrant: Entrant) -> None:
        """Its seed and whether it was removed."""

    async def ratings_of(
        self, scope: int, user_ids: list[int], variant: Variant = "classic"
    ) -> dict[int, float]:
        """The members' ratings at ``variant`` in a records scope (the unrated left out)."""

    async def matches(self, tournament_id: int) -> list[Match]: ...

    async def get_match(self, match_id: int) -> Match | None: ...

    async def insert_match(self, match: Match) -> Match: ...

    async def save_match(self, match: Match) -> None:
        """Its state (not where it is shown: :meth:`place_match`)."""

    async def claim_match_opening(self, match_id: int, now: float, until: float) -> bool:
        """Whether this process may open the match's thread: nobody has, or is."""

    async def place_match(self, match_id: int, thread_id: int, message_id: int) -> bool:
        """Where the match is shown; False if another process placed it first."""

    async def tournament_games(self, tournament_id: int) -> list[Game]:
        """Every game of its matches, oldest first."""

    # --- server settings and bot state ---
    async def guild_overrides(self, guild_id: int) -> dict[str, object]: ...

    async def set_guild_overrides(self, guild_id: int, overrides: dict[str, object]) -> None: ...

    async def get_meta(self, key: str) -> str | None: ...

    async def set_meta(self, key: str, value: str) -> None: ...


class Transaction(Store, Protocol):
    async def serialize(self, *keys: tuple[str, int]) -> None:
        """Hold these named locks (``("channel", id)``, ``("member", id)``) until the
        transaction ends, so two processes checking the same rule take turns. Keys are
        taken in sorted order by the caller."""


class Repository(Store, Protocol):
    doubts: Doubts
    """What writes whose outcome is unknown touched (see :mod:`bot.core.doubts`)."""

    def atomic(self) -> AbstractAsyncContextManager[Transaction]:
        """One transaction: committed when the block ends, rolled back if it raises."""

    async def open(self) -> None:
        """Raises: DatabaseError: it cannot be opened or migrated."""

    async def close(self) -> None: ...

    async def schema_version(self) -> int: ...

    async def settle_writes(self) -> None:
        """Make final every write whose outcome was unknown: from its return, what the
        store holds is what those writes came to (none is still being applied).

        Raises:
            Exception: the database does not answer yet.
        """

    def unreachable(self, exc: BaseException) -> bool:
        """Whether ``exc``, raised by a call of this store, means the database could not
        be reached or did not answer (an outage: the same call may work later), rather
        than a fault of the call itself (a programming error, SQL the server refuses, a
        row that cannot be read), which trying again will not mend."""

    async def describe(self) -> str:
        """Where the data lives and its schema version, for the start-up log (never a
        password)."""

    async def listen(self, topic: str, callback: Callable[[str], None]) -> None:
        """Call ``callback(payload)`` whenever any process sharing the database (this one
        included) calls :meth:`notify` on ``topic``; and with :data:`MISSED` when
        notifications may have been lost (the connection they come by was down)."""

    async def notify(self, topic: str, payload: str = "") -> None: ...

    async def identify_turn(self, bucket: int, spacing: float) -> None:
        """Wait until this process may IDENTIFY a gateway shard of concurrency ``bucket``
        (``spacing`` seconds after the bucket's last, in any process sharing the
        database), and claim that turn."""
