"""Interactions that reach the bot after Discord's window closed (a bot starved of CPU
reads its gateway late): Discord refuses their answer as unknown (10062), and the bot
tries no other, neither a second response nor a follow-up through the token; what they
changed still reaches the channel's message, which the bot edits on its own account."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.discord_ui import custom_ids
from bot.i18n import text
from engine import Board

from bot_harness import board_of, cell_buttons, cell_id, eventually, running_bot, settings_for
from discord_emulator import DiscordEmulator, InteractionResult, buttons, text_of
from discord_emulator.state import DEFAULT_PERMISSIONS, PERM_MANAGE_GUILD

DEADLINE = 1.5
"""Discord's 3 s, shortened so each test waits less; the bot never reads it."""
LAG = DEADLINE + 0.3
"""How late a late interaction reaches the bot."""


@pytest.fixture
def settings(emulator: DiscordEmulator, tmp_path):
    emulator.interaction_deadline = DEADLINE
    # defer_after 0: a move against the bot is shown before its reply, by a first answer
    return settings_for(emulator, tmp_path / "ttt.sqlite3", defer_after=0.0)


async def late(emulator: DiscordEmulator, act) -> InteractionResult:
    """``act`` (an invoke or a click) reaching the bot :data:`LAG` seconds late; returns
    once the bot has tried to answer it and a moment more, for any other try to land."""
    emulator.lag = LAG
    try:
        res = await act
    finally:
        emulator.lag = 0.0
    assert res.type is None  # nothing answered in time: the member saw it fail
    await eventually(lambda: res.answers, "the bot's try to answer")
    await asyncio.sleep(0.5)  # wait-ok: checks that no other try lands (an absence)
    return res


def refused_once(
    emulator: DiscordEmulator, res: InteractionResult, caplog: pytest.LogCaptureFixture
) -> None:
    """One answer was tried, refused as unknown; no other, and no error logged for it
    (the emulator's record of the expected violations is then cleared)."""
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    assert [(r.method, r.path.rsplit("/", 1)[-1]) for r in res.answers] == [("POST", "callback")]
    refused = [e for e in emulator.error_responses if e[1] == res.answers[0].path]
    assert [(status, body["code"]) for _, _, status, body in refused] == [(404, 10062)]
    assert len(emulator.violations) == 2, emulator.violations  # unanswered; answered late
    emulator.violations.clear()


async def test_a_late_start_is_tried_once_and_leaves_the_channel_free(
    emulator: DiscordEmulator, settings, caplog
) -> None:
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings) as bot:
        res = await late(emulator, emulator.invoke(alice, "ttt start", {"first": "me"}))
        refused_once(emulator, res, caplog)  # not the refusal 'could not post', nor an apology
        assert await bot.repo.running_games() == []  # a game nobody sees holds nothing
        res = await emulator.invoke(alice, "ttt start", {"first": "me"})
        assert res.type == 4 and not res.ephemeral


async def test_a_late_move_is_tried_once_and_shown_on_the_board(
    emulator: DiscordEmulator, settings, caplog
) -> None:
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings) as bot:
        start = await emulator.invoke(alice, "ttt start",
                                      {"first": "me", "size": 4, "difficulty": "hard"})  # fmt: skip
        board = start.message
        res = await late(emulator, emulator.click(alice, board, cell_id(board, 5)))
        shown = await emulator.wait_for_message(
            lambda m: m["id"] == board["id"] and board_of(m).count(".") == 14,
            include_existing=True,
        )
        refused_once(emulator, res, caplog)  # the move shown early was that answer; not again
        (game,) = await bot.repo.running_games()
        assert game.ply == 2 and board_of(shown) == game.board.to_string()
        assert Board.from_string(board_of(shown), k=4)[5] == "X"


async def test_a_late_resign_is_tried_once_and_shown_on_the_board(
    emulator: DiscordEmulator, settings, caplog
) -> None:
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings):
        start = await emulator.invoke(alice, "ttt start", {"first": "me", "difficulty": "easy"})
        board = start.message
        res = await late(emulator, emulator.invoke(alice, "ttt resign"))
        easy = text("bot.name", "en-US", difficulty=text("choice.difficulty.easy", "en-US"))
        resigned = text("game.resigned", "en-US", loser=f"<@{alice.id}>", winner=easy)
        await emulator.wait_for_message(
            lambda m: m["id"] == board["id"] and resigned in text_of(m), include_existing=True
        )
        refused_once(emulator, res, caplog)  # the private 'done', not then an apology


async def test_a_late_move_between_friends_keeps_the_token_that_works(
    emulator: DiscordEmulator, settings, caplog
) -> None:
    """Where only a member's own install reaches, a change is shown through the latest
    token kept: a late click's own, never acknowledged, must not replace it."""
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    alice.installed = True
    dm = emulator.open_private(alice, bob)
    async with running_bot(emulator, settings) as bot:
        res = await emulator.invoke(alice, "ttt start", {"opponent": bob, "first": "me"},
                                    channel=dm)  # fmt: skip
        accept = next(
            b["custom_id"]
            for row in buttons(res.message)
            for b in row
            if isinstance(custom_ids.parse(b["custom_id"]), custom_ids.AcceptClick)
        )
        accepted = await emulator.click(bob, res.message, accept)
        board = accepted.message
        click = custom_ids.parse(cell_id(board, 4))
        assert isinstance(click, custom_ids.CellClick)
        res = await late(emulator, emulator.click(alice, board, cell_id(board, 4)))
        await emulator.wait_for_message(  # through the Accept click's token
            lambda m: m["id"] == board["id"] and board_of(m) == "....X....",
            include_existing=True,
        )
        refused_once(emulator, res, caplog)
        assert await bot.repo.token_of("game", click.game_id, 0) == accepted.token


def button(message: dict, kind: type) -> str:
    """The custom_id of the message's one button of ``kind`` (a parsed custom_id type)."""
    (found,) = [
        b["custom_id"] for row in buttons(message) for b in row
        if isinstance(custom_ids.parse(b["custom_id"]), kind)
    ]  # fmt: skip
    return found


async def shown(emulator: DiscordEmulator, message: dict, words: str) -> dict:
    """``message`` once it says ``words`` (fails after the emulator's wait)."""
    return await emulator.wait_for_message(
        lambda m: m["id"] == message["id"] and words in text_of(m), include_existing=True
    )


def outcomes(bot) -> list[str]:
    """How each interaction from now on ends, as the bot's metrics count it (answered,
    refused, failed): a late click carried out is answered, not failed."""
    seen: list[str] = []
    bot.responder.observe = lambda outcome, _seconds: seen.append(outcome)
    return seen


async def organised(emulator: DiscordEmulator, members: int) -> tuple[dict, list]:
    """A tournament's message, its organiser having created it, and its members."""
    organiser = emulator.create_user("organiser")
    organiser.permissions = DEFAULT_PERMISSIONS | PERM_MANAGE_GUILD
    res = await emulator.invoke(organiser, "ttt tournament create",
                                {"name": "Cup", "format": "single"})  # fmt: skip
    assert res.type == 4 and not res.ephemeral, res.content
    return res.message, [organiser, *(emulator.create_user(f"m{i}") for i in range(members))]


async def test_a_late_join_and_leave_are_stored_and_shown_on_the_tournament(
    emulator: DiscordEmulator, settings, caplog
) -> None:
    async with running_bot(emulator, settings) as bot:
        message, (_, bob) = await organised(emulator, 1)
        tournament_id = custom_ids.parse(button(message, custom_ids.JoinClick)).tournament_id
        assert "0/16" in text_of(message)
        ended = outcomes(bot)
        join = button(message, custom_ids.JoinClick)
        res = await late(emulator, emulator.click(bob, message, join))
        joined = await shown(emulator, message, "1/16")
        refused_once(emulator, res, caplog)
        assert [e.user_id for e in await bot.repo.entrants(tournament_id)] == [bob.id]
        leave = button(joined, custom_ids.LeaveClick)
        res = await late(emulator, emulator.click(bob, joined, leave))
        await shown(emulator, message, "0/16")
        refused_once(emulator, res, caplog)
        assert await bot.repo.entrants(tournament_id) == []
        await bot.responder.idle.wait()
        assert ended == ["answered", "answered"]


async def test_a_late_ready_is_stored_and_its_game_is_posted(
    emulator: DiscordEmulator, settings, caplog
) -> None:
    """The second Ready, late, starts the match: its message loses its Ready button and
    the game's board is posted, as for a Ready answered in time."""
    async with running_bot(emulator, settings) as bot:
        message, (organiser, alice, bob) = await organised(emulator, 2)
        for member in (alice, bob):
            click = emulator.click(member, message, button(message, custom_ids.JoinClick))
            message = (await click).message
        await emulator.invoke(organiser, "ttt tournament start")
        match = await emulator.wait_for_message(
            lambda m: any(
                isinstance(custom_ids.parse(b["custom_id"]), custom_ids.ReadyClick)
                for row in buttons(m)
                for b in row
            )
        )
        ready = button(match, custom_ids.ReadyClick)
        assert (await emulator.click(alice, match, ready)).type == 7
        await bot.responder.idle.wait()  # every interaction so far ended
        ended = outcomes(bot)
        res = await late(emulator, emulator.click(bob, match, ready))
        await emulator.wait_for_message(  # playing: no Ready left to press
            lambda m: m["id"] == match["id"] and not buttons(m), include_existing=True
        )
        board = await emulator.wait_for_message(  # the match's first game, to play
            lambda m: m["channel_id"] == match["channel_id"] and bool(cell_buttons(m)),
            include_existing=True,
        )
        refused_once(emulator, res, caplog)
        stored = await bot.repo.get_match(custom_ids.parse(ready).match_id)
        assert stored is not None and stored.first_ready and stored.second_ready
        (game,) = await bot.repo.running_games_in(int(match["channel_id"]))
        assert game.message_id == int(board["id"])
        await bot.responder.idle.wait()
        assert ended == ["answered"]


async def test_a_late_decline_is_stored_and_shown_on_the_challenge(
    emulator: DiscordEmulator, settings, caplog
) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with running_bot(emulator, settings) as bot:
        res = await emulator.invoke(alice, "ttt start", {"opponent": bob, "first": "me"})
        challenge = res.message
        decline = button(challenge, custom_ids.DeclineClick)
        ended = outcomes(bot)
        res = await late(emulator, emulator.click(bob, challenge, decline))
        declined = text("challenge.declined", "en-US", opponent=f"<@{bob.id}>",
                        challenger=f"<@{alice.id}>")  # fmt: skip
        after = await shown(emulator, challenge, declined)
        refused_once(emulator, res, caplog)
        assert not buttons(after)  # nothing left to click
        stored = await bot.repo.get_challenge(custom_ids.parse(decline).challenge_id)
        assert stored is not None and stored.status == "declined"
        await bot.responder.idle.wait()
        assert ended == ["answered"]
