"""Puzzles through the emulator, as members play them: today's puzzle solved by clicking
the squares shown, a double click that counts once, Share's one public line, Retry;
a wrong move shown with its refutation and the solution; forged clicks and another
member's attempt refused privately; an ultimate puzzle's board choice; a server that
turned puzzles off, and one whose channels keep Share out.

The bot's puzzle clock is set to a day of the shipped schedule (daily #1 is 2026-12-01,
UTC), so the daily is a known puzzle."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.discord_ui import custom_ids
from engine.puzzles import by_id, daily, judge, main_line, parse_board, reply
from engine.puzzles.play import Verdict

from bot_harness import running_bot, settings_for
from discord_emulator import DiscordEmulator, buttons, text_of

MANAGE_GUILD = 1 << 5
MARKS = {"X": "❌", "O": "⭕", None: "⬜"}
BOARD_EMOJI = ("❌", "⭕", "⬜", "🟨")


def day(number: int) -> float:
    """Noon (UTC) of daily #``number``'s day, as the bot's clock reads it."""
    noon = datetime(2026, 12, 1, 12, tzinfo=UTC) + timedelta(days=number - 1)
    return noon.timestamp()


@pytest.fixture
async def bot(emulator: DiscordEmulator, tmp_path):
    async with running_bot(emulator, settings_for(emulator, tmp_path / "ttt.sqlite3")) as bot:
        bot.puzzles.clock = lambda: day(1)
        yield bot


def clicks(message: dict[str, Any]) -> list[tuple[Any, dict[str, Any]]]:
    """Every button with the click its custom_id stands for (the bot's own grammar)."""
    return [(custom_ids.parse(b["custom_id"]), b) for row in buttons(message) for b in row]


def squares(message: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {c.cell: b for c, b in clicks(message) if isinstance(c, custom_ids.PuzzleCellClick)}


def of_kind(message: dict[str, Any], kind: type) -> dict[str, Any]:
    (found,) = [b for c, b in clicks(message) if isinstance(c, kind)]
    return found


def grid(position: str, size: int) -> list[str]:
    """A board string as the message's rows of emoji."""
    return ["".join(MARKS[{"X": "X", "O": "O"}.get(c)] for c in position[r * size : (r + 1) * size])
            for r in range(size)]  # fmt: skip


def square(cell: int, size: int) -> str:
    return f"{'ABCDE'[cell % size]}{cell // size + 1}"


async def test_the_daily_solved_by_its_squares_counted_once_shared_and_retried(
    emulator: DiscordEmulator, bot
) -> None:
    alice = emulator.create_user("alice")
    puzzle = daily(datetime.fromtimestamp(day(1), UTC).date())
    assert puzzle.id == by_id("5x5-1dd9449752").id and puzzle.n == 4
    res = await emulator.invoke(alice, "ttt puzzle")
    assert res.type == 4 and res.ephemeral
    message = res.message
    lines = text_of(message).splitlines()
    assert lines[0] == "🧩 **Puzzle #1** · 5×5"
    assert lines[1:6] == grid(puzzle.position, 5)
    assert lines[-1] == "You play ❌: win in 4."
    empty = {i for i, c in enumerate(puzzle.position) if c == "."}
    assert {c for c, b in squares(message).items() if not b.get("disabled")} == empty
    line = puzzle.line
    for step in range(3):  # the member's moves of the main line, each answered in place
        res = await emulator.click(alice, message, squares(message)[line[2 * step]]["custom_id"])
        assert res.type == 7 and res.message["id"] == message["id"]
        message = res.message
        said = text_of(message).splitlines()
        assert f"⭕ answered **{square(line[2 * step + 1], 5)}**." in said
        assert said[-1] == f"You play ❌: win in {3 - step}."
    final = squares(message)[line[6]]["custom_id"]
    res = await emulator.click(alice, message, final)
    message = res.message
    said = text_of(message).splitlines()
    assert "✅ **Solved**: ❌ wins in 4/4." in said
    (rating,) = [s for s in said if s.startswith("Puzzle rating: 1500 → ")]
    assert said[-1] == "Daily streak: 1 day."
    assert all(b.get("disabled") for b in squares(message).values())
    retry, share = of_kind(message, custom_ids.RetryClick), of_kind(message, custom_ids.ShareClick)
    assert (retry["label"], share["label"]) == ("Retry", "Share")
    player = await bot.puzzles.player(alice.id)
    assert player is not None and player.solved == 1
    # the same square clicked again (a double click): the message shown again, a private
    # pointer, and no second rating change
    res = await emulator.click(alice, message, final, force=True)
    assert res.type == 7 and text_of(res.message).splitlines() == said
    await res.wait_for_edit()  # the pointer follows the answer
    assert [f["content"] for f in res.followups if f["flags"] & 64] == [
        "This puzzle is over. `/ttt puzzle` starts the next one."
    ]
    assert await bot.puzzles.player(alice.id) == player
    # Share: one public line in the channel, the result and the streak, no squares
    before = len(emulator.channel_messages(emulator.channel))
    res = await emulator.click(alice, message, share["custom_id"])
    assert res.type == 4 and not res.ephemeral
    assert res.content == f"🧩 <@{alice.id}> · ttt puzzle #1 ✅ solved in 4/4 · streak 1"
    assert not any(e in res.content for e in BOARD_EMOJI)
    assert len(emulator.channel_messages(emulator.channel)) == before + 1
    # Retry: the same message, the puzzle from its start, unrated
    res = await emulator.click(alice, message, retry["custom_id"])
    assert res.type == 7 and res.message["id"] == message["id"]
    said = text_of(res.message).splitlines()
    assert said[0] == "🧩 **Puzzle #1** · 5×5 · retry, unrated" and said[-1].endswith("win in 4.")
    # /ttt stats and the puzzle leaderboard
    res = await emulator.invoke(alice, "ttt stats")
    fields = {f["name"]: f["value"] for f in res.embeds[0]["fields"]}
    assert fields["Puzzles"] == (
        f"rating **{round(player.rating.rating)}** · 1 solved of 1 · daily streak 1 (best 1)"
    )
    assert rating.endswith(f"→ {round(player.rating.rating)} (+{round(player.rating.rating) - 1500}).")
    res = await emulator.invoke(alice, "ttt leaderboard", {"game": "puzzles"})
    assert not res.ephemeral and res.embeds[0]["title"] == "Leaderboard: puzzles"
    assert f"1. <@{alice.id}> — **{round(player.rating.rating)}** (1/1 solved)" in (
        res.embeds[0]["description"]
    )
