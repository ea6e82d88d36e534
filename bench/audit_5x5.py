"""Audit hard and unbeatable on 5×5 against an exact, solver-driven adversary.

    python bench/audit_5x5.py --games 20 --think 2 0.5

The bot moves through :class:`engine.EnginePool` exactly as the Discord bot asks it
(one worker, its tables warm from game to game, the think time as its budget). The
adversary runs here, with the exact search of :mod:`engine.exact` (which
``tests/test_exact_reference.py`` checks against an independent solver): it plays only
moves that keep its game value and, among them, the one that leaves the bot the fewest
value-keeping replies (``--adversary tight``, ties at random) or any of them at random
(``--adversary random``). As X its first move is any cell at random: every first move
keeps the draw, and ranking them all would take the adversary many minutes. Every bot
move is judged exactly: a move after which the bot's value is lower than before counts
as value-losing. Also printed: the bot's wall time per move by the number of marks on
the board, and moves that ran past the think time.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field

from engine import Board, EnginePool, book, exact

_tight: dict[int, list[int]] = {}
"""canonical position -> the adversary's best moves there, in the canonical orientation."""


def value_for_mover(board: Board, cell: int) -> int:
    """Exact value, for the side to move on ``board``, of playing ``cell``."""
    after = board.play(cell)
    outcome = after.outcome()
    if outcome is not None:
        return 0 if outcome == "draw" else 1
    return -exact.board_value(after)


def tight_moves(board: Board) -> list[int]:
    """The adversary's value-keeping moves that leave the fewest value-keeping replies."""
    key, perm = book.canonical(board)
    found = _tight.get(key)
    if found is None:
        canon = book.board_of(key)
        counts = {}
        for cell in exact.keeping_moves(canon):
            after = canon.play(cell)
            counts[cell] = 0 if after.is_over() else len(exact.keeping_moves(after))
        fewest = min(counts.values())
        found = _tight[key] = sorted(c for c, n in counts.items() if n == fewest)
    return sorted(perm.index(cell) for cell in found)


@dataclass
class Row:
    agent: str
    side: str
    think: float
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    value_losing: int = 0
    bot_moves: int = 0
    over_think: int = 0
    timeouts: int = 0
    times: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    lost_positions: list[str] = field(default_factory=list)


async def play(pool: EnginePool, row: Row, adversary: str, rng: random.Random) -> None:
    board = Board.new(5)
    while not board.is_over():
        if board.to_move == row.side:
            before = exact.board_value(board)
            began = time.perf_counter()
            try:
                cell = await pool.choose(board, row.agent, seed=rng.getrandbits(32),
                                         time_budget=row.think)  # fmt: skip
            except TimeoutError:
                row.timeouts += 1  # the bot would fall back to a weaker move: count it
                cell = exact.keeping_moves(board)[0]
            spent = time.perf_counter() - began
            row.times[board.move_count].append(spent)
            row.over_think += spent > row.think
            row.bot_moves += 1
            if value_for_mover(board, cell) < before:
                row.value_losing += 1
                row.lost_positions.append(f"{board.to_string()} played {cell}")
        elif board.move_count == 0:
            cell = rng.choice(board.legal_moves())  # every first move keeps the draw
        elif adversary == "tight":
            cell = rng.choice(tight_moves(board))
        else:
            cell = rng.choice(exact.keeping_moves(board))
        board = board.play(cell)
    outcome = board.outcome()
    row.games += 1
    row.wins += outcome == row.side
    row.draws += outcome == "draw"
    row.losses += outcome not in (row.side, "draw")


async def audit(agents: list[str], thinks: list[float], games: int, adversary: str,
                seed: int) -> list[Row]:  # fmt: skip
    pool = EnginePool(workers=1)
    await pool.warm_up()
    rows = []
    try:
        for think in thinks:
            for agent in agents:
                for side in ("X", "O"):
                    row = Row(agent, side, think)
                    rng = random.Random(f"{seed}-{agent}-{side}-{think}")
                    for _ in range(games):
                        await play(pool, row, adversary, rng)
                    rows.append(row)
                    print(_line(row), flush=True)
    finally:
        pool.close()
    return rows


def _line(row: Row) -> str:
    every = [t for ts in row.times.values() for t in ts]
    return (
        f"{row.agent:<11}{row.side:<3}{row.think:>5.1f} s{row.games:>6}"
        f"{row.wins:>6}{row.draws:>6}{row.losses:>6}{row.value_losing:>8}{row.bot_moves:>7}"
        f"{max(every):>9.3f}{row.over_think:>6}{row.timeouts:>6}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--think", type=float, nargs="+", default=[2.0, 0.5])
    parser.add_argument("--agents", nargs="+", default=["unbeatable", "hard"])
    parser.add_argument("--adversary", choices=("tight", "random"), default="tight")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"5×5 audit, adversary {args.adversary}, {args.games} games per row")
    print(f"{'agent':<11}{'as':<3}{'think':>7}{'games':>6}{'won':>6}{'drawn':>6}{'lost':>6}"
          f"{'v-lost':>8}{'moves':>7}{'max s':>9}{'>thk':>6}{'t/o':>6}")  # fmt: skip
    rows = asyncio.run(audit(args.agents, args.think, args.games, args.adversary, args.seed))
    by_marks: dict[int, list[float]] = defaultdict(list)
    for row in rows:
        for marks, times in row.times.items():
            by_marks[marks].extend(times)
    print("\nbot move wall time (pool round trip) by marks on the board: median / max, moves")
    for marks in sorted(by_marks):
        times = by_marks[marks]
        print(f"{marks:>3} marks  {statistics.median(times) * 1e3:8.1f} ms"
              f"  {max(times) * 1e3:8.1f} ms  {len(times):>5}")  # fmt: skip
    for row in rows:
        for lost in row.lost_positions:
            print(f"value-losing: {row.agent} as {row.side} at {row.think:g} s: {lost}")
    return 1 if any(row.value_losing for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
