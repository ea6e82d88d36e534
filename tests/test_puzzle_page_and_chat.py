"""One attempt, two places (issue 49, "on the live board too"): a puzzle started in chat
is played to its end on the Activity's page, and the chat's private message, clicked
next, shows it solved (with a private pointer) and counts it once. The real bot, its web
service and the emulator; the bot's puzzle clock on daily #1's day."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from test_bot_puzzles import day, grid, squares

from engine.puzzles import daily

from discord_emulator import DiscordEmulator, text_of
from web_harness import bot_with_web, sign_in


async def test_a_puzzle_solved_on_the_page_is_solved_in_chat_at_its_next_click(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    alice = emulator.create_user("alice")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (bot, base, http):
        bot.puzzles.clock = lambda: day(1)
        puzzle = daily(date(2026, 12, 1))
        assert puzzle.kind == "5x5" and puzzle.n == 4 and puzzle.to_move == "X"
        res = await emulator.invoke(alice, "ttt puzzle")
        assert res.type == 4 and res.ephemeral
        chat = res.message
        assert text_of(chat).splitlines()[1:6] == grid(puzzle.position, 5)

        page = await sign_in(emulator, http, base, alice)
        status, body = await page.get("/api/puzzles")
        assert status == 200 and body["puzzle"]["number"] == 1, body
        attempt = body["puzzle"]["id"]
        for ply in range(0, len(puzzle.line), 2):
            status, body = await page.post(f"/api/puzzles/{attempt}/move",
                                           {"ply": ply, "cell": puzzle.line[ply]})  # fmt: skip
            assert status == 200, body
        assert body["puzzle"]["status"] == "solved"
        player = await bot.puzzles.player(alice.id)
        assert player is not None and (player.solved, player.tried) == (1, 1)

        # the chat's message still shows the start: its first square, clicked now
        res = await emulator.click(alice, chat, squares(chat)[puzzle.first]["custom_id"])
        assert res.type == 7, res.content
        said = text_of(res.message).splitlines()
        assert "✅ **Solved**: ❌ wins in 4/4." in said, said
        assert all(b.get("disabled") for b in squares(res.message).values())
        await res.wait_for_edit()  # the private pointer follows the redraw
        assert [f["content"] for f in res.followups if f["flags"] & 64] == [
            "This puzzle is over. `/ttt puzzle` starts the next one."
        ]
        assert await bot.puzzles.player(alice.id) == player  # counted once
