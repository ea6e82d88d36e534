"""Whatever arrives gets a private answer: buttons that are not ours, commands from a
client with an out-of-date copy of them, option values that do not convert, settings out
of bounds, challenges to someone who is not a member."""

from __future__ import annotations

import copy

import pytest

from bot_harness import board_of, cell_id, eventually, running_bot, settings_for
from discord_emulator import DiscordEmulator


@pytest.fixture
async def bot(emulator: DiscordEmulator, tmp_path):
    async with running_bot(emulator, settings_for(emulator, tmp_path / "ttt.sqlite3")) as bot:
        yield bot


@pytest.mark.parametrize(
    "custom_id", ["tictactoe:cell:4", "ttt:c:1:0", "ttt:x:5", "ttt:f:1:maybe", "🙂"]
)
async def test_a_button_that_is_not_ours_is_answered(emulator, bot, custom_id: str) -> None:
    alice = emulator.create_user("alice")
    start = await emulator.invoke(alice, "ttt start", {"first": "me"})
    res = await emulator.click(alice, start.message, custom_id, force=True)
    assert res.ephemeral and "out of date" in res.content


async def test_an_unknown_subcommand_is_answered(emulator, bot) -> None:
    alice = emulator.create_user("alice", locale="fr")
    data = emulator.command_data("ttt help")
    data["options"][0]["name"] = "tournament"  # a subcommand of some future version
    res = await emulator.invoke_raw(alice, data)
    assert res.ephemeral and "plus à jour" in res.content


async def test_the_group_alone_is_answered(emulator, bot) -> None:
    data = emulator.command_data("ttt help")
    del data["options"]
    res = await emulator.invoke_raw(emulator.create_user("alice"), data)
    assert res.ephemeral and "out of date" in res.content


async def test_a_choice_that_no_longer_exists_is_answered(emulator, bot) -> None:
    alice = emulator.create_user("alice")
    data = emulator.command_data("ttt start", {"difficulty": "hard"})
    options = data["options"][0]["options"]
    options[0]["value"] = "insane"
    res = await emulator.invoke_raw(alice, copy.deepcopy(data))
    assert res.ephemeral and "insane" in res.content
    assert await bot.repo.running_games() == []  # nothing was started


async def test_config_values_out_of_bounds_are_refused_and_not_stored(emulator, bot) -> None:
    admin = emulator.create_user("admin")
    admin.permissions = 1 << 5  # Manage Server
    data = emulator.command_data("ttt config", {"turn_timeout": 300})
    data["options"][0]["options"][0]["value"] = 0  # below the declared minimum of 30
    res = await emulator.invoke_raw(admin, data)
    assert res.ephemeral and "Time per move" in res.content and "from 30 to 86400" in res.content
    policy = await bot.games.policies.policy(emulator.guild.id)
    assert policy.turn_timeout == 300  # unchanged
    data = emulator.command_data("ttt config", {"games_per_channel": 2})
    data["options"][0]["options"][0]["value"] = 0
    res = await emulator.invoke_raw(admin, data)
    assert res.ephemeral and "from 1 to 10" in res.content
    assert (await bot.games.policies.policy(emulator.guild.id)).games_per_channel == 1


async def test_a_challenge_to_someone_who_left_the_server_is_refused(emulator, bot) -> None:
    alice, gone = emulator.create_user("alice"), emulator.create_user("gone")
    emulator.guild.member_ids.remove(gone.id)  # they left
    res = await emulator.invoke(alice, "ttt start", {"opponent": gone})
    assert res.ephemeral and f"<@{gone.id}> is not a member" in res.content
    assert await bot.repo.pending_challenge_in(emulator.channel.id) is None


@pytest.mark.parametrize("change", ["no data", "member without user"])
async def test_a_malformed_gateway_payload_is_logged_and_the_bot_keeps_serving(
    emulator, bot, caplog, change: str
) -> None:
    alice = emulator.create_user("alice")
    start = await emulator.invoke(alice, "ttt start", {"first": "me"})
    payload = copy.deepcopy(emulator.interactions[max(emulator.interactions)].payload)
    payload["id"] = str(emulator.snowflakes.next())
    payload |= {"type": 3, "message": start.message}
    payload["data"] = {"custom_id": "ttt:r:1", "component_type": 2}
    if change == "no data":
        del payload["data"]
    else:
        del payload["member"]["user"]
    with caplog.at_level("ERROR"):
        # sent straight down the gateway: discord.py cannot parse it, so no answer is due
        emulator.gateway.dispatch("INTERACTION_CREATE", payload)
        res = await emulator.invoke(alice, "ttt help")  # the connection is still served
    assert res.ephemeral and "Tic-tac-toe" in res.content
    assert "ignored a malformed INTERACTION_CREATE event" in caplog.text


async def test_a_custom_id_that_is_not_a_string_is_answered(emulator, bot) -> None:
    alice = emulator.create_user("alice")
    start = await emulator.invoke(alice, "ttt start", {"first": "me"})
    rec = emulator._new_record(alice, 3, emulator.channel, "forged")
    rec.payload = emulator._base_interaction(rec, emulator.channel, alice.locale) | {
        "data": {"custom_id": 12345, "component_type": 2},
        "message": start.message,
    }
    res = await emulator._run(rec, False)
    assert res.ephemeral and "out of date" in res.content


async def test_a_message_behind_the_stored_board_catches_up_on_the_next_click(
    emulator, bot
) -> None:
    alice = emulator.create_user("alice")
    res = await emulator.invoke(alice, "ttt start", {"first": "me", "difficulty": "easy"})
    message = res.message
    (game,) = await bot.repo.running_games()
    # stored but never shown: the process failed between the two, a while ago
    behind = game.with_changes(moves=(0, 4), updated_at=game.updated_at - 60)
    await bot.repo.save_game(behind, expected_ply=0)
    assert board_of(emulator.message(message["id"])) == "........."
    res = await emulator.click(alice, message, cell_id(message, 8))
    assert res.type == 7 and board_of(emulator.message(message["id"])) == "X...O...."
    # the private follow-up comes after the board's update
    followups = await eventually(lambda: res.followups, "the private follow-up")
    assert [m.get("flags", 0) & 64 for m in followups] == [64]  # one private follow-up
    assert "out of date" in followups[0]["content"]
    message = emulator.message(message["id"])
    res = await emulator.click(alice, message, cell_id(message, 8))
    assert res.type == 7 and board_of(res.message)[8] == "X"  # and play goes on


def _garbled_opponent(data: dict, how: str) -> dict:
    """``/ttt start opponent:…`` as a broken or hostile client might send it."""
    start = data["options"][0]
    if how == "null options":
        start["options"] = None
        return data
    (option,) = [o for o in start["options"] if o["name"] == "opponent"]
    if how == "missing from resolved":
        data.pop("resolved", None)
    else:
        option["value"] = {"not a snowflake": "abc", "negative": "-5",
                           "2^64": str(2**64)}[how]  # fmt: skip
    return data


@pytest.mark.parametrize(
    "how", ["not a snowflake", "negative", "2^64", "missing from resolved", "null options"]
)
async def test_a_garbled_opponent_gets_a_private_answer(emulator, bot, how: str) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    data = _garbled_opponent(emulator.command_data("ttt start", {"opponent": bob}), how)
    res = await emulator.invoke_raw(alice, data)
    assert res.type is not None, "no answer"
    assert res.ephemeral and "out of date" in res.content
    assert await bot.repo.pending_challenge_in(emulator.channel.id) is None
    assert await bot.repo.running_games() == []
