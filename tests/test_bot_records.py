"""Players' records through the emulator: stats, leaderboard, history, review, forget-me."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.core.rating import INITIAL_RATING, elo_update
from engine import Board, get_agent

from bot_harness import (
    accepted_member_game,
    board_of,
    cell_id,
    running_bot,
    settings_for,
    with_marks,
)
from core_harness import independent_elo
from discord_emulator import DiscordEmulator, find_button


def test_elo_winner_up_loser_down_sum_kept() -> None:
    for ra, rb in [(1000, 1000), (1200, 1000), (900, 1300)]:
        for score in (1.0, 0.5, 0.0):
            new_a, new_b = elo_update(ra, rb, score)
            assert (new_a, new_b) == pytest.approx(independent_elo(ra, rb, score))
            assert new_a + new_b == pytest.approx(ra + rb)
            if score == 1.0:
                assert new_a > ra and new_b < rb
            if score == 0.0:
                assert new_a < ra and new_b > rb
    assert elo_update(1000, 1000, 1.0) == (1016.0, 984.0)
    with pytest.raises(ValueError):
        elo_update(1000, 1000, 2.0)


@pytest.fixture
async def bot(emulator: DiscordEmulator, tmp_path):
    async with running_bot(emulator, settings_for(emulator, tmp_path / "ttt.sqlite3")) as bot:
        yield bot


async def member_game(emu, challenger, opponent, first: str, script: list[int]) -> dict:
    """Play ``script`` (cells in order) in a member game; returns the final message."""
    message = await accepted_member_game(emu, challenger, opponent, first)
    x, o = (challenger, opponent) if first == "me" else (opponent, challenger)
    for i, cell in enumerate(script):
        res = await emu.click(x if i % 2 == 0 else o, message, cell_id(message, cell))
        assert res.type == 7, res.content
        message = res.message
    return message


async def resign(emu, user, message: dict) -> dict:
    res = await emu.click(user, message, find_button(message, label="Resign")["custom_id"])
    assert res.type == 7
    return res.message


def embed_fields(res) -> dict[str, str]:
    (embed,) = res.embeds
    return {f["name"]: f["value"] for f in embed.get("fields", [])}


async def test_a_scripted_series(emulator: DiscordEmulator, bot) -> None:
    alice, bob, carol = (emulator.create_user(n) for n in ("alice", "bob", "carol"))
    games = [
        await member_game(emulator, alice, bob, "me", [0, 3, 1, 4, 2]),  # alice wins a line
        await member_game(emulator, alice, bob, "opponent", [0, 3, 1, 4, 2]),  # bob wins
        await resign(emulator, bob, await member_game(emulator, alice, bob, "me", [4])),
        await member_game(emulator, alice, bob, "me", [0, 4, 8, 1, 7, 6, 2, 5, 3]),  # draw
    ]
    assert "Draw" in games[-1]["content"]
    # alice resigns against hard; carol draws unbeatable by playing perfectly herself
    res = await emulator.invoke(alice, "ttt start", {"difficulty": "hard", "first": "me"})
    games.append(await resign(emulator, alice, res.message))
    res = await emulator.invoke(carol, "ttt start", {"difficulty": "unbeatable", "first": "me"})
    message, perfect = res.message, get_agent("hard", seed=3)
    while not (board := Board.from_string(board_of(message))).is_over():
        message = (
            await emulator.click(carol, message, cell_id(message, perfect.choose(board)))
        ).message
    assert board.outcome() == "draw"

    # stats: alice 2-1-1 against members, 0-1-0 against hard; last game lost, best streak 1
    res = await emulator.invoke(alice, "ttt stats")
    assert res.ephemeral
    fields = embed_fields(res)
    assert fields["Against members"] == "2 wins · 1 loss · 1 draw"
    assert fields["Against the bot (hard)"] == "0 wins · 1 loss · 0 draws"
    assert fields["Win streak"] == "current 0 · best 1"
    # her rating over the four rated games: as text, and as a chart attached to the embed
    a, b, series = INITIAL_RATING, INITIAL_RATING, [INITIAL_RATING]
    for score in (1.0, 0.0, 1.0, 0.5):
        a, b = independent_elo(a, b, score)
        series.append(a)
    assert fields["Rating"] == (
        f"**{round(a)}** now, from 1000 over 4 rated games "
        f"(lowest {round(min(series))}, highest {round(max(series))})."
    )
    (attachment,) = res.message["attachments"]
    assert attachment["filename"] == "rating.png"
    assert res.embeds[0]["image"]["url"] == attachment["url"]
    chart = Image.open(io.BytesIO(emulator.attachment(res.message, "rating.png")))
    assert (chart.format, chart.size) == ("PNG", (480, 220))
    assert embed_fields(await emulator.invoke(alice, "ttt stats", {"member": carol})) == {
        "Against the bot (unbeatable)": "0 wins · 0 losses · 1 draw",
        "Win streak": "current 0 · best 0",
    }

    # the leaderboard: Elo computed here independently, game by game
    a = b = INITIAL_RATING
    for score in (1.0, 0.0, 1.0, 0.5):
        a, b = independent_elo(a, b, score)
    res = await emulator.invoke(bob, "ttt leaderboard")
    assert not res.ephemeral
    (embed,) = res.embeds
    rows = embed["description"].splitlines()[1:]
    assert rows == [
        f"1. <@{alice.id}> — **{round(a)}** (2-1-1)",
        f"2. <@{bob.id}> — **{round(b)}** (1-2-1)",
    ]
    fields = embed_fields(res)
    assert fields["Your rank"] == f"#2 — {round(b)} (1-2-1)"
    assert fields["Best against unbeatable (W-L-D)"] == f"1. <@{carol.id}> — 0-0-1"
    assert fields["Best against hard (W-L-D)"] == f"1. <@{alice.id}> — 0-1-0"
    stored = await bot.repo.leaderboard(emulator.guild.id, 10)
    assert sum(r.rating for r in stored) == pytest.approx(2 * INITIAL_RATING)
    res = await emulator.invoke(carol, "ttt leaderboard")
    assert embed_fields(res)["Your rank"].startswith("Not rated yet")

    # history: newest first, with result, opponent, how it ended and a link to the game
    res = await emulator.invoke(bob, "ttt history", {"member": alice})
    (embed,) = res.embeds
    lines = embed["description"].splitlines()
    assert [line.split(" — ")[0] for line in lines] == [
        "**Loss** vs the bot (hard)",
        f"**Draw** vs <@{bob.id}>",
        f"**Win** vs <@{bob.id}>",
        f"**Loss** vs <@{bob.id}>",
        f"**Win** vs <@{bob.id}>",
    ]
    assert "resignation" in lines[0] and "a full board" in lines[1] and "a line" in lines[4]
    for line, game in zip(lines, reversed(games), strict=True):
        assert line.endswith(f"/{emulator.channel.id}/{game['id']})")


async def test_review_marks_the_blunder_and_the_best_move(emulator: DiscordEmulator, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    # X corner, O answers on an edge (the losing reply: only the centre draws), X forks
    message = await member_game(emulator, alice, bob, "me", [0, 1, 4, 8, 6, 3, 2])
    assert f"**<@{alice.id}> wins**" in message["content"]
    res = await emulator.click(bob, message, find_button(message, label="Review")["custom_id"])
    assert res.ephemeral and res.type == 4
    lines = res.content.splitlines()
    assert lines[1] == "1. ❌ A1 — keeps the draw"
    assert lines[2] == "2. ⭕ B1 — **blunder**: turns a draw into a loss. Best: B2."
    assert all("blunder" not in line and "mistake" not in line for line in lines[3:-1])
    assert lines[-1] == "1 move changed the result under perfect play."
    # /ttt review gives the caller's last game, the same review
    res2 = await emulator.invoke(alice, "ttt review")
    assert res2.ephemeral and res2.content == res.content


async def test_forget_me_asks_then_deletes(emulator: DiscordEmulator, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    await member_game(emulator, alice, bob, "me", [0, 3, 1, 4, 2])
    res = await emulator.invoke(alice, "ttt forget-me")
    assert res.ephemeral and "cannot be undone" in res.content
    kept = await emulator.click(
        alice, res.message, find_button(res.message, label="Keep it")["custom_id"]
    )
    assert kept.content == "Nothing was deleted."
    assert (await emulator.invoke(alice, "ttt stats")).embeds  # still there
    res = await emulator.invoke(alice, "ttt forget-me")
    done = await emulator.click(
        alice, res.message, find_button(res.message, label="Delete my data")["custom_id"]
    )
    assert done.content == "Done: 1 game and your ratings are deleted."
    res = await emulator.invoke(alice, "ttt stats")
    assert res.ephemeral and "no finished games" in res.content
    assert await bot.repo.rank_of(emulator.guild.id, alice.id) is None
    # bob's rating stays; his game with alice went with her data
    assert await bot.repo.rank_of(emulator.guild.id, bob.id) is not None
    assert await bot.repo.finished_games_of(emulator.guild.id, bob.id) == []


async def test_forget_me_waits_for_a_running_game(emulator: DiscordEmulator, bot) -> None:
    alice = emulator.create_user("alice")
    await emulator.invoke(alice, "ttt start", {"first": "me"})
    res = await emulator.invoke(alice, "ttt forget-me")
    done = await emulator.click(
        alice, res.message, find_button(res.message, label="Delete my data")["custom_id"]
    )
    assert done.ephemeral and "Finish or resign your running game first" in done.content


@pytest.mark.slow  # starts the review worker and waits out the patience
async def test_a_4x4_game_is_reviewed_after_a_thinking_answer(emulator, bot) -> None:
    alice = emulator.create_user("alice")
    res = await emulator.invoke(
        alice, "ttt start", {"first": "me", "size": 4, "difficulty": "easy"}
    )
    res = await emulator.click(alice, res.message, cell_id(res.message, 5))
    board = await with_marks(emulator, res.message, 2)  # the reply may be edited in
    res = await emulator.click(alice, board, find_button(board, label="Resign")["custom_id"])
    review = find_button(res.message, label="Review")
    assert review is not None  # 4×4 boards have room for the action row
    res = await emulator.click(alice, res.message, review["custom_id"], wait_final=True)
    assert res.type == 5 and res.ephemeral  # "thinking", then the review
    content = res.followups[0]["content"] if res.followups else res.content
    lines = content.splitlines()
    assert "Review" in lines[0] and len(lines) == 1 + 2 + 1  # title, two moves, summary
    assert "B2" in lines[1] and "keeps the draw" in lines[1]
