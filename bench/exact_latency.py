"""How long a member waits for a post-game review or a hint on the big boards.

    .venv/bin/python bench/exact_latency.py --games 8 [--cold-start]

The answers are worked out as the bot works them out: in an engine worker process of
their own (``engine.EnginePool``), the time measured from the request to the answer, so
it includes the hop to the worker and, for the first request, starting it (the first
click after start-up). Positions come from seeded games on 5×5 (and 4×4):

- reviews of games between two members who play anywhere (random legal moves): the
  sparse positions no opening book holds;
- reviews of games against ``hard`` (the bot's own moves come from its book);
- hints in games against ``easy`` (off the book) and against ``hard`` (every reply to the
  book's moves is in the book), with up to 8 marks;
- hints in late positions (12 marks or more);
- a hint in a game against ``hard`` asked while a review of a member game is running
  (what the member who asked waits for when the two share a worker).

Each line also says how often the answer listed every best square: a 5×5 hint or review
lists those proven within its time (``bot.core.hints.SECONDS``, ``bot.core.review.SECONDS``).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.core import hints
from bot.core.review import review_moves
from engine import Board, EnginePool, get_agent, known
from engine.bench import machine_line


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def member_game(rng: random.Random, size: int) -> tuple[int, ...]:
    board, moves = Board.new(size), []
    while not board.is_over():
        moves.append(rng.choice(board.legal_moves()))
        board = board.play(moves[-1])
    return tuple(moves)


def bot_game(rng: random.Random, size: int, level: str) -> tuple[int, ...]:
    """A member (random squares, moving first) against the bot at ``level``."""
    bot = get_agent(level, seed=rng.getrandbits(32), time_budget=2.0)
    board, moves = Board.new(size), []
    while not board.is_over():
        cell = rng.choice(board.legal_moves()) if board.to_move == "X" else bot.choose(board)
        moves.append(cell)
        board = board.play(cell)
    return tuple(moves)


def positions(moves: tuple[int, ...], size: int, marks: Callable[[int], bool]) -> list[Board]:
    """The running positions of a game where the member (X) is to move, by mark count."""
    found, board = [], Board.new(size)
    for cell in moves:
        if board.to_move == "X" and marks(board.move_count):
            found.append(board)
        board = board.play(cell)
    return found


class Timed:
    def __init__(self, name: str) -> None:
        self.name = name
        self.seconds: list[float] = []
        self.partial = 0
        """Answers where other squares may have been as good (the time ran out first)."""

    def line(self) -> str:
        if not self.seconds:
            return f"  {self.name:44} (none)"
        s = self.seconds
        return (
            f"  {self.name:44} {len(s):4} answers  p50 {percentile(s, 50):7.3f} s  "
            f"p99 {percentile(s, 99):7.3f} s  max {max(s):7.3f} s  "
            f"every best square: {1 - self.partial / len(s):4.0%}"
        )


async def timed(record: Timed, pool: EnginePool, fn: Callable[..., Any], *args: Any) -> Any:
    began = time.perf_counter()
    result = await pool.run(fn, *args)
    record.seconds.append(time.perf_counter() - began)
    answers = result if isinstance(result, list) else [result]  # a review: its verdicts
    record.partial += any(not answer.complete for answer in answers)
    return result


async def run(games: int, seed: int, size: int, separate_hints: bool, warm: bool) -> list[Timed]:
    rng = random.Random(seed)
    reviews = EnginePool(1)
    hint_pool = EnginePool(1) if separate_hints else reviews
    if warm:  # as the bot does at start-up (TTT_WARM_WORKERS)
        began = time.perf_counter()
        await asyncio.gather(reviews.run(known.load), hint_pool.run(known.load))
        print(f"  workers started with the tables in {time.perf_counter() - began:.2f} s")
    first_review, first_hint = Timed("first review after start-up"), Timed("first hint")
    member_reviews, bot_reviews = Timed("review: member vs member"), Timed("review: vs hard")
    easy_hints, book_hints = Timed("hint vs easy (≤ 8 marks)"), Timed("hint vs hard (≤ 8 marks)")
    late_hints, behind = Timed("hint, 12 marks or more"), Timed("hint while a review runs")
    member_games = [member_game(rng, size) for _ in range(games)]
    hard_games = [bot_game(rng, size, "hard") for _ in range(games)]
    easy_games = [bot_game(rng, size, "easy") for _ in range(games)]
    unseen = [member_game(rng, size) for _ in range(games - 1)]  # for reviews not yet warm
    try:
        await asyncio.gather(
            timed(first_review, reviews, review_moves, size, 4 if size >= 4 else 3,
                  member_games[0]),
            timed(first_hint, hint_pool, hints.hint_for, size, default_k(size), 0, 0)
            if separate_hints else asyncio.sleep(0),
        )  # fmt: skip
        if not separate_hints:
            await timed(first_hint, hint_pool, hints.hint_for, size, default_k(size), 0, 0)
        k = default_k(size)
        for moves in member_games[1:]:
            await timed(member_reviews, reviews, review_moves, size, k, moves)
        for moves in hard_games:
            await timed(bot_reviews, reviews, review_moves, size, k, moves)
        for moves, record in ((easy_games, easy_hints), (hard_games, book_hints)):
            for game in moves:
                for board in positions(game, size, lambda n: 0 < n <= 8):
                    await timed(record, hint_pool, hints.hint_for, size, k, board.x, board.o)
        for game in member_games + easy_games:
            for board in positions(game, size, lambda n: n >= 12):
                await timed(late_hints, hint_pool, hints.hint_for, size, k, board.x, board.o)
        for moves, against_hard in zip(unseen, hard_games, strict=False):
            review = asyncio.create_task(pool_review(reviews, size, k, moves))
            await asyncio.sleep(0.05)
            board = positions(against_hard, size, lambda n: 0 < n <= 8)[0]
            await timed(behind, hint_pool, hints.hint_for, size, k, board.x, board.o)
            await review
    finally:
        reviews.close()
        if separate_hints:
            hint_pool.close()
    return [first_review, first_hint, member_reviews, bot_reviews, easy_hints, book_hints,
            late_hints, behind]  # fmt: skip


async def pool_review(pool: EnginePool, size: int, k: int, moves: tuple[int, ...]) -> None:
    await pool.run(review_moves, size, k, moves)


def default_k(size: int) -> int:
    return 3 if size == 3 else 4


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="games of each kind (default 8)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sizes", default="5,4", help="board sizes, comma-separated")
    parser.add_argument(
        "--shared-worker",
        action="store_true",
        help="hints in the reviews' worker (as before hints had a worker of their own)",
    )
    parser.add_argument(
        "--cold-start",
        action="store_true",
        help="start the workers at the first request (TTT_WARM_WORKERS=false)",
    )
    args = parser.parse_args()
    print(f"exact latency: reviews and hints in engine workers, {args.games} games a kind")
    print(machine_line())
    print("hints: " + ("in the reviews' worker" if args.shared_worker else "a worker of their own"))
    for size in (int(s) for s in args.sizes.split(",")):
        print(f"{size}×{size}:")
        runs = run(args.games, args.seed, size, not args.shared_worker, not args.cold_start)
        for record in asyncio.run(runs):
            print(record.line())


if __name__ == "__main__":
    main()
