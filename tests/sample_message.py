"""Prints a game's message as the tests' Discord emulator holds it (the README and
docs/play/starting.md show it): alice against bob, four moves in, the bot's real client
against the emulator, as the tests run it.

    .venv/bin/python tests/sample_message.py
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot_harness import accepted_member_game, cell_id, running_bot, settings_for
from discord_emulator import DiscordEmulator, buttons

MOVES = (4, 0, 2)
"""After the challenge: alice (X) the centre, bob (O) the top left, alice the top right."""


async def sample() -> str:
    """The message's text, then its buttons a row a line (a square's mark, or blank)."""
    emu = DiscordEmulator(spec_path=None, validate=False)
    await emu.start()
    try:
        with tempfile.TemporaryDirectory() as folder:
            settings = settings_for(emu, Path(folder) / "ttt.sqlite3")
            async with running_bot(emu, settings):
                alice, bob = emu.create_user("alice"), emu.create_user("bob")
                message = await accepted_member_game(emu, alice, bob)
                for user, cell in zip((alice, bob, alice), MOVES, strict=True):
                    message = (await emu.click(user, message, cell_id(message, cell))).message
    finally:
        await emu.stop()
    rows = [
        " ".join(f"[{(b.get('emoji') or {}).get('name') or b.get('label') or ' '}]" for b in row)
        for row in buttons(message)
    ]
    return "\n".join([message["content"], "", *rows])


if __name__ == "__main__":
    print(asyncio.run(sample()))
