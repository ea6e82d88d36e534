"""Hints through the emulator: the Hint button, the private answer (squares, reasons,
the lit grid), the game marked in its board and in /ttt history, kept out of the best
records, and who is refused, in the clicker's language."""

from __future__ import annotations

import asyncio

import pytest

from bot.discord_ui import custom_ids
from bot.i18n import text as text_of
from bot.settings import Settings, SettingsError
from engine import Board, sparse

import exact_reference
from bot_harness import TOKEN, board_of, cell_id, running_bot, settings_for, with_marks
from discord_emulator import DiscordEmulator, buttons

MANAGE_GUILD = 1 << 5


def square(cell: int, size: int) -> str:
    """A square as members read it: column letter from the left, row number from the top."""
    return f"{'ABCDE'[cell % size]}{cell // size + 1}"


def hint_button(message: dict) -> dict | None:
    found = [
        b
        for row in buttons(message)
        for b in row
        if isinstance(custom_ids.parse(b["custom_id"]), custom_ids.HintClick)
    ]
    return found[0] if found else None


def lit(content: str, size: int) -> list[int]:
    """The squares lit on the hint's grid (the lines after the title)."""
    rows = content.splitlines()[1 : 1 + size]
    cells = [ch for row in rows for ch in row if ch not in "\ufe0f"]
    assert len(cells) == size * size, rows
    return [i for i, ch in enumerate(cells) if ch == "🟩"]


@pytest.fixture
async def bot(emulator: DiscordEmulator, tmp_path):
    async with running_bot(emulator, settings_for(emulator, tmp_path / "ttt.sqlite3")) as bot:
        yield bot


async def corner_openings(emu: DiscordEmulator, user, channel=None) -> tuple[dict, int]:
    """Against hard as X: a corner (hard must take the centre), the opposite corner (hard
    takes an edge). Returns the board and the bot's edge, whose line the member must block."""
    res = await emu.invoke(user, "ttt start", {"difficulty": "hard", "first": "me"}, channel)
    res = await emu.click(user, res.message, cell_id(res.message, 0))
    res = await emu.click(user, res.message, cell_id(res.message, 8))
    board = board_of(res.message)
    assert board[4] == "O" and board.count("O") == 2
    (edge,) = [c for c in (1, 3, 5, 7) if board[c] == "O"]
    return res.message, edge


BLOCK = {
    "en-US": ("💡 **Hint** for ❌, just for you:",
              "blocks the line the bot would complete next move; keeps the draw.",
              "💡 Played with a hint.", " · 💡 with a hint", "Best against hard"),
    "fr": ("💡 **Indice** pour ❌, rien que pour toi :",
           "bloque la ligne que le bot compléterait au coup suivant ; garde le nul.",
           "💡 Jouée avec un indice.", " · 💡 avec un indice", "Meilleurs contre difficile"),
}  # fmt: skip
"""What a member and the server of each language read: the hint's title and its block
line (private), the board's mark (public), the history row's mark (private), and the
heading of the best records against hard (public)."""


@pytest.mark.parametrize("locale", BLOCK)
async def test_a_hint_names_the_block_and_the_game_is_marked(
    emulator: DiscordEmulator, bot, locale: str
) -> None:
    title, block, marked, history, best_vs_hard = BLOCK[locale]
    guild = emulator.create_guild("Server", locale=locale)  # public messages in its language
    channel = guild.channels[0]
    alice = emulator.create_user("alice", locale=locale, guilds=[guild])
    bob = emulator.create_user("bob", locale=locale, guilds=[guild])
    await emulator.wait_until_ready()
    message, edge = await corner_openings(emulator, alice, channel)
    resign, hint = (custom_ids.parse(b["custom_id"]) for b in buttons(message)[3])
    assert isinstance(resign, custom_ids.ResignClick)  # the action row under the board
    assert hint == custom_ids.HintClick(resign.game_id, 4)
    res = await emulator.click(alice, message, custom_ids.hint(resign.game_id, 4))
    assert res.type == 4 and res.ephemeral
    threat = 8 - edge  # the bot's line through the centre
    assert res.content.splitlines()[0] == title
    assert lit(res.content, 3) == [threat]
    assert f"**{square(threat, 3)}** — {block}" in res.content.splitlines()
    # the game is marked: on its board from the next move, in history, not in the records
    res = await emulator.click(alice, message, cell_id(message, threat))
    assert res.type == 7 and res.message["content"].splitlines()[-1] == marked
    res = await emulator.click(alice, res.message, buttons(res.message)[3][0]["custom_id"])
    assert res.type == 7  # resigned
    other = await emulator.invoke(bob, "ttt start", {"difficulty": "hard", "first": "me"}, channel)
    await emulator.click(bob, other.message, buttons(other.message)[3][0]["custom_id"])
    res = await emulator.invoke(alice, "ttt history", channel=channel)
    assert res.embeds[0]["description"].endswith(history)
    res = await emulator.invoke(bob, "ttt history", channel=channel)
    assert "💡" not in res.embeds[0]["description"]
    res = await emulator.invoke(alice, "ttt leaderboard", channel=channel)
    (hard,) = [f for f in res.embeds[0]["fields"] if f["name"].startswith(best_vs_hard)]
    assert f"<@{bob.id}>" in hard["value"] and f"<@{alice.id}>" not in hard["value"]


async def test_only_the_player_to_move_gets_a_hint(emulator: DiscordEmulator, bot) -> None:
    alice = emulator.create_user("alice")
    klaus = emulator.create_user("klaus", locale="de")
    res = await emulator.invoke(alice, "ttt start", {"difficulty": "easy", "first": "me"})
    hint = hint_button(res.message)
    assert hint is not None
    refused = await emulator.click(klaus, res.message, hint["custom_id"])
    assert refused.ephemeral and refused.content.startswith("Nur wer in diesem Spiel spielt")
    # a member game has no Hint button
    duel = emulator.create_channel(emulator.guild.id, "duel")
    res = await emulator.invoke(klaus, "ttt start", {"opponent": alice, "first": "me"}, duel)
    assert hint_button(res.message) is None


async def test_hints_turned_off_by_config_and_after_a_restart(
    emulator: DiscordEmulator, tmp_path
) -> None:
    admin = emulator.create_user("admin", locale="de")
    admin.permissions = MANAGE_GUILD
    alice = emulator.create_user("alice", locale="de")
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3")
    async with running_bot(emulator, settings):
        game = await emulator.invoke(alice, "ttt start", {"difficulty": "easy", "first": "me"})
        hint = hint_button(game.message)
        assert hint is not None
        res = await emulator.invoke(admin, "ttt config", {"hints": False})
        fields = {f["name"]: f["value"] for f in res.embeds[0]["fields"]}
        assert fields["Tipps"] == "nein"
        # the button still on the board is refused, privately, and marks nothing
        res = await emulator.click(alice, game.message, hint["custom_id"])
        assert res.ephemeral and res.content == "Tipps sind auf diesem Server ausgeschaltet."
    async with running_bot(emulator, settings):
        res = await emulator.click(alice, game.message, cell_id(game.message, 4))
        assert res.type == 7 and hint_button(res.message) is None
        assert "💡" not in res.message["content"]
        res = await emulator.invoke(admin, "ttt config")
        assert {f["name"]: f["value"] for f in res.embeds[0]["fields"]}["Tipps"] == "nein"


async def test_a_4x4_hint_comes_after_a_thinking_answer(emulator: DiscordEmulator, bot) -> None:
    alice = emulator.create_user("alice")
    res = await emulator.invoke(
        alice, "ttt start", {"first": "me", "size": 4, "difficulty": "easy"}
    )
    res = await emulator.click(alice, res.message, cell_id(res.message, 5))
    board = await with_marks(emulator, res.message, 2)  # the reply may be edited in
    text = board_of(board)
    hint = hint_button(board)
    assert hint is not None and buttons(board)[4][1] == hint  # beside Resign
    res = await emulator.click(alice, board, hint["custom_id"], wait_final=True)
    assert res.type == 5 and res.ephemeral  # "thinking", then the hint
    content = res.followups[0]["content"] if res.followups else res.content
    value, keeping = exact_reference.Solver(4, 4).keeping(text)
    shown = lit(content, 4)
    assert shown and set(shown) <= keeping
    named = [line for line in content.splitlines() if "—" in line]
    assert all(f"**{square(c, 4)}**" in "".join(named) for c in shown)
    assert Board.from_string(text).move_count == 2 and value == 0


def test_the_hints_default_comes_from_the_environment() -> None:
    assert Settings.from_env({"DISCORD_TOKEN": TOKEN}).policy.hints is True
    assert Settings.from_env({"DISCORD_TOKEN": TOKEN, "TTT_HINTS": "off"}).policy.hints is False
    with pytest.raises(SettingsError, match="TTT_HINTS"):
        Settings.from_env({"DISCORD_TOKEN": TOKEN, "TTT_HINTS": "sometimes"})


def test_the_hint_custom_id_round_trips() -> None:
    biggest = custom_ids.hint(2**63 - 1, 999)
    assert custom_ids.parse(biggest) == custom_ids.HintClick(2**63 - 1, 999)
    assert len(biggest) < 100
    assert custom_ids.parse("ttt:h:12") is None and custom_ids.parse("ttt:h:12:3:4") is None


@pytest.mark.slow
async def test_the_hint_worker_starts_with_the_bot_and_an_open_5x5_hint_lists_every_square(
    emulator: DiscordEmulator, tmp_path
) -> None:
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3", warm_workers=True)
    async with running_bot(emulator, settings) as bot:
        assert bot.warming is not None
        # two niced workers read the 5×5 tables (4-5 s of CPU each): on a busy machine a
        # minute is not always enough, so the ceiling is only a safety net
        await asyncio.wait_for(bot.warming, 300)
        assert bot.hints.worker_pids() and bot.reviews.worker_pids()  # before any click
        alice = emulator.create_user("alice")
        res = await emulator.invoke(
            alice, "ttt start", {"first": "me", "size": 5, "difficulty": "easy"}
        )
        res = await emulator.click(alice, res.message, cell_id(res.message, 0))
        shown = await with_marks(emulator, res.message, 2)  # the reply may be edited in
        text = board_of(shown)
        board = Board.from_string(text, 4)
        assert board.move_count == 2
        res = await emulator.click(alice, shown, hint_button(shown)["custom_id"],  # type: ignore[index]
                                   wait_final=True)  # fmt: skip
        content = res.followups[0]["content"] if res.followups else res.content
        # two marks: every reply's value is in the sparse table, so the hint is complete
        keeping = set()
        for cell in board.legal_moves():
            value, _ = sparse.lookup(board.play(cell))  # type: ignore[misc]
            if -value == sparse.lookup(board)[0]:  # type: ignore[index]
                keeping.add(cell)
        assert set(lit(content, 5)) == keeping
        assert text_of("hint.partial") not in content
