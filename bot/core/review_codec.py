"""A finished game's review as plain JSON and back, as the core decided it: storage keeps
the text (:meth:`~bot.core.repository.Store.keep_review`) and never reads it. The game
itself is not in it: a review is read back for the game it was kept under. Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from bot.core.models import Game
from bot.core.review import MoveVerdict
from bot.core.variants import Review
from engine.board import Mark
from engine.ultimate.review import ReviewedMove

FORMAT = 1
"""The body's shape. A body of another (a later release's, or an older one's once this
changes) is not read: the review is worked out again and kept in this shape."""


def encode(review: Review) -> str:
    """``review``'s verdicts as a JSON text (its game left out)."""
    body: dict[str, Any] = {
        "format": FORMAT,
        "verdicts": [dataclasses.asdict(v) for v in review.verdicts],
        "judged": None if review.judged is None else [dataclasses.asdict(m) for m in review.judged],
    }
    return json.dumps(body, separators=(",", ":"))


def decode(text: str, game: Game) -> Review:
    """The review of ``game`` kept as ``text``.

    Raises:
        ValueError: ``text`` is not a review body of this :data:`FORMAT`.
    """
    try:
        body = json.loads(text)
        if not isinstance(body, dict) or body.get("format") != FORMAT:
            raise ValueError("not a review body of this format")
        verdicts = [
            MoveVerdict(_int(v["number"]), _mark(v["mark"]), _int(v["cell"]),
                        _int(v["before"]), _int(v["after"]),
                        tuple(_int(c) for c in v["best"]), _bool(v["complete"]))
            for v in body["verdicts"]
        ]  # fmt: skip
        raw = body["judged"]
        judged = None if raw is None else [
            ReviewedMove(_int(m["ply"]), _mark(m["player"]), _int(m["move"]),
                         _int(m["preferred"]), _float(m["before"]), _float(m["after"]))
            for m in raw
        ]  # fmt: skip
    except (KeyError, TypeError, RecursionError) as exc:
        raise ValueError(f"not a review body: {exc!r}") from None
    return Review(game, verdicts, judged)


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{value!r} is not a whole number")
    return value


def _float(value: object) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise TypeError(f"{value!r} is not a number")
    return float(value)


def _bool(value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{value!r} is not true or false")
    return value


def _mark(value: object) -> Mark:
    if value == "X":
        return "X"
    if value == "O":
        return "O"
    raise TypeError(f"{value!r} is not a mark")
