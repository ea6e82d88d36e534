"""The Unicode emoji a server may choose as a board mark: Discord shows an emoji on a
button only if it is one of Unicode's emoji, so a symbol such as ★ or ✓ (a "So"
character, but no emoji) is refused when set rather than breaking every board after.

``data/emoji.txt`` lists the fully- and minimally-qualified emoji sequences of Unicode's
emoji list, one a line, taken from the ``emoji`` package (its version on the first
line). Regenerate it with::

    pip install emoji && python -m bot.core.emoji_names > bot/core/data/emoji.txt
"""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import Path

DATA = Path(__file__).with_name("data") / "emoji.txt"
VARIATION_SELECTOR = "\ufe0f"
"""Asks for the emoji rendering of a character that also has a text one (❤ → ❤️)."""
QUALIFIED = (2, 3)
"""The ``emoji`` package's statuses of fully- and minimally-qualified sequences."""


@cache
def known() -> frozenset[str]:
    lines = DATA.read_text(encoding="utf-8").splitlines()
    return frozenset(line for line in lines if line and not line.startswith("# "))  # not #️⃣


def as_emoji(mark: str) -> str | None:
    """``mark`` as the emoji Discord knows (❤ becomes ❤️), or None if it is none."""
    if mark in known():
        return mark
    qualified = mark + VARIATION_SELECTOR
    return qualified if qualified in known() else None


def main() -> None:
    emoji = importlib.import_module("emoji")  # a tool for this file only, not a dependency
    print(f"# emoji {emoji.__version__}: fully- and minimally-qualified sequences")
    for sequence, data in sorted(emoji.EMOJI_DATA.items()):
        if data["status"] in QUALIFIED:
            print(sequence)


if __name__ == "__main__":
    main()
