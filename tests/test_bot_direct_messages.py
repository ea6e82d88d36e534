"""Playing the bot in a DM, through the emulator: the board there, its records kept apart
from every server's, what is refused there, and a timeout and a restart seen in the DM."""

from __future__ import annotations

import pytest

from engine import Board, get_agent

from bot_harness import board_of, cell_buttons, cell_id, running_bot, settings_for
from discord_emulator import DiscordEmulator, find_button


@pytest.fixture
async def bot(emulator: DiscordEmulator, tmp_path):
    async with running_bot(emulator, settings_for(emulator, tmp_path / "ttt.sqlite3")) as bot:
        yield bot


def fields(res) -> dict[str, str]:
    (embed,) = res.embeds
    return {f["name"]: f["value"] for f in embed.get("fields", [])}


async def perfect_game(emu: DiscordEmulator, user, channel, difficulty: str) -> dict:
    """``user`` plays a whole game against ``difficulty`` in ``channel`` with perfect play
    of their own (so against hard and unbeatable it is a draw); the final message."""
    res = await emu.invoke(user, "ttt start", {"difficulty": difficulty, "first": "me"},
                           channel=channel)  # fmt: skip
    assert res.type == 4 and not res.ephemeral, res.content
    message, perfect = res.message, get_agent("hard", seed=5)
    while not (board := Board.from_string(board_of(message))).is_over():
        res = await emu.click(user, message, cell_id(message, perfect.choose(board)))
        assert res.type == 7 and not res.ephemeral, res.content
        message = res.message
    assert board.outcome() == "draw"
    return message


@pytest.mark.parametrize(
    ("locale", "draw", "record", "vs_unbeatable", "vs_hard"),
    [
        ("en-US", "**Draw.** Nobody wins.", "0 wins · 0 losses · 1 draw",
         "Against the bot (unbeatable)", "Against the bot (hard)"),
        ("de", "**Unentschieden.** Niemand gewinnt.", "0 Siege · 0 Niederlagen · 1 Unentschieden",
         "Gegen den Bot (unschlagbar)", "Gegen den Bot (schwer)"),
    ],
)  # fmt: skip
async def test_a_whole_game_in_a_dm_and_its_record_there_only(
    emulator: DiscordEmulator, bot, locale: str, draw: str, record: str, vs_unbeatable: str,
    vs_hard: str,
) -> None:  # fmt: skip
    alice = emulator.create_user("alice", locale=locale)
    dm = emulator.open_dm(alice)
    message = await perfect_game(emulator, alice, dm, "unbeatable")
    # the board lives in the DM, in alice's language (a DM has no server's)
    assert [m["id"] for m in emulator.channel_messages(dm)] == [message["id"]]
    assert emulator.channel_messages(emulator.channel) == []
    assert message["content"].splitlines()[-1] == draw
    assert all(b.get("disabled") for b in cell_buttons(message))

    res = await emulator.invoke(alice, "ttt stats", channel=dm)
    assert res.ephemeral and fields(res)[vs_unbeatable] == record
    res = await emulator.invoke(alice, "ttt history", channel=dm)
    (line,) = res.embeds[0]["description"].splitlines()
    assert f"/channels/@me/{dm.id}/{message['id']}" in line
    # in the server, alice has played nothing
    res = await emulator.invoke(alice, "ttt stats")
    assert res.ephemeral and res.embeds == [] and f"<@{alice.id}>" in res.content

    # and a server game counts there, not in the DM
    await perfect_game(emulator, alice, emulator.channel, "hard")
    res = await emulator.invoke(alice, "ttt stats")
    assert fields(res)[vs_hard] == record and vs_unbeatable not in fields(res)
    res = await emulator.invoke(alice, "ttt stats", channel=dm)
    assert fields(res)[vs_unbeatable] == record and vs_hard not in fields(res)


async def test_review_rematch_and_forget_me_in_a_dm(emulator: DiscordEmulator, bot) -> None:
    alice = emulator.create_user("alice")
    dm = emulator.open_dm(alice)
    message = await perfect_game(emulator, alice, dm, "hard")
    res = await emulator.invoke(alice, "ttt review", channel=dm)
    assert res.ephemeral and res.content.startswith(f"Review: <@{alice.id}> (❌) vs")
    res = await emulator.click(alice, message, find_button(message, label="Review")["custom_id"])
    assert res.ephemeral and "No mistakes" in res.content
    res = await emulator.click(alice, message, find_button(message, label="Rematch")["custom_id"])
    assert res.type == 4 and not res.ephemeral  # a new board, in the DM
    assert emulator.channel_messages(dm)[-1]["id"] == res.message["id"]
    assert Board.from_string(board_of(res.message)).move_count == 1  # the bot is X now
    await emulator.click(alice, res.message, find_button(res.message, label="Resign")["custom_id"])

    res = await emulator.invoke(alice, "ttt forget-me", channel=dm)
    confirm = find_button(res.message, label="Delete my data")
    res = await emulator.click(alice, res.message, confirm["custom_id"])
    assert res.content == "Done: 2 games and your ratings are deleted."
    res = await emulator.invoke(alice, "ttt stats", channel=dm)
    assert res.content == f"<@{alice.id}> has no finished games in our direct messages yet."


@pytest.mark.parametrize(
    ("locale", "challenge", "config", "leaderboard", "tournament", "private"),
    [
        ("en-US", "Challenges are for servers:", "`/ttt config` works in servers only",
         "`/ttt leaderboard` works in servers only",
         "`/ttt tournament status` works in servers only",
         "Games in our direct messages are private"),
        ("de", "Herausforderungen gibt es auf Servern:",
         "`/ttt einstellungen` funktioniert nur auf Servern",
         "`/ttt rangliste` funktioniert nur auf Servern",
         "`/ttt turnier stand` funktioniert nur auf Servern",
         "Spiele in unseren Direktnachrichten sind privat"),
    ],
)  # fmt: skip
async def test_what_a_dm_refuses_privately(
    emulator: DiscordEmulator, bot, locale: str, challenge: str, config: str, leaderboard: str,
    tournament: str, private: str,
) -> None:  # fmt: skip
    (ttt,) = emulator.commands()  # everywhere, installed to servers and to members' accounts
    assert (ttt["contexts"], ttt["integration_types"]) == ([0, 1, 2], [0, 1])
    alice, bob = emulator.create_user("alice", locale=locale), emulator.create_user("bob")
    dm = emulator.open_dm(alice)
    res = await emulator.invoke(alice, "ttt start", {"opponent": bob}, channel=dm)
    assert res.ephemeral and res.content.startswith(challenge)
    res = await emulator.invoke(alice, "ttt start", {"open": True}, channel=dm)
    assert res.ephemeral and res.content.startswith(challenge)
    res = await emulator.invoke(alice, "ttt config", {"turn_timeout": 60}, channel=dm)
    assert res.ephemeral and res.content.startswith(config)
    res = await emulator.invoke(alice, "ttt leaderboard", channel=dm)
    assert res.ephemeral and res.content.startswith(leaderboard)
    # a subcommand of a group is named whole, as the member typed it
    res = await emulator.invoke(alice, "ttt tournament status", channel=dm)
    assert res.ephemeral and res.content.startswith(tournament)
    res = await emulator.invoke(alice, "ttt stats", {"member": bob}, channel=dm)
    assert res.ephemeral and res.content.startswith(private)
    assert emulator.channel_messages(dm) == []  # nothing public was posted
    # the same commands still work in the server
    res = await emulator.invoke(alice, "ttt start", {"opponent": bob})
    assert res.type == 4 and not res.ephemeral and f"<@{bob.id}>" in res.content


@pytest.mark.slow  # waits seconds for a timer
async def test_a_timeout_and_a_restart_are_shown_in_the_dm(
    emulator: DiscordEmulator, tmp_path
) -> None:
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3", turn_timeout=1.5)
    alice = emulator.create_user("alice")
    dm = emulator.open_dm(alice)
    async with running_bot(emulator, settings):
        res = await emulator.invoke(alice, "ttt start", {"difficulty": "hard", "first": "me"},
                                    channel=dm)  # fmt: skip
        first = res.message
        res = await emulator.click(alice, first, cell_id(first, 4))
        assert board_of(res.message).count("X") == 1
        moved = res.message
    # a restart: the old message's buttons still play
    async with running_bot(emulator, settings):
        free = Board.from_string(board_of(moved)).legal_moves()[0]
        res = await emulator.click(alice, moved, cell_id(moved, free))
        assert res.type == 7 and board_of(res.message).count("X") == 2
        # nobody clicks: the timekeeper edits the DM message over REST
        timed_out = await emulator.wait_for_message(
            lambda m: m["id"] == first["id"] and "ran out of time" in m["content"]
        )
    assert f"<@{alice.id}> ran out of time. **the bot (hard) wins.**" in timed_out["content"]
    assert find_button(timed_out, label="Rematch") is not None
    path = f"/channels/{dm.id}/messages/{first['id']}"
    assert [r.method for r in emulator.requests if r.path == path] == ["PATCH"]
