"""How long the pictures take to draw (the target: 50 ms for a 32-player bracket).

    .venv/bin/python bench/pictures.py [--repeat 20]

Each picture is drawn once cold (the font read, Pillow's first calls) and then
``--repeat`` times; the PNG encoding is included, as the bot sends the bytes.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.pictures import BracketMatch, draw_bracket, draw_rating_chart, draw_table
from engine.bench import machine_line


def bracket_32() -> bytes:
    names = [f"Player with a name {i}" for i in range(1, 33)]
    rounds, current = [], names
    while len(current) > 1:
        rounds.append(
            [BracketMatch(a, b, 0) for a, b in zip(current[::2], current[1::2], strict=True)]
        )
        current = current[::2]
    heads = ["Round 1", "Round 2", "Quarter-finals", "Semi-finals", "Final"]
    return draw_bracket("A 32-player cup, all played", heads, rounds)


def table_32() -> bytes:
    rows = [[str(i), f"Player with a name {i}", f"{(33 - i) / 2:.1f}", f"{i * 1.5:.1f}"]
            for i in range(1, 33)]  # fmt: skip
    return draw_table("A 32-player Swiss", ["#", "Player", "Points", "Buchholz"], rows)


def chart_200() -> bytes:
    rng, ratings = random.Random(1), [1000.0]
    for _ in range(200):
        ratings.append(ratings[-1] + rng.uniform(-16, 16))
    return draw_rating_chart("Rating over 200 games", ratings, "200 rated games")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    print("pictures: draw and encode as PNG")
    print(machine_line())
    pictures: dict[str, Callable[[], bytes]] = {
        "bracket, 32 players": bracket_32, "standings, 32 rows": table_32,
        "rating chart, 200 games": chart_200,
    }  # fmt: skip
    for name, draw in pictures.items():
        began = time.perf_counter()
        data = draw()
        cold = time.perf_counter() - began
        times = []
        for _ in range(args.repeat):
            began = time.perf_counter()
            draw()
            times.append(time.perf_counter() - began)
        median = statistics.median(times)
        print(f"  {name:26} cold {cold * 1000:6.1f} ms  median {median * 1000:6.1f} ms"
              f"  max {max(times) * 1000:6.1f} ms  {len(data) / 1024:6.1f} KB")  # fmt: skip


if __name__ == "__main__":
    main()
