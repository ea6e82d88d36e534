"""Re-prove a puzzle from its record: what the tests do on a sample and the bench on all.

Nothing is taken from the record on trust: the distance, the only winning first move,
the main line's moves and its longest defences are proven again from the position.
"""

from __future__ import annotations

from engine.puzzles.proof import distance, longest_defence, move_wins, prover_for, winning_moves
from engine.puzzles.records import MAX_N, MIN_N, Puzzle, dropped, kind_of, puzzle_id


def problems(puzzle: Puzzle) -> list[str]:
    """Every way the record fails its proof (empty: it holds). Checks that the side to
    move wins within ``n`` and not sooner, that ``first`` is the only first move that
    does, that the line is ``2n - 1`` moves, each of the solver's still winning in the
    moves left and each of the defender's the longest defence, ending in a win, and that
    the id and orientation are the canonical ones."""
    found: list[str] = []
    board = puzzle.board()
    kind = kind_of(board)
    key, image = prover_for(board).game.canonical(board)
    if kind != puzzle.kind or puzzle_id(kind, key) != puzzle.id:
        found.append("the id is not the position's")
    if image != board:
        found.append("the position is not in its canonical orientation")
    if not MIN_N[kind] <= puzzle.n <= MAX_N[kind]:
        found.append(f"n = {puzzle.n} is outside {MIN_N[kind]}..{MAX_N[kind]}")
    if dropped(kind, puzzle.solved_by):
        found.append(f"{' and '.join(puzzle.solved_by)} solve it: no puzzle of its kind")
    if len(board.legal_moves()) != puzzle.choices or board.to_move != puzzle.to_move:
        found.append("choices or the side to move are wrong")
    d = distance(board, puzzle.n)
    if d != puzzle.n:
        return [*found, f"the distance is {d}, not {puzzle.n}"]
    if winning_moves(board, puzzle.n) != [puzzle.first]:
        found.append("the first move is not the only one that wins in time")
    if len(puzzle.line) != 2 * puzzle.n - 1 or puzzle.line[0] != puzzle.first:
        return [*found, "the line has the wrong length or start"]
    solver = board.to_move
    for step in range(puzzle.n):
        left = puzzle.n - step
        move = puzzle.line[2 * step]
        if move not in board.legal_moves() or not move_wins(board, move, left):
            return [*found, f"line move {2 * step} does not win within {left}"]
        board = board.play(move)
        if step == puzzle.n - 1:
            break
        reply = puzzle.line[2 * step + 1]
        if reply not in board.legal_moves():
            return [*found, f"line move {2 * step + 1} is not legal"]
        if longest_defence(board, left - 1)[0] != reply:
            found.append(f"line move {2 * step + 1} is not the longest defence")
        board = board.play(reply)
    if board.outcome() != solver:
        found.append("the line does not end in the solver's win")
    return found
