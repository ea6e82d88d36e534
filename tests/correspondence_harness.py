"""What the correspondence tests through Discord share: a games' clock the test moves,
a button found by its label, a Discord timestamp as the bot writes a deadline, and a
member's reminder DMs (waited for, and their squares read with the bot's grammar)."""

from __future__ import annotations

import time
from typing import Any

from bot.discord_ui import custom_ids

from discord_emulator import DiscordEmulator, buttons, find_button


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


def dm_clicks(message: dict) -> list[tuple[Any, dict]]:
    """Every button of a reminder DM, parsed with the bot's own grammar, with the button."""
    return [(custom_ids.parse(b["custom_id"]), b) for row in buttons(message) for b in row]


def dm_cells(message: dict) -> list[dict]:
    """A reminder's squares (``ttt:rc``)."""
    return [b for c, b in dm_clicks(message) if isinstance(c, custom_ids.ReminderCellClick)]


def dm_board(message: dict) -> str:
    marks = {"❌": "X", "⭕": "O"}
    return "".join(marks.get((b.get("emoji") or {}).get("name"), ".") for b in dm_cells(message))


CHALLENGE_DM = "challenges you to a correspondence game"
"""Words of a correspondence challenge's DM (in English, the tests' language)."""


def dms_to(emulator: DiscordEmulator, user: Any, *, challenges: bool = False) -> list[dict]:
    """The DMs the bot sent ``user``: its reminders of games and its digests, or, with
    ``challenges``, its DMs of correspondence challenges alone. Counted apart: a member
    who chose every-move reminders before a test's challenge is DMed that challenge or
    not, as the sender gets to it before or after the test accepts it (both right)."""
    sent = emulator.channel_messages(emulator.dm_channel(user))
    return [m for m in sent if (CHALLENGE_DM in (m.get("content") or "")) == challenges]


async def next_dm(
    emulator: DiscordEmulator, user: Any, count: int = 1, *, challenges: bool = False
) -> dict:
    """The ``count``-th DM of its kind (see :func:`dms_to`) the bot sent ``user``
    (waited for: the sender runs on its own)."""
    channel = str(emulator.dm_channel(user).id)
    await emulator.wait_for_message(
        lambda m: (
            m["channel_id"] == channel
            and len(dms_to(emulator, user, challenges=challenges)) >= count
        ),
        include_existing=True,
    )
    return dms_to(emulator, user, challenges=challenges)[count - 1]


async def correspondence_board(
    emulator: DiscordEmulator, alice: Any, bob: Any, days: int = 1, **options: Any
) -> dict:
    """alice's correspondence challenge (she plays first; ``options``: the board's, such
    as ``size`` or ``game``), accepted by bob: the game's message."""
    asked = {"opponent": bob, "first": "me", "pace": days, **options}
    res = await emulator.invoke(alice, "ttt start", asked)
    res = await emulator.click(bob, res.message, press(res.message, "Accept"))
    assert res.type == 7
    return res.message
