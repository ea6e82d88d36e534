"""What the correspondence tests through Discord share: a games' clock the test moves,
a button found by its label, and a Discord timestamp as the bot writes a deadline."""

from __future__ import annotations

import time

from discord_emulator import find_button


class MovableClock:
    """The games' time: now when the test starts, then still until the test moves it
    (so a deadline the bot wrote is exactly the one the test expects, to the second)."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def press(message: dict, label: str) -> str:
    """The custom_id of the button labelled ``label`` on ``message`` (fails the test,
    naming the message, where there is none)."""
    button = find_button(message, label=label)
    assert button is not None, f"no {label!r} button on {message.get('content')!r}"
    return str(button["custom_id"])


def stamp(at: float) -> str:
    """A deadline at ``at`` as the bot writes it: a Discord relative timestamp."""
    return f"<t:{int(at)}:R>"
