"""A click on a board is answered by one UPDATE_MESSAGE callback that does not ask Discord
to send the edited message back (bot/discord_ui/update_answer.py); with discord.py's
public ``edit_message`` instead (another discord.py), the same click shows the same."""

from __future__ import annotations

import json
import re

import discord

from bot.discord_ui import update_answer

from bot_harness import (
    accepted_member_game,
    board_of,
    cell_id,
    eventually,
    running_bot,
    settings_for,
)
from discord_emulator import DiscordEmulator


async def test_a_click_is_answered_by_one_update_without_asking_for_the_message_back(
    emulator: DiscordEmulator, tmp_path, monkeypatch
) -> None:
    """The same click on the same game, answered once quietly and once by discord.py's
    ``edit_message``: the bodies are equal (only the query differs), so the internals the
    quiet answer uses build what discord.py's public path builds. A game between members,
    so that no reply of the bot's, shown at once or edited in later, tells them apart."""
    assert update_answer.AVAILABLE  # this discord.py has what the quiet answer uses
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    bodies = {}
    for quiet in (True, False):
        monkeypatch.setattr(update_answer, "AVAILABLE", quiet)
        settings = settings_for(emulator, tmp_path / f"{quiet}.sqlite3")
        async with running_bot(emulator, settings):
            board = await accepted_member_game(emulator, alice, bob)
            res = await emulator.click(alice, board, cell_id(board, 4))
            assert res.type == 7 and not res.ephemeral
            (answer,) = res.answers
            assert answer.method == "POST" and answer.path.endswith("/callback")
            assert answer.body["type"] == 7
            assert ("with_response" in answer.query) is not quiet
            # the turn's deadline is a timestamp, which moves on between the two runs
            bodies[quiet] = re.sub(r"<t:\d+:R>", "<t:…:R>", json.dumps(answer.body))
            assert board_of(emulator.message(board["id"])) == "....X...."
            # answered once: the next click on the new board is answered as well
            after = emulator.message(board["id"])
            again = await emulator.click(bob, after, cell_id(after, 0))
            assert again.type == 7 and len(again.answers) == 1
            assert board_of(emulator.message(board["id"])) == "O...X...."
    assert bodies[True] == bodies[False]


def test_the_internals_are_checked_by_their_parameters(monkeypatch) -> None:
    """A discord.py whose internal takes other parameters (not only one whose name is
    gone) turns the quiet answer off, and the start-up log can say which."""
    assert update_answer.internals_problems() == []

    def renamed(
        *,
        type: int,
        content: str | None = None,
        view: object = None,
        allowed_mentions: object = None,
        previous_mentions: object = None,
    ) -> None:
        """discord.py's function with one parameter renamed."""

    monkeypatch.setattr(update_answer, "interaction_message_response_params", renamed)
    assert update_answer.internals_problems() == [
        "interaction_message_response_params takes no previous_allowed_mentions"
    ]
    monkeypatch.setattr(update_answer, "SLOTS", ((discord.Interaction, "_gone"),))
    assert "Interaction._gone is gone" in update_answer.internals_problems()


async def test_a_failure_after_the_quiet_update_apologises_in_a_follow_up(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """The quiet answer marks the interaction answered, as discord.py's own does: the
    apology for a failure after it is a private follow-up, not a second callback (which
    Discord would refuse: the interaction was acknowledged)."""
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings_for(emulator, tmp_path / "ttt.sqlite3")) as bot:
        start = await emulator.invoke(alice, "ttt start", {"difficulty": "hard", "first": "me"})

        async def broken(*args: object) -> None:
            raise RuntimeError("the turn ping failed")

        bot.router.games.pinger.game_changed = broken  # after the board's update
        res = await emulator.click(alice, start.message, cell_id(start.message, 4))
        assert res.type == 7 and board_of(res.message)[4] == "X"
        await eventually(lambda: len(res.answers) > 1, "an answer after the update")
        callback, followup = res.answers
        assert callback.path.endswith("/callback") and "with_response" not in callback.query
        assert followup.method == "POST" and "/webhooks/" in followup.path
        (apology,) = res.followups
        assert apology["flags"] & 64 and "went wrong" in apology["content"]
