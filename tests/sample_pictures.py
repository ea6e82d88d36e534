"""The sample pictures the tests compare with their references, and the command that
redraws the references (and the documentation's copies, in docs/images/) after a
deliberate change:

    .venv/bin/python tests/sample_pictures.py
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.pictures import BracketMatch, draw_bracket, draw_rating_chart, draw_table

REFERENCES = Path(__file__).with_name("data") / "pictures"
DOCS = Path(__file__).resolve().parents[1] / "docs" / "images"
NAMES = ["Amélie", "Björn", "Chloé", "Dmitri", "Eşref", "Fátima", "Grégoire", "Hélène",
         "Iñaki", "Jürgen", "Kasia", "Léa", "Mårten", "Noémie", "Oğuz", "Paulo"]  # fmt: skip


def bracket(players: int = 8, decided_rounds: int = 2) -> bytes:
    """A single elimination of ``players`` with its first rounds played (the top name
    of each match wins), the rest still to come."""
    names = [NAMES[i % len(NAMES)] + ("" if i < len(NAMES) else f" {i // len(NAMES) + 1}")
             for i in range(players)]  # fmt: skip
    rounds, current = [], names
    while len(current) > 1:
        played = len(rounds) < decided_rounds
        rounds.append([BracketMatch(a, b, 0 if played else None)
                       for a, b in zip(current[::2], current[1::2], strict=True)])  # fmt: skip
        current = current[::2] if played else [None] * (len(current) // 2)  # type: ignore[list-item]
    heads = ["Round 1", "Round 2", "Quarter-finals", "Semi-finals", "Final"]
    return draw_bracket("Autumn cup — single elimination", heads[-len(rounds) :], rounds)


def table(rows: int = 6) -> bytes:
    body = [[str(i + 1), NAMES[i % len(NAMES)], f"{(rows - i) / 2:.1f}", f"{i * 1.5:.1f}"]
            for i in range(rows)]  # fmt: skip
    return draw_table("Swiss — after round 3", ["#", "Player", "Points", "Buchholz"], body)


def chart(games: int = 40) -> bytes:
    rng, ratings = random.Random(7), [1000.0]
    for _ in range(games):
        ratings.append(ratings[-1] + rng.uniform(-16, 18))
    return draw_rating_chart("Amélie — rating", ratings, f"{games} rated games")


SAMPLES: dict[str, Callable[[], bytes]] = {"bracket": bracket, "table": table, "chart": chart}


def main() -> None:
    REFERENCES.mkdir(parents=True, exist_ok=True)
    for name, draw in SAMPLES.items():
        data = draw()
        (REFERENCES / f"{name}.png").write_bytes(data)
        print(f"{REFERENCES / name}.png: {len(data)} bytes")
    for name in ("bracket", "chart"):  # shown in the docs (play/tournaments.md, records.md)
        DOCS.mkdir(parents=True, exist_ok=True)
        (DOCS / f"{name}.png").write_bytes(SAMPLES[name]())


if __name__ == "__main__":
    main()
