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

from bot.core.puzzles.models import Attempt, PuzzleView
from bot.discord_ui import custom_ids, render_puzzle
from bot.discord_ui.render_common import CLASSIC
from bot.i18n import text as text_of_key
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
    again = await emulator.click(alice, message, share["custom_id"])  # once per attempt
    assert again.ephemeral and again.content == (
        "You already shared this puzzle: one line per puzzle."
    )
    assert len(emulator.channel_messages(emulator.channel)) == before + 1
    # a puzzle's button forged onto that public line is refused, and it stays as it is
    shared = res.message
    res = await emulator.click(alice, shared, retry["custom_id"], force=True)
    assert res.ephemeral and res.content == text_of_key("move.stale")
    assert emulator.message(shared["id"]) == shared
    # Retry: the same message, the puzzle from its start, unrated
    res = await emulator.click(alice, message, retry["custom_id"])
    assert res.type == 7 and res.message["id"] == message["id"]
    said = text_of(res.message).splitlines()
    assert said[0] == "🧩 **Puzzle #1** · 5×5 · retry, unrated" and said[-1].endswith("win in 4.")
    # /ttt puzzle again: the open attempt, resumed in a new private message
    res = await emulator.invoke(alice, "ttt puzzle", {"mode": "training"})
    assert res.ephemeral and text_of(res.message).splitlines()[:2] == [
        said[0],
        "Your puzzle was still open: here it is again.",
    ]
    # /ttt stats and the puzzle leaderboard
    res = await emulator.invoke(alice, "ttt stats")
    fields = {f["name"]: f["value"] for f in res.embeds[0]["fields"]}
    assert fields["Puzzles"] == (
        f"rating **{round(player.rating.rating)}** · 1 solved of 1 · daily streak 1 (best 1)"
    )
    assert rating.endswith(
        f"→ {round(player.rating.rating)} (+{round(player.rating.rating) - 1500})."
    )
    res = await emulator.invoke(alice, "ttt leaderboard", {"game": "puzzles"})
    assert not res.ephemeral and res.embeds[0]["title"] == "Leaderboard: puzzles"
    # one rated puzzle: a provisional rating, counted but not ranked
    assert res.embeds[0]["description"].splitlines()[1:] == [
        "Nobody here has an established puzzle rating yet.",
        "Not ranked yet: 1 member with a provisional rating (deviation above 110: about a"
        " dozen rated puzzles settle it).",
    ]


async def test_a_wrong_move_in_a_dm_and_clicks_that_are_not_the_members(
    emulator: DiscordEmulator, transport: str, bot
) -> None:
    """Daily #7 is a 3×3 win in 2 for ⭕ (unrated): a move that gives the win away is
    answered by its refutation, and the solution is shown as the review words moves."""
    bot.puzzles.clock = lambda: day(7)
    puzzle = by_id("3x3-c420726e00")
    board = parse_board(puzzle.kind, puzzle.position)
    wrong = next(c for c in board.legal_moves() if judge(board, c, 2) is Verdict.WRONG)
    refutation = reply(board.play(wrong), 1)
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    res = await emulator.invoke(alice, "ttt puzzle", channel=emulator.open_dm(alice))
    assert res.ephemeral
    message = res.message
    said = text_of(message).splitlines()
    assert said == ["🧩 **Puzzle #7** · 3×3 · unrated", *grid(puzzle.position, 3),
                    "You play ⭕: win in 2."]  # fmt: skip
    mine = next(c for c, _ in clicks(message)).attempt_id
    theirs = await emulator.invoke(bob, "ttt puzzle")
    bobs = next(c for c, _ in clicks(theirs.message)).attempt_id
    # forged: an attempt that does not exist, bob's, a square that is taken; an id that is
    # no puzzle's at all: each refused privately, nothing played
    for forged, answer in [
        (custom_ids.puzzle_cell(bobs + mine + 7, 0, wrong), "puzzle.unknown"),
        (custom_ids.puzzle_cell(bobs, 0, wrong), "puzzle.not_yours"),
        (custom_ids.puzzle_cell(mine, 0, puzzle.position.index("X")), "puzzle.bad_cell"),
        ("ttt:p:1:2", "move.stale"),
    ]:
        res = await emulator.click(alice, message, forged, force=True)
        assert res.ephemeral and res.content == text_of_key(answer), forged
    assert emulator.message(message["id"]) == message
    assert emulator.message(theirs.message["id"]) == theirs.message
    assert (await bot.puzzles.show(bob.id, bobs)).attempt.moves == ()
    # the wrong move: the refuting reply and the solution; answered late (the service
    # taking longer than the controller waits): deferred, then the message edited
    bot.router.puzzles.patience = 0.0
    res = await emulator.click(alice, message, squares(message)[wrong]["custom_id"],
                               wait_final=True)  # fmt: skip
    assert res.type == 6
    said = text_of(emulator.message(message["id"])).splitlines()
    solution = " · ".join(
        f"{i + 1}. {'⭕❌'[i % 2]} {square(c, 3)}" for i, c in enumerate(main_line(board, 2))
    )
    assert said[4:] == [
        "🚫 **Not this one**: that move gives the win away.",
        f"❌ answers **{square(refutation, 3)}**.",
        f"Solution: {solution}",
        "Columns A–C from the left, rows 1–3 from the top.",
        "Daily streak: 0 days.",
    ]
    assert said[1:4] == grid(board.play(wrong).play(refutation).to_string(), 3)
    labels = {b.get("label") for c, b in clicks(emulator.message(message["id"]))}
    assert {"Retry", "Share"} <= labels
    res = await emulator.invoke(alice, "ttt help", channel=emulator.open_dm(alice))
    await res.wait_for_edit(count=2)  # the help's second and third messages
    assert "**Puzzles** (`/ttt puzzle`, privately)" in res.followups[-1]["content"]


async def test_retry_on_an_old_message_leaves_an_open_rated_puzzle_alone(
    emulator: DiscordEmulator, bot
) -> None:
    """Daily #7 (3×3, unrated) failed; then a rated 4×4 training puzzle opened: Retry on
    the old daily's message is refused privately, naming the open puzzle, and the
    training puzzle and the rating stay as they were."""
    bot.puzzles.clock = lambda: day(7)
    alice = emulator.create_user("alice")
    res = await emulator.invoke(alice, "ttt puzzle")
    old = res.message
    board = parse_board("3x3", by_id("3x3-c420726e00").position)
    wrong = next(c for c in board.legal_moves() if judge(board, c, 2) is Verdict.WRONG)
    old = (await emulator.click(alice, old, squares(old)[wrong]["custom_id"])).message
    res = await emulator.invoke(alice, "ttt puzzle", {"mode": "training", "board": "4x4"})
    training = next(c for c, _ in clicks(res.message)).attempt_id
    before = await bot.puzzles.player(alice.id)
    res = await emulator.click(alice, old, of_kind(old, custom_ids.RetryClick)["custom_id"])
    assert res.ephemeral and res.content == (
        "Your rated 4×4 training puzzle is still open, and a Retry now would count it as"
        " failed. Finish it first (`/ttt puzzle` shows it), then Retry."
    )
    assert emulator.message(old["id"]) == old
    shown = (await bot.puzzles.show(alice.id, training)).attempt
    assert shown.rated and not shown.over and shown.moves == ()
    assert await bot.puzzles.player(alice.id) == before


async def test_an_ultimate_board_choice_and_a_server_that_keeps_puzzles_out(
    emulator: DiscordEmulator, bot
) -> None:
    """Daily #2 is ultimate, a free move first: the member looks into a board (nothing
    stored), goes back, plays through it; then the server keeps Share to another channel
    and turns puzzles off."""
    bot.puzzles.clock = lambda: day(2)
    puzzle = by_id("ultimate-f544f418c8")
    line = puzzle.line
    admin, alice = emulator.create_user("admin"), emulator.create_user("alice")
    admin.permissions = MANAGE_GUILD
    bot.router.puzzles.patience = 0.0  # answered late: "thinking", then the puzzle
    res = await emulator.invoke(alice, "ttt puzzle", wait_final=True)
    bot.router.puzzles.patience = 1.0
    assert res.type == 5 and res.ephemeral
    message = res.message
    assert text_of(message).splitlines()[-1] == "You play ❌: win in 3."
    assert not squares(message) and len(boards(message)) == 9
    res = await emulator.click(alice, message, boards(message)[line[0] // 9]["custom_id"])
    assert res.type == 7 and sorted(squares(res.message)) == list(range(36, 45))
    assert not boards(res.message)
    stored = await bot.puzzles.show(alice.id, of_attempt(message))
    back = of_kind(res.message, custom_ids.PuzzleBoardClick)
    res = await emulator.click(alice, res.message, back["custom_id"])
    assert res.type == 7 and len(boards(res.message)) == 9 and not squares(res.message)
    assert await bot.puzzles.show(alice.id, of_attempt(message)) == stored
    for step, cell in enumerate(line[::2]):
        res = await play(emulator, alice, message, cell)
        assert res.type == 7
        if step < 2:
            assert f"win in {2 - step}." in text_of(res.message).splitlines()[-1]
    assert "✅ **Solved**: ❌ wins in 3/3." in text_of(res.message).splitlines()
    share = of_kind(res.message, custom_ids.ShareClick)["custom_id"]
    # Share where the server plays in another channel only: refused privately
    games = emulator.create_channel(emulator.guild.id, "games")
    await emulator.invoke(admin, "ttt config", {"allow_channel": games})
    before = emulator.channel_messages(emulator.channel)
    res = await emulator.click(alice, res.message, share)
    assert (
        res.ephemeral
        and res.content == f"Puzzle results are shared in <#{games.id}> on this server."
    )
    assert emulator.channel_messages(emulator.channel) == before
    # puzzles turned off: /ttt puzzle refused privately (shown so in /ttt config)
    res = await emulator.invoke(admin, "ttt config", {"puzzles": False})
    assert {f["name"]: f["value"] for f in res.embeds[0]["fields"]}["Puzzles"] == "no"
    res = await emulator.invoke(alice, "ttt puzzle", channel=games)
    assert res.ephemeral and res.content == text_of_key("puzzle.off")


def boards(message: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {
        c.board: b
        for c, b in clicks(message)
        if isinstance(c, custom_ids.PuzzleBoardClick) and c.board is not None
    }


def of_attempt(message: dict[str, Any]) -> int:
    return int(next(c for c, _ in clicks(message)).attempt_id)


async def play(emu: DiscordEmulator, user: Any, message: dict[str, Any], cell: int) -> Any:
    """``cell`` played as a member plays it: its square when shown, else (a free move) its
    small board, then the square."""
    current = emu.message(message["id"])
    if cell not in squares(current):
        res = await emu.click(user, current, boards(current)[cell // 9]["custom_id"])
        assert res.type == 7, res.content
        current = res.message
    return await emu.click(user, current, squares(current)[cell]["custom_id"])


def test_the_puzzle_custom_ids_round_trip() -> None:
    big = 2**63 - 1
    cases = [
        (custom_ids.puzzle_cell(big, 999, 80), custom_ids.PuzzleCellClick(big, 999, 80)),
        (custom_ids.puzzle_board(big, 999, 8), custom_ids.PuzzleBoardClick(big, 999, 8)),
        (custom_ids.puzzle_back(big, 999), custom_ids.PuzzleBoardClick(big, 999, None)),
        (custom_ids.retry(big), custom_ids.RetryClick(big)),
        (custom_ids.share(big), custom_ids.ShareClick(big)),
    ]
    for written, click in cases:
        assert custom_ids.parse(written) == click and len(written) < 100
    for bad in ("ttt:p:1:2", "ttt:pu:1:2:9", "ttt:pb:1", "ttt:pr:x", "ttt:ps:1:2", "ttt:p:-1:0:0"):
        assert custom_ids.parse(bad) is None, bad


def test_a_withdrawn_puzzle_says_why_and_offers_no_retry() -> None:
    """An attempt closed because a regenerated set dropped its puzzle: the message says
    so, unrated, with neither Retry nor Share (nothing to retry)."""
    gone = Attempt(
        5, 1, "5x5-0000000000", "5x5", "training", "." * 25, "X", 3, False, 0.0, None,
        status="failed", outcome="withdrawn", finished_at=1.0,
    )  # fmt: skip
    view = PuzzleView(gone, gone.position, 3)
    said = render_puzzle.content(view, "en", CLASSIC).splitlines()
    assert said[0] == "🧩 **Training puzzle** · 5×5 · unrated"
    assert said[-1] == (
        "🗂️ **Withdrawn**: this puzzle is no longer in ttt's set, so it was closed, unrated,"
        " and counts nowhere. `/ttt puzzle` starts the next one."
    )
    assert render_puzzle.end_actions(view, "en") == []
