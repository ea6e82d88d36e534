"""How fast /ttt stats, history and leaderboard read with many stored games.

    python bench/records_queries.py --games 100000

Fills a fresh SQLite file (through the repository, as the bot stores games) with
finished games in one server: random legal games between members (rated) and against
every bot level, then times each query the commands make over many different members
and prints the median and the worst. Target: under 20 ms each with 100,000 games.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.core.models import Ending, Game
from bot.core.rules import finish, new_game
from bot.core.stats import player_stats
from bot.storage import SqliteRepository
from engine import Board

GUILD, CHANNEL, BOT = 1, 2, 3
LEVELS = ("easy", "medium", "hard", "unbeatable")


def random_game(rng: random.Random, members: int, when: float) -> Game:
    a = 100 + rng.randrange(members)
    vs_bot = rng.random() < 0.4
    b = BOT if vs_bot else 100 + rng.randrange(members)
    while b == a:
        b = 100 + rng.randrange(members)
    bot_side = rng.choice(("X", "O")) if vs_bot else None
    x, o = (b, a) if bot_side == "X" else (a, b)
    game = new_game(guild_id=GUILD, channel_id=CHANNEL, size=3, player_x=x, player_o=o,
                    now=when, bot_side=bot_side,
                    difficulty=rng.choice(LEVELS) if vs_bot else None)  # fmt: skip
    board, moves = Board.new(), []
    while board.outcome() is None:
        cell = rng.choice(board.legal_moves())
        board, moves = board.play(cell), [*moves, cell]
    result = board.outcome() or "draw"
    game = game.with_changes(moves=tuple(moves), message_id=int(when * 1000))
    outcome = Ending("draw") if result == "draw" else Ending("line", result)
    return finish(game, outcome, when + 30)


async def timed(fn, *args) -> float:
    start = time.perf_counter()
    await fn(*args)
    return time.perf_counter() - start


async def bench(games: int, members: int, samples: int, seed: int) -> None:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        repo = SqliteRepository(Path(tmp) / "ttt.sqlite3")
        await repo.open()
        try:
            began = time.perf_counter()
            batch, now = [], 1_700_000_000.0
            for i in range(games):
                batch.append(random_game(rng, members, now + i * 60))
                if len(batch) == 10_000:
                    await repo.import_finished_games(batch)
                    batch = []
            if batch:
                await repo.import_finished_games(batch)
            filled = time.perf_counter() - began
            users = [100 + rng.randrange(members) for _ in range(samples)]

            async def stats(user: int) -> None:
                player_stats(await repo.finished_games_of(GUILD, user), user)

            async def leaderboard(user: int) -> None:
                await repo.leaderboard(GUILD, 10)
                await repo.rank_of(GUILD, user)
                for level in ("unbeatable", "hard"):
                    await repo.best_against_bot(GUILD, level, 5)

            queries = {
                "stats (all of a member's games + streaks)": stats,
                "history (last 10 games)": lambda u: repo.finished_games_of(GUILD, u, 10),
                "leaderboard (top 10 + rank + 2 bot tables)": leaderboard,
            }
            print(f"records benchmark: {games:,} finished games, {members} members, one server")
            print(f"machine: {platform.platform()}, Python {platform.python_version()}")
            print(f"filled in {filled:.1f} s (one transaction per 10,000 games)")
            print(f"{'query':<46}{'median':>10}{'max':>10}  (over {samples} members)")
            for name, fn in queries.items():
                times = [await timed(fn, user) for user in users]
                print(f"{name:<46}{statistics.median(times) * 1e3:>8.2f} ms"
                      f"{max(times) * 1e3:>8.2f} ms")  # fmt: skip
        finally:
            await repo.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--members", type=int, default=500)
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    asyncio.run(bench(args.games, args.members, args.samples, args.seed))


if __name__ == "__main__":
    main()
