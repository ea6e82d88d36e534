"""The proof search asked of public boards (:class:`engine.Board`,
:class:`engine.UltimateBoard`): a prover per game, its table kept warm. The search
itself is :mod:`engine.puzzles.prover`."""

from __future__ import annotations

from collections.abc import Callable, Hashable

from engine.puzzles import classic
from engine.puzzles.prover import NotAWin, ProofGame, Prover
from engine.ultimate import proof as ultimate_proof

__all__ = [
    "NotAWin",
    "ProofGame",
    "Prover",
    "distance",
    "longest_defence",
    "main_line",
    "move_wins",
    "prover_for",
    "winning_moves",
]

_PROVERS: dict[Hashable, Prover[object]] = {}
_GAMES: dict[str, Callable[[object], tuple[Hashable, ProofGame[object]]]] = {
    "classic": classic.make,  # type: ignore[dict-item]
    "ultimate": ultimate_proof.make,  # type: ignore[dict-item]
}
"""Each board's game by its ``variant``: ``make(board)`` is ``(a key for the game's
rules, its ProofGame)``; one prover (and table) is kept per key."""


def prover_for(board: object) -> Prover[object]:
    """The process-wide prover of the board's game (its table warm from earlier calls).

    Raises:
        ValueError: a board of a game the search does not know.
    """
    variant = getattr(board, "variant", None)
    make = _GAMES.get(variant) if isinstance(variant, str) else None
    if make is None:
        raise ValueError(f"no proof search for {type(board).__name__} ({variant!r})")
    rules, game = make(board)
    prover = _PROVERS.get(rules)
    if prover is None:
        prover = _PROVERS[rules] = Prover(game)
    return prover


def clear_tables() -> None:
    """Forget every table (for a bench that measures a cold start)."""
    _PROVERS.clear()


# --- the questions, asked of public boards (engine.Board, engine.UltimateBoard) ----------


def distance(board: object, limit: int) -> int | None:
    """The side to move's distance to a forced win if it is at most ``limit`` (its own
    moves, the winning one included), else None (also for a finished game).

    Raises:
        ValueError: a board of a game the search does not know.
    """
    prover = prover_for(board)
    return prover.distance(prover.game.state(board), limit)


def winning_moves(board: object, n: int) -> list[int]:
    """Every legal move of the side to move that wins within ``n`` moves, ascending."""
    prover = prover_for(board)
    return prover.winning_moves(prover.game.state(board), n)


def move_wins(board: object, move: int, n: int) -> bool:
    """True if the side to move, playing ``move`` (legal), wins within ``n`` moves."""
    prover = prover_for(board)
    return prover.move_wins(prover.game.state(board), move, n)


def longest_defence(board: object, n: int) -> tuple[int, int]:
    """``board`` has the defender to move and the solver wins within ``n`` whatever it
    plays: ``(the longest defence, the solver's distance after it)``.

    Raises:
        NotAWin: a reply escapes a win within ``n`` (or the game is over).
    """
    prover = prover_for(board)
    return prover.longest_defence(prover.game.state(board), n)


def main_line(board: object, n: int) -> list[int]:
    """The solution of a win within ``n``: the solver's move, the longest defence, and so
    on to the winning move (``2 * d - 1`` moves for distance ``d``). At each of the
    solver's turns the lowest winning move within the moves left (the first move: the
    lowest, when several win).

    Raises:
        NotAWin: the side to move does not win within ``n``.
    """
    prover = prover_for(board)
    game = prover.game
    state = game.state(board)
    d = prover.distance(state, n)
    if d is None:
        raise NotAWin(f"no forced win within {n}")
    line: list[int] = []
    while True:
        now = game.wins_now(state)
        if now:
            return [*line, now[0]]
        move = next(m for m in game.moves(state) if prover.move_wins(state, m, d))
        state = game.play(state, move)
        reply, d = prover.longest_defence(state, d - 1)
        line += [move, reply]
        state = game.play(state, reply)
