"""An independent, deliberately naive tic-tac-toe solver for cross-checking the engine.

Works on strings, recomputes lines from scratch and shares no code with ``engine``.
"""

from __future__ import annotations

from functools import cache
from math import isqrt


@cache
def lines(size: int, k: int) -> tuple[tuple[int, ...], ...]:
    found = []
    for r in range(size):
        for c in range(size):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + dr * i, c + dc * i) for i in range(k)]
                if all(0 <= rr < size and 0 <= cc < size for rr, cc in cells):
                    found.append(tuple(rr * size + cc for rr, cc in cells))
    return tuple(found)


def winner(board: str, k: int) -> str | None:
    size = isqrt(len(board))
    for line in lines(size, k):
        marks = {board[i] for i in line}
        if len(marks) == 1 and marks != {"."}:
            return marks.pop()
    return None


def to_move(board: str) -> str:
    return "X" if board.count("X") == board.count("O") else "O"


@cache
def value(board: str, k: int = 3) -> tuple[int, int]:
    """(result, plies): result +1/0/-1 for the side to move under perfect play, with the
    number of plies to the end when the winner hurries and the loser stalls."""
    w = winner(board, k)
    if w is not None:
        return (-1, 0)  # the previous mover just won
    if "." not in board:
        return (0, 0)
    options = [child_value(board, i, k) for i, ch in enumerate(board) if ch == "."]
    return max(options, key=preference)


def child_value(board: str, cell: int, k: int = 3) -> tuple[int, int]:
    """(result, plies) for the mover of playing ``cell``."""
    child = board[:cell] + to_move(board) + board[cell + 1 :]
    result, plies = value(child, k)
    return (-result, plies + 1)


def preference(option: tuple[int, int]) -> tuple[int, int]:
    result, plies = option
    # wins: fewer plies better; losses: more plies better; draws: all alike
    return (result, -plies if result > 0 else plies if result < 0 else 0)


def positions(start: str = ".........", k: int = 3) -> set[str]:
    """Every position reachable from ``start`` (play stops at a win or a full board)."""
    seen, todo = {start}, [start]
    while todo:
        board = todo.pop()
        if winner(board, k) is not None or "." not in board:
            continue
        for i, ch in enumerate(board):
            if ch == ".":
                child = board[:i] + to_move(board) + board[i + 1 :]
                if child not in seen:
                    seen.add(child)
                    todo.append(child)
    return seen


def best_cells(board: str, k: int = 3) -> set[int]:
    options = {i: child_value(board, i, k) for i, ch in enumerate(board) if ch == "."}
    top = max(preference(o) for o in options.values())
    return {i for i, o in options.items() if preference(o) == top}
