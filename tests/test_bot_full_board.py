"""A 5×5 board as members see it: a components-v2 message (its squares fill every row a
legacy message may hold) with the same Resign, Rematch and Review buttons as smaller
boards, and its emoji grid kept as text, in every way a game message is sent or edited."""

from __future__ import annotations

import pytest

from bot.discord_ui import custom_ids
from bot.i18n import text
from engine import Board

from bot_harness import board_of, cell_id, running_bot, settings_for, with_marks
from discord_emulator import IS_COMPONENTS_V2, DiscordEmulator, buttons, text_of

MARKS = {"❌": "X", "⭕": "O", "⬜": "."}


def actions(message: dict) -> list[dict]:
    """The buttons that are not squares, in the order shown."""
    return [
        b
        for row in buttons(message)
        for b in row
        if not isinstance(custom_ids.parse(b["custom_id"]), custom_ids.CellClick)
    ]


def grid_of(message: dict, size: int = 5) -> str:
    """The board read back from the message's text (what a text-only client shows), in
    the row-major form of ``Board.to_string``."""
    lines = text_of(message).splitlines()
    rows = [line for line in lines if len(line) == size and set(line) <= set(MARKS)]
    assert len(rows) == size, lines
    return "".join(MARKS[c] for row in rows for c in row)


def assert_layout(message: dict) -> None:
    """A 5×5 game message: flagged v2, no content, one container holding the text, the
    five rows of squares and the action row."""
    assert message["flags"] & IS_COMPONENTS_V2 and message["content"] == ""
    (container,) = message["components"]
    assert container["type"] == 17 and container["components"][0]["type"] == 10
    assert [len(row) for row in buttons(message)] == [5] * 5 + [len(actions(message))]


@pytest.mark.parametrize("locale", ["en-US", "de"])
async def test_a_5x5_game_resigns_then_offers_rematch_and_review(
    emulator: DiscordEmulator, tmp_path, locale: str
) -> None:
    guild = emulator.create_guild("Spiele", locale=locale)
    alice = emulator.create_user("alice", locale=locale, guilds=[guild])
    channel = guild.channels[0]
    async with running_bot(emulator, settings_for(emulator, tmp_path / "ttt.sqlite3")) as bot:
        res = await emulator.invoke(
            alice, "ttt start", {"size": 5, "difficulty": "easy", "first": "me"}, channel=channel
        )
        message = res.message
        assert_layout(message)
        assert [b["label"] for b in actions(message)] == [
            text("button.resign", locale), text("button.hint", locale),
        ]  # fmt: skip
        assert grid_of(message) == board_of(message) == "." * 25

        res = await emulator.click(alice, message, cell_id(message, 12))
        assert res.type == 7
        shown = await with_marks(emulator, res.message, 2)  # the reply may be edited in
        (game,) = await bot.repo.running_games()  # stored before it is shown
        assert game.ply == 2 and game.board[12] == "X"
        assert grid_of(shown) == board_of(shown) == game.board.to_string()

        resign, _hint = actions(shown)
        res = await emulator.click(alice, shown, resign["custom_id"])
        assert res.type == 7 and not res.ephemeral
        ended = res.message
        assert_layout(ended)
        bot_name = text("bot.name", locale, difficulty=text("choice.difficulty.easy", locale))
        resigned = text("game.resigned", locale, loser=f"<@{alice.id}>", winner=bot_name)
        assert text_of(ended).splitlines()[-1] == resigned
        assert grid_of(ended) == game.board.to_string()  # the moves stay on the board
        assert all(b.get("disabled") for row in buttons(ended)[:5] for b in row)
        rematch, review = actions(ended)
        assert [rematch["label"], review["label"]] == [
            text("button.rematch", locale),
            text("button.review", locale),
        ]
        stale = await emulator.click(alice, ended, resign["custom_id"], force=True)
        assert stale.ephemeral and stale.content == text("move.stale", locale)

        res = await emulator.click(alice, ended, review["custom_id"], wait_final=True)
        assert res.ephemeral
        lines = (res.followups[0]["content"] if res.followups else res.content).splitlines()
        assert len(lines) == 1 + 2 + 1  # title, the two moves, the summary
        assert "C3" in lines[1]  # the centre, alice's move

        res = await emulator.click(alice, ended, rematch["custom_id"])
        assert res.type == 4 and res.message["id"] != ended["id"]
        again = res.message
        assert_layout(again)
        vs = text("game.vs", locale, x=bot_name, mark_x="❌", o=f"<@{alice.id}>", mark_o="⭕")
        assert text_of(again).splitlines()[0] == vs  # the sides swapped: the bot opens
        assert Board.from_string(grid_of(again), k=4).move_count == 1
        assert grid_of(again) == board_of(again)


async def test_a_5x5_challenge_becomes_a_layout_and_a_command_repaints_it(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """The legacy challenge message is edited into the layout (its text cleared, as
    Discord requires when the flag is set); /ttt resign repaints it over REST."""
    guild = emulator.create_guild("Jeux", locale="fr")
    alice, bob = (emulator.create_user(n, locale="fr", guilds=[guild]) for n in ("alice", "bob"))
    channel = guild.channels[0]
    async with running_bot(emulator, settings_for(emulator, tmp_path / "ttt.sqlite3")) as bot:
        res = await emulator.invoke(
            alice, "ttt start", {"opponent": bob, "size": 5, "first": "me"}, channel=channel
        )
        challenge = res.message
        assert challenge["content"] and not challenge["flags"] & IS_COMPONENTS_V2
        (accept, _) = actions(challenge)
        res = await emulator.click(bob, challenge, accept["custom_id"])
        assert res.type == 7 and res.message["id"] == challenge["id"]
        message = res.message
        assert_layout(message)
        assert [b["label"] for b in actions(message)] == [text("button.resign", "fr")]

        res = await emulator.click(alice, message, cell_id(message, 0))
        assert res.type == 7
        (game,) = await bot.repo.running_games()
        assert grid_of(res.message) == board_of(res.message) == game.board.to_string()
        assert game.board.to_string() == "X" + "." * 24

        res = await emulator.invoke(bob, "ttt resign", channel=channel)
        assert res.ephemeral
        resigned = text("game.resigned", "fr", loser=f"<@{bob.id}>", winner=f"<@{alice.id}>")
        edited = await emulator.wait_for_message(
            lambda m: m["id"] == message["id"] and resigned in text_of(m), include_existing=True
        )
        assert_layout(edited)
        assert [b["label"] for b in actions(edited)] == [
            text("button.rematch", "fr"),
            text("button.review", "fr"),
        ]
        (patch,) = [
            r.body
            for r in emulator.requests
            if r.method == "PATCH" and r.path.endswith(f"/messages/{message['id']}")
        ]
        assert patch["flags"] == IS_COMPONENTS_V2 and patch["content"] is None


@pytest.mark.slow  # waits seconds for a timer
async def test_a_5x5_move_whose_answer_expired_is_shown_over_rest(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """Discord refused the click's answer (10062): the publisher edits the layout itself."""
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings_for(emulator, tmp_path / "ttt.sqlite3")) as bot:
        res = await emulator.invoke(alice, "ttt start", {"size": 5, "difficulty": "easy",
                                                        "first": "me"})  # fmt: skip
        message = res.message
        emulator.faults.add("POST", r"^/interactions/\d+/[^/]+/callback$", 404, code=10062)
        res = await emulator.click(alice, message, cell_id(message, 6))
        assert res.type is None
        shown = await emulator.wait_for_message(
            lambda m: m["id"] == message["id"] and "X" in board_of(m), include_existing=True
        )
        (game,) = await bot.repo.running_games()
        assert_layout(shown)
        assert grid_of(shown) == board_of(shown) == game.board.to_string()
        assert game.board[6] == "X" and game.ply == 2
    unanswered = [v for v in emulator.violations if "no initial response" in v]
    assert len(unanswered) == len(emulator.violations) == 1
    emulator.violations.clear()
