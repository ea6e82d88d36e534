"""Issue 53's hint case, measured: a member who asks the page for a hint before each of
their moves of a fast ultimate game against easy, through the real bot (in this process,
its engine workers as in production, the default budgets) and the local emulator. On a
429 the member does what the page says: waits the seconds it names, and asks again.

    python bench/fast_hints.py --games 2

Prints, for each game: the member's moves, the hints answered, the refusals and the
seconds waited on them, and the game's wall time. Run from another checkout (a copy of
an older commit) with ``--root`` to measure it the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--games", type=int, default=1)
parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1],
                    help="the checkout whose bot is measured")  # fmt: skip
ARGS = parser.parse_args()
sys.path[:0] = [str(ARGS.root / "tests"), str(ARGS.root)]

from bot_harness import eventually  # noqa: E402
from discord_emulator import DiscordEmulator  # noqa: E402
from web_harness import Page, bot_with_web, sign_in  # noqa: E402


async def my_turn(page: Page, game_id: str) -> dict[str, Any]:
    async def ready() -> dict[str, Any] | None:
        found = [g for g in await page.games() if g["id"] == game_id]
        if not found:
            return {"running": False}
        game = found[0]
        return game if game["can_move"] or not game["running"] else None

    game: dict[str, Any] = await eventually(ready, "the member's move", every=0.01)
    return game


async def one_game(page: Page) -> dict[str, float]:
    status, body = await page.post("/api/games", {"variant": "ultimate", "difficulty": "easy"})
    assert status == 200, body
    game, game_id = body["game"], body["game"]["id"]
    moves = hints = refused = 0
    waited = 0.0
    began = time.perf_counter()
    while game["running"]:
        while True:
            status, hint = await page.post(f"/api/games/{game_id}/hint", {"ply": game["ply"]})
            if status != 429:
                break
            refused += 1
            waited += hint["retry_after"]
            await asyncio.sleep(hint["retry_after"])
        assert status == 200, hint
        hints += 1
        status, body = await page.post(f"/api/games/{game_id}/move",
                                       {"ply": game["ply"], "cell": hint["cells"][0]})  # fmt: skip
        assert status == 200, body
        moves += 1
        game = await my_turn(page, game_id)
    return {"moves": moves, "hints": hints, "refused": refused, "waited": waited,
            "seconds": time.perf_counter() - began}  # fmt: skip


async def main() -> None:
    emu = DiscordEmulator(validate=False)
    await emu.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            async with bot_with_web(emu, Path(tmp) / "ttt.sqlite3") as (_bot, base, http):
                for n in range(ARGS.games):
                    member = emu.create_user(f"fast{n}")
                    channel = emu.create_channel(emu.guild, f"fast-{n}")
                    page = await sign_in(emu, http, base, member, channel)
                    got = await one_game(page)
                    print(f"game {n + 1}: {got['moves']} moves, {got['hints']} hints, "
                          f"{got['refused']} refused, {got['waited']:.0f} s waited on them, "
                          f"{got['seconds']:.1f} s in all", flush=True)  # fmt: skip
    finally:
        await emu.stop()


if __name__ == "__main__":
    asyncio.run(main())
