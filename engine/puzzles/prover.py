"""Depth-bounded proof search: the distance to a forced win, proven, for any game given
as a :class:`ProofGame` (:mod:`engine.puzzles.proof` asks it of public boards).

A position's *distance* is the smallest ``n`` such that the side to move (the solver)
can force a win making at most ``n`` moves of its own, the winning move included, however
the other side (the defender) answers: 1 is a win on the spot, 2 a move after which
every reply leaves a win on the spot, and so on. ``None`` within a bound means no win
that fast exists (a slower one may). Everything here is exact: a full bounded search,
no estimate and no time cut, so a distance it reports is a proof, and "not within n" is
one too.

The search is a free function over a small rules interface, :class:`ProofGame`
(STYLE rules 3 and 15): each game gives its own fast form of a position and the facts
that prune (the moves that win at once, the moves worth trying for a win within ``n``,
the replies that do not lose at once). The k-in-a-row boards' form is in
:mod:`engine.puzzles.classic`, ultimate's in :mod:`engine.ultimate.proof`;
:mod:`engine.puzzles.proof` picks one by the board's ``variant``. Every proven bound is kept in a
transposition table keyed by the game's key of the position (symmetry-reduced where
the game has a cheap canonical form): a table entry says "wins within ``hi``" and "not
within ``lo``", so iterative deepening (``n`` = 1, 2, ...) reuses every earlier answer.

The defender's *longest defence* at a node is the reply after which the solver's
distance is largest; ties go to the reply that leaves the solver the fewest winning
moves within that distance (the hardest line to find), then to the lowest cell.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

S = TypeVar("S")
MAX_ENTRIES = 2_000_000
"""A table past this many entries is emptied and refilled (a few hundred MB at most)."""


class NotAWin(ValueError):
    """The position asked about is not a forced win for the solver within the bound."""


class ProofGame(Protocol[S]):
    """What the bounded search asks of a game, on the game's own form ``S`` of a position
    (the side to move first). Moves are the board's cell numbers."""

    def state(self, board: Any) -> S:
        """The search's form of a running board (the public board value)."""
        ...

    def key(self, state: S) -> Hashable:
        """The transposition table's key: equal for positions with equal distances."""
        ...

    def canonical(self, board: Any) -> tuple[Hashable, Any]:
        """A key equal for every image of the board under the game's symmetries, and
        the image chosen to stand for them all (a public board, as ``board``)."""
        ...

    def moves(self, state: S) -> list[int]:
        """Every legal move, ascending (none once the game is over)."""
        ...

    def play(self, state: S, move: int) -> S:
        """The position after the side to move plays ``move`` (a legal one)."""
        ...

    def over(self, state: S) -> bool:
        """True when the game has ended (a line made, or drawn)."""
        ...

    def wins_now(self, state: S) -> list[int]:
        """The moves with which the side to move wins on the spot, ascending."""
        ...

    def candidates(self, state: S, n: int) -> list[int]:
        """For ``n >= 2``, with no win on the spot: the moves that may win within ``n``,
        best first. Sound: any move left out does not win within ``n`` unless one listed
        does too (a list ``[]`` proves there is no win within ``n``)."""
        ...

    def replies(self, state: S) -> list[int]:
        """With the defender to move and no win on the spot for it: the replies worth
        trying against a win, best defences first. Sound: for every ``n >= 1``, if the
        solver wins within ``n`` after each listed reply, it does after each one left out
        too (``[]`` only when every reply lets the solver win on the spot)."""
        ...


@dataclass
class Prover(Generic[S]):
    """One game's bounded search and its table (shared by every call in a process)."""

    game: ProofGame[S]
    tt: dict[Hashable, int] = field(default_factory=dict)
    """key -> lo | hi << 8: not a win within ``lo`` moves; a win within ``hi`` (0: none known)."""
    nodes: int = 0

    def wins_within(self, state: S, n: int) -> bool:
        """True if the side to move forces a win within ``n`` of its own moves."""
        game = self.game
        self.nodes += 1
        if game.wins_now(state):
            return True
        if n < 2:
            return False
        key = game.key(state)
        entry = self.tt.get(key, 0)
        lo, hi = entry & 0xFF, entry >> 8
        if hi and n >= hi:
            return True
        if n <= lo:
            return False
        won = False
        for move in game.candidates(state, n):
            if self.defended(game.play(state, move), n - 1):
                won = True
                break
        if len(self.tt) >= MAX_ENTRIES:
            self.tt.clear()
            lo = hi = 0
        if won:
            hi = n if not hi else min(hi, n)
        else:
            lo = max(lo, n)
        self.tt[key] = lo | hi << 8
        return won

    def defended(self, state: S, n: int) -> bool:
        """With the defender to move: True if the solver wins within ``n`` (its own moves)
        whatever the defender replies. False when the game is over (a move that ends it
        and wins is a win on the spot, found before)."""
        game = self.game
        if game.over(state) or game.wins_now(state):
            return False
        for reply in game.replies(state):
            after = game.play(state, reply)
            if game.over(after) or not self.wins_within(after, n):
                return False
        return True

    def distance(self, state: S, limit: int) -> int | None:
        """The smallest ``n <= limit`` the side to move wins within, else None."""
        if self.game.over(state):
            return None
        for n in range(1, limit + 1):
            if self.wins_within(state, n):
                return n
        return None

    def move_wins(self, state: S, move: int, n: int) -> bool:
        """True if ``move`` wins on the spot or leaves a win within ``n`` moves in all."""
        if n < 1:
            return False
        if move in self.game.wins_now(state):
            return True
        return n >= 2 and self.defended(self.game.play(state, move), n - 1)

    def winning_moves(self, state: S, n: int) -> list[int]:
        """Every legal move of the side to move that wins within ``n``, ascending."""
        return [m for m in self.game.moves(state) if self.move_wins(state, m, n)]

    def reply_distance(self, state: S, reply: int, limit: int) -> int | None:
        """The solver's distance after the defender plays ``reply`` (None: not within)."""
        after = self.game.play(state, reply)
        return None if self.game.over(after) else self.distance(after, limit)

    def longest_defence(self, state: S, n: int) -> tuple[int, int]:
        """With the defender to move and the solver winning within ``n`` whatever it does:
        ``(reply, distance after it)`` for the longest defence (see the module's
        docstring for the tie-break).

        Raises:
            NotAWin: some reply escapes a win within ``n``.
        """
        if self.game.over(state):
            raise NotAWin("the game is over")
        ranked = []
        for reply in self.game.moves(state):
            d = self.reply_distance(state, reply, n)
            if d is None:
                raise NotAWin(f"the reply {reply} escapes a win within {n}")
            ranked.append((d, reply))
        longest = max(d for d, _ in ranked)
        tied = [reply for d, reply in ranked if d == longest]
        if len(tied) > 1:
            counts = {r: len(self.winning_moves(self.game.play(state, r), longest)) for r in tied}
            tied.sort(key=lambda r: (counts[r], r))
        return tied[0], longest
