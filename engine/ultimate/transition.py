"""The move transition of ultimate tic-tac-toe, written once in Python.

:meth:`engine.ultimate.UltimateBoard.play`, :meth:`engine.ultimate.fast.Position.play`,
the random playout (:func:`engine.ultimate.fast.playout`) and the tree search
(:mod:`engine.ultimate.mcts`) all move through :func:`place`; ``pos_play`` in
``_csearch.c`` is the same function compiled, and ``tests/test_ultimate_compiled.py``
checks the two agree move for move (identical playouts and identical trees for the same
random numbers). It works on the search's form of a position (9-bit masks, one small
board at a time), so the hot loops pay a call and nothing else.
"""

from __future__ import annotations

from engine.ultimate.tables import FULL9, WINS


def place(
    mine: int, theirs: int, mine_won: int, done: int, b: int, s: int
) -> tuple[int, int, int, int, bool]:
    """One move: the side to move, holding ``mine`` in small board ``b`` (the opponent
    ``theirs``) and the small boards ``mine_won``, marks square ``s`` of ``b``; ``done``
    is the small boards decided (won by either side, or full).

    Returns ``(mine, mine_won, done, forced, won_game)`` after the move: ``forced`` the
    small board the opponent is sent to (-1: any open one, since board ``s`` is decided),
    ``won_game`` whether the move completed a line of small boards. The game is drawn when
    ``done`` is full without that. Every 9-bit argument is a mask over one 3×3 grid; the
    square must be empty and the game running (the caller's moves are legal)."""
    mine |= 1 << s
    won_game = False
    if WINS[mine]:
        mine_won |= 1 << b
        done |= 1 << b
        won_game = WINS[mine_won]
    elif mine | theirs == FULL9:
        done |= 1 << b
    return mine, mine_won, done, -1 if done >> s & 1 else s, won_game
