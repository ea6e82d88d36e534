"""ttt installed to a member's account (User Install), through the emulator: challenges
between friends in their DM, an open challenge in a group DM, the bot in a server that
never added it, where Discord lets the bot neither post nor edit in the channel. Every
message is an interaction's answer, a timeout is shown through the latest token, and a
board whose token expired catches up at the next click."""

from __future__ import annotations

import pytest

from bot.discord_ui import custom_ids

from bot_harness import board_of, cell_id, eventually, running_bot, settings_for
from discord_emulator import DiscordEmulator, buttons
from discord_emulator.state import DEFAULT_PERMISSIONS, PERM_USE_EXTERNAL_APPS


@pytest.fixture
async def bot(emulator: DiscordEmulator, tmp_path):
    async with running_bot(emulator, settings_for(emulator, tmp_path / "ttt.sqlite3")) as bot:
        yield bot


def installed(emu: DiscordEmulator, name: str, **kwargs):
    user = emu.create_user(name, **kwargs)
    user.installed = True
    return user


def friends_dm(emu: DiscordEmulator):
    """alice (who installed ttt) and bob, and the DM between them."""
    alice, bob = installed(emu, "alice"), emu.create_user("bob")
    return alice, bob, emu.open_private(alice, bob)


async def until(condition, what: str) -> None:
    """Wait for an async ``condition`` of the store to hold (a 60 s safety net)."""
    await eventually(condition, what)


def button(message: dict, kind: type) -> str:
    return next(
        b["custom_id"]
        for row in buttons(message)
        for b in row
        if isinstance(custom_ids.parse(b["custom_id"]), kind)
    )


def game_id(message: dict) -> int:
    click = custom_ids.parse(cell_id(message, 0))
    assert isinstance(click, custom_ids.CellClick)
    return click.game_id


def channel_requests(emu: DiscordEmulator, channel) -> list[str]:
    """The bot's REST requests on the channel itself (Discord answers them 403 there)."""
    return [f"{r.method} {r.path}" for r in emu.requests if f"/channels/{channel.id}" in r.path]


async def challenge_accepted(emu: DiscordEmulator, challenger, opponent, channel) -> dict:
    res = await emu.invoke(challenger, "ttt start", {"opponent": opponent, "first": "me"},
                           channel=channel)  # fmt: skip
    assert res.type == 4 and not res.ephemeral and f"<@{opponent.id}>" in res.content
    res = await emu.click(opponent, res.message, button(res.message, custom_ids.AcceptClick))
    assert res.type == 7, res.content
    return res.message


async def test_friends_play_a_challenge_to_a_win_in_their_dm(
    emulator: DiscordEmulator, transport: str, bot
) -> None:
    (ttt,) = emulator.commands()
    assert (ttt["contexts"], ttt["integration_types"]) == ([0, 1, 2], [0, 1])
    alice, bob, dm = friends_dm(emulator)
    res = await emulator.invoke(alice, "ttt stats", channel=dm)  # nothing yet, said as it is
    assert (
        res.content
        == f"<@{alice.id}> has no finished games yet outside the servers that added ttt."
    )
    board = await challenge_accepted(emulator, alice, bob, dm)
    # only the member to move may move, and privately told so
    res = await emulator.click(bob, board, cell_id(board, 4))
    assert res.ephemeral and board_of(emulator.message(board["id"])) == "." * 9
    for player, cell in [(alice, 0), (bob, 3), (alice, 1), (bob, 4), (alice, 2)]:
        res = await emulator.click(player, board, cell_id(board, cell))
        assert res.type == 7 and not res.ephemeral, res.content
        board = res.message
    assert board_of(board) == "XXXOO...." and f"<@{alice.id}> wins" in board["content"]
    assert channel_requests(emulator, dm) == []  # every message an interaction's answer
    # the win counts in alice's personal records, apart from the server's
    res = await emulator.invoke(alice, "ttt stats", channel=dm)
    (embed,) = res.embeds
    assert any("1 win" in f["value"] for f in embed["fields"]), embed
    res = await emulator.invoke(alice, "ttt stats")  # in the server: nothing there
    assert res.ephemeral and "no finished games in this server" in res.content
    assert await bot.repo.token_of("game", game_id(board), 0) is None  # forgotten at the end


async def test_an_open_challenge_in_a_group_dm_of_three(emulator: DiscordEmulator, bot) -> None:
    alice = installed(emulator, "alice")
    bob, carol = emulator.create_user("bob"), emulator.create_user("carol")
    group = emulator.open_private(alice, bob, carol, name="friends")
    # naming someone outside the group: they would never see it, so nothing is posted
    dave = emulator.create_user("dave")
    res = await emulator.invoke(alice, "ttt start", {"opponent": dave}, channel=group)
    assert res.ephemeral and f"<@{dave.id}> is not in this conversation" in res.content
    assert await bot.repo.pending_challenge_in(group.id) is None
    res = await emulator.invoke(alice, "ttt start", {"open": True, "first": "me"}, channel=group)
    assert res.type == 4 and not res.ephemeral
    res = await emulator.click(carol, res.message, button(res.message, custom_ids.AcceptClick))
    assert res.type == 7 and f"<@{carol.id}>" in res.message["content"]
    board = res.message
    res = await emulator.click(bob, board, cell_id(board, 4))  # bob is not playing
    assert res.ephemeral
    res = await emulator.click(alice, board, cell_id(board, 4))
    assert res.type == 7 and board_of(res.message) == "....X...."
    board = res.message
    res = await emulator.click(carol, board, cell_id(board, 0))
    assert res.type == 7 and board_of(res.message) == "O...X...."
    assert channel_requests(emulator, group) == []


async def test_against_the_bot_in_a_server_without_ttt(emulator: DiscordEmulator, bot) -> None:
    elsewhere = emulator.create_guild("No ttt here", with_bot=False)
    alice = installed(emulator, "alice", guilds=[elsewhere])
    channel = elsewhere.channels[0]
    res = await emulator.invoke(alice, "ttt start", {"difficulty": "hard", "first": "me"},
                                channel=channel)  # fmt: skip
    assert res.type == 4 and not res.ephemeral, res.content
    res = await emulator.click(alice, res.message, cell_id(res.message, 4))
    assert res.type == 7 and board_of(res.message).count("O") == 1
    res = await emulator.invoke(alice, "ttt config", {"turn_timeout": 60}, channel=channel)
    assert res.ephemeral and res.content.startswith("`/ttt config` needs ttt added to this server")
    res = await emulator.invoke(alice, "ttt tournament create",
                                {"name": "Cup", "format": "single"}, channel=channel)  # fmt: skip
    assert res.ephemeral and res.content.startswith(
        "`/ttt tournament create` needs ttt added to this server"
    )
    res = await emulator.invoke(alice, "ttt help", channel=channel)
    assert "from a member's own install" in res.content and "Where:" in res.content
    assert channel_requests(emulator, channel) == []
    assert not [r for r in emulator.requests if f"/guilds/{elsewhere.id}" in r.path]


async def test_a_member_without_use_external_apps_is_told_privately(
    emulator: DiscordEmulator, bot
) -> None:
    strict = emulator.create_guild("Strict", with_bot=False)
    alice = installed(emulator, "alice", guilds=[strict])
    alice.permissions = DEFAULT_PERMISSIONS & ~PERM_USE_EXTERNAL_APPS
    res = await emulator.invoke(alice, "ttt start", channel=strict.channels[0])
    assert res.ephemeral and "Use External Apps" in res.content
    assert await bot.repo.running_games() == []
    # where the server added ttt, its install wins: the permission does not matter
    res = await emulator.invoke(alice, "ttt start")
    assert res.type == 4 and not res.ephemeral


@pytest.mark.slow  # waits seconds for a timer
async def test_a_timeout_is_shown_through_the_token_and_a_restart_plays_on(
    emulator: DiscordEmulator, tmp_path
) -> None:
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3", turn_timeout=1.5)
    alice, bob, dm = friends_dm(emulator)
    async with running_bot(emulator, settings):
        board = await challenge_accepted(emulator, alice, bob, dm)
        res = await emulator.click(alice, board, cell_id(board, 4))
        assert res.type == 7
        board = res.message
    async with running_bot(emulator, settings) as bot:  # restarted: the next click plays
        res = await emulator.click(bob, board, cell_id(board, 0))
        assert res.type == 7 and board_of(res.message) == "O...X...."
        assert await bot.repo.token_of("game", game_id(board), 0) is not None
        # nobody clicks: the timeout is shown through bob's click's token
        timed_out = await emulator.wait_for_message(
            lambda m: m["id"] == board["id"] and "ran out of time" in m["content"]
        )

        async def forgotten() -> bool:  # then forgotten: the game is over
            return await bot.repo.token_of("game", game_id(board), 0) is None

        await until(forgotten, "the token of a finished game is forgotten")
    assert f"<@{alice.id}> ran out of time" in timed_out["content"]
    assert channel_requests(emulator, dm) == []
    webhook = [r.path for r in emulator.requests if r.method == "PATCH" and "/webhooks/" in r.path]
    assert webhook and webhook[-1].endswith(f"/messages/{board['id']}")


@pytest.mark.slow  # waits seconds for a timer
async def test_an_expired_token_and_the_board_catching_up(
    emulator: DiscordEmulator, tmp_path
) -> None:
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3", turn_timeout=1.5)
    alice, bob, dm = friends_dm(emulator)
    async with running_bot(emulator, settings) as bot:
        board = await challenge_accepted(emulator, alice, bob, dm)
        emulator.advance(16 * 60)  # every token issued so far is past Discord's 15 minutes

        async def ended() -> bool:  # the timeout falls due; Discord refuses the old token
            game = await bot.repo.get_game(game_id(board))
            return game is not None and not game.running

        await until(ended, "the game ended by its deadline")
        game = await bot.repo.get_game(game_id(board))
        assert game is not None and game.ending is not None and game.ending.reason == "timeout"
        assert "ran out of time" not in emulator.message(board["id"])["content"]
        # a click on the stale board brings it up to date, and says why privately
        res = await emulator.click(bob, board, cell_id(board, 4))
        assert "ran out of time" in emulator.message(board["id"])["content"]
        await res.wait_for_edit()  # then the private word on why the click did not play
        (why,) = res.followups
        assert emulator.is_ephemeral(why["id"]) and "over" in why["content"], why["content"]
    assert any("token used after expiry" in v for v in emulator.violations)
    emulator.violations.clear()
    assert channel_requests(emulator, dm) == []


@pytest.mark.slow  # two bots on PostgreSQL, a timeout waited out
@pytest.mark.postgres
async def test_two_processes_on_postgresql_share_a_game_between_friends(
    emulator: DiscordEmulator, tmp_path, pg_database: str
) -> None:
    """The clicks reach the process of shard 0 (DMs are shard 0's); once it is gone, the
    other shows the turn timeout through the token the first one kept."""
    emulator.shard_count = 2
    emulator.max_concurrency = 2  # both shards may IDENTIFY at once: no 5 s turn to wait
    common = {"database_url": pg_database, "shard_count": 2, "turn_timeout": 2.0}
    first = settings_for(emulator, tmp_path / "a", shard_ids=(0,), **common)
    second = settings_for(emulator, tmp_path / "b", shard_ids=(1,), **common)
    alice, bob, dm = friends_dm(emulator)
    async with running_bot(emulator, second):
        async with running_bot(emulator, first):
            board = await challenge_accepted(emulator, alice, bob, dm)
            res = await emulator.click(alice, board, cell_id(board, 4))
            assert res.type == 7 and board_of(res.message) == "....X...."
        shown_by_first = len(emulator.requests)
        timed_out = await emulator.wait_for_message(
            lambda m: m["id"] == board["id"] and "ran out of time" in m["content"]
        )
    assert f"<@{bob.id}> ran out of time" in timed_out["content"]
    later = emulator.requests[shown_by_first:]
    assert [r.method for r in later if "/webhooks/" in r.path] == ["PATCH"]
    assert channel_requests(emulator, dm) == []
