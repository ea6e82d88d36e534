"""Playing a puzzle: judging the solver's move and the defender's answer.

The bot plays a puzzle with these (in the engine pool: each may search):

- :func:`judge`: a move of the solver with ``moves_left`` of its moves left (``n`` on
  the first move) is RIGHT when it still wins within them, SLOW when it still wins but
  not in time ("it wins, but not in N"), WRONG when it gives the win up;
- :func:`reply`: the defender's answer, the longest defence when the solver still wins
  within the moves left, else the reply that keeps the solver from winning in time
  (the refutation to show);
- :func:`solves`: whether an agent of the ladder, playing the solver's side, wins
  within ``n`` against the longest defence (the generator's filter, the bench's table).
"""

from __future__ import annotations

import enum

from engine.agent import BaseAgent
from engine.board import Board
from engine.puzzles.proof import prover_for
from engine.puzzles.records import PuzzleBoard

SLOW_LOOKAHEAD = 2
"""On ultimate, where no exact solver exists, a move that does not win in time is SLOW
only if it is proven to win within this many moves more; else WRONG."""


class Verdict(enum.Enum):
    RIGHT = "right"
    """The move still wins within the moves left."""
    SLOW = "slow"
    """The move still forces a win, but not within the moves left."""
    WRONG = "wrong"
    """The move gives the win up (on ultimate: no win within SLOW_LOOKAHEAD more)."""


def judge(board: PuzzleBoard, move: int, moves_left: int) -> Verdict:
    """Judge the solver's ``move`` (legal) on ``board``, with ``moves_left`` of its own
    moves left (this one included).

    Raises:
        engine.IllegalMove: ``move`` is not legal on ``board``.
    """
    prover = prover_for(board)
    after = board.play(move)
    if prover.move_wins(prover.game.state(board), move, moves_left):
        return Verdict.RIGHT
    if after.is_over():
        return Verdict.WRONG  # a draw (a win would have been RIGHT)
    if isinstance(after, Board):
        from engine.solver import solve

        return Verdict.SLOW if solve(after) == -1 else Verdict.WRONG
    state = prover.game.state(board)
    within = prover.move_wins(state, move, moves_left + SLOW_LOOKAHEAD)
    return Verdict.SLOW if within else Verdict.WRONG


def reply(board: PuzzleBoard, moves_left: int) -> int:
    """The defender's answer on ``board`` (the defender to move, the game running) when
    the solver has ``moves_left`` of its moves left: the reply after which the solver's
    distance is longest, a reply that leaves no win within ``moves_left`` counting as
    longest (so a wrong move is refuted), ties broken as in
    :func:`engine.puzzles.proof.longest_defence`; a reply that wins on the spot first.

    Raises:
        ValueError: the game is over.
    """
    prover = prover_for(board)
    game = prover.game
    state = game.state(board)
    if game.over(state):
        raise ValueError("the game is over")
    now = game.wins_now(state)
    if now:
        return now[0]
    escape = next(  # the first reply in order that escapes: the others need no search
        (r for r in game.moves(state) if prover.reply_distance(state, r, moves_left) is None),
        None,
    )
    return prover.longest_defence(state, moves_left)[0] if escape is None else escape


def solves(agent: BaseAgent[PuzzleBoard], board: PuzzleBoard, n: int) -> bool:
    """True if ``agent``, playing the side to move on ``board``, wins within ``n`` of its
    moves against the longest defence (stopped at its first move that gives up a win
    within the moves left)."""
    prover = prover_for(board)
    game = prover.game
    for left in range(n, 0, -1):
        move = agent.choose(board)
        if not prover.move_wins(game.state(board), move, left):
            return False
        board = board.play(move)
        if board.is_over():
            return True
        board = board.play(prover.longest_defence(game.state(board), left - 1)[0])
    return False
