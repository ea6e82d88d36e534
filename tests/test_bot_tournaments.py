"""Tournaments end to end: members sign up with buttons, each match gets a thread with
Ready, the games are played by clicking boards, and the tournament's message shows the
bracket or the table as a picture beside the same facts in text."""

from __future__ import annotations

import asyncio
import hashlib
import io
import re
import signal
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from PIL import Image

from bot.discord_ui import custom_ids
from bot.discord_ui.custom_ids import JoinClick, ReadyClick

from bot_harness import (
    bot_process,
    bot_process_env,
    cell_buttons,
    running_bot,
    settings_for,
)
from discord_emulator import DiscordEmulator, buttons
from discord_emulator.interactions import WAIT_CEILING
from discord_emulator.state import (
    DEFAULT_PERMISSIONS,
    PERM_ATTACH_FILES,
    PERM_CREATE_PUBLIC_THREADS,
    PERM_MANAGE_GUILD,
)

WIN_X = (0, 3, 1, 4, 2)
DRAW = (0, 1, 2, 4, 3, 5, 7, 6, 8)
MENTION = re.compile(r"<@(\d+)>")


class Players:
    """The organiser and the members of one test, by id."""

    def __init__(self, emu: DiscordEmulator, count: int) -> None:
        self.emu = emu
        self.organiser = emu.create_user("organiser")
        self.organiser.permissions = DEFAULT_PERMISSIONS | PERM_MANAGE_GUILD
        self.members = [emu.create_user(f"player{i}") for i in range(1, count + 1)]
        self.by_id = {u.id: u for u in [self.organiser, *self.members]}


def _ids(message: dict, kind: type) -> list[Any]:
    found = (custom_ids.parse(b["custom_id"]) for row in buttons(message) for b in row)
    return [c for c in found if isinstance(c, kind)]


async def until(check: Callable[[], Any], timeout: float = WAIT_CEILING, what: str = "") -> Any:
    """Poll the emulator's state until ``check()`` is truthy; its value."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        value = check()
        if value:
            return value
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what or check}")
        await asyncio.sleep(0.02)


async def sign_up(
    emu: DiscordEmulator, players: Players, fmt: str, **options: Any
) -> tuple[dict, int]:
    """A tournament created by the organiser and joined by every member: its message and
    id."""
    res = await emu.invoke(players.organiser, "ttt tournament create",
                           {"name": "Autumn cup", "format": fmt, **options})  # fmt: skip
    assert res.type == 4 and not res.ephemeral, res.content
    message = res.message
    (join,) = _ids(message, JoinClick)
    for member in players.members:
        res = await emu.click(member, message, custom_ids.join(join.tournament_id))
        assert res.type == 7, res.content
        message = res.message
    assert f"{len(players.members)}/" in message["content"]
    return message, join.tournament_id


def waiting_matches(emu: DiscordEmulator) -> list[dict]:
    """Match messages whose Ready button is still on them."""
    return [
        emu.message(mid) for mid in list(emu._messages)
        if _ids(emu.message(mid), ReadyClick)
    ]  # fmt: skip


def running_board(emu: DiscordEmulator, channel_id: str) -> dict | None:
    """The live board in a match's channel (a game still running: squares clickable)."""
    for message in reversed(emu.channel_messages(int(channel_id))):
        cells = cell_buttons(message)
        if cells and any(not b.get("disabled") for b in cells):
            return message
    return None


DONE: dict = {"decided": True}  # truthy, unlike an empty dict


def next_board(emu: DiscordEmulator, match: dict) -> dict | None:
    """The match's running board; :data:`DONE` once its message says it is decided; None
    while neither (a game was just posted or is about to be)."""
    board = running_board(emu, match["channel_id"])
    if board is not None:
        return board
    content = emu.message(match["id"])["content"]
    decided = ("wins", "drawn", "forfeit", "showed up")
    return DONE if any(word in content.splitlines()[-1] for word in decided) else None


async def play_board(emu: DiscordEmulator, players: Players, board: dict, moves: tuple) -> dict:
    """Play ``moves`` on a board, X and O in turn, by clicking its squares."""
    x, o = (players.by_id[int(i)] for i in MENTION.findall(board["content"])[:2])
    for i, cell in enumerate(moves):
        res = await emu.click(x if i % 2 == 0 else o, board, cell_buttons(board)[cell]["custom_id"])
        assert res.type == 7, res.content
        board = res.message
    return board


async def play_round(
    emu: DiscordEmulator, players: Players, how: Callable[[int], tuple], count: int
) -> int:
    """The ``count`` matches waiting for Ready: both players press it, then every game is
    played with the moves ``how(game_number)`` gives, until the match's channel has no
    running board. The number of games played."""
    matches = await until(lambda: len(waiting_matches(emu)) == count and waiting_matches(emu),
                          what=f"{count} matches")  # fmt: skip
    games = 0
    for match in matches:
        (ready,) = _ids(match, ReadyClick)
        first, second = (players.by_id[int(i)] for i in MENTION.findall(match["content"])[:2])
        for player in (first, second):
            res = await emu.click(player, match, custom_ids.ready(ready.match_id))
            assert res.type == 7, res.content
        played = 0
        while True:
            board = await until(partial(next_board, emu, match), what="a board")
            if board is DONE:
                break
            await play_board(emu, players, board, how(played))
            played += 1
        games += played
    return games


async def test_an_eight_player_single_elimination_is_played_to_a_champion(
    emulator: DiscordEmulator, transport: str, tmp_path
) -> None:
    players = Players(emulator, 8)
    async with running_bot(emulator, settings_for(emulator, tmp_path / "t.sqlite3")):
        message, _ = await sign_up(emulator, players, "single")
        res = await emulator.invoke(players.members[0], "ttt tournament start")
        assert res.ephemeral and "Manage Server" in res.content  # only the organiser
        res = await emulator.invoke(players.organiser, "ttt tournament start")
        assert res.ephemeral and "has started" in res.content
        for count in (4, 2, 1):
            assert await play_round(emulator, players, lambda n: WIN_X, count) == count
        final = await champion_shown(emulator, message)
        # four matches of round 1 in threads of their own, hanging off the channel
        threads = [c for c in emulator.channels.values() if c.is_thread]
        assert len(threads) == 7 and all(t.parent_id == emulator.channel.id for t in threads)
        champion = int(MENTION.findall(final["content"].split("Champion")[1])[0])
        assert champion in players.by_id
        # the bracket as a picture: an embed shows the attachment, which decodes
        picture = Image.open(io.BytesIO(picture_of(emulator, final)))
        assert picture.format == "PNG" and picture.width > picture.height > 200
        assert buttons(final) == []  # no Join once it runs
        res = await emulator.invoke(players.by_id[champion], "ttt history")
        assert res.message["embeds"][0]["description"].count("🏆 tournament") == 3


async def test_a_round_robin_best_of_three_alternates_sides_and_ranks_by_points(
    emulator: DiscordEmulator, tmp_path
) -> None:
    players = Players(emulator, 4)
    async with running_bot(emulator, settings_for(emulator, tmp_path / "t.sqlite3")):
        message, _ = await sign_up(emulator, players, "round_robin", best_of=3)
        await emulator.invoke(players.organiser, "ttt tournament start")
        # each match: a draw, then X wins twice (the sides swap each game)
        for _ in range(3):
            assert await play_round(emulator, players, lambda n: DRAW if n == 0 else WIN_X, 2) == 6
        final = await champion_shown(emulator, message)
    lines = final["content"].splitlines()
    table = [line for line in lines if re.match(r"\d\. <@", line)]
    assert len(table) == 4
    # every match went 1.5–1.5 in games and was drawn: 1.5 points each
    assert all(": 1.5 (" in line for line in table), table
    boards = [m for m in emulator._messages.values() if cell_buttons(m)]
    assert len(boards) == 6 * 3


async def test_a_swiss_of_six_plays_three_rounds_without_repeats(
    emulator: DiscordEmulator, tmp_path
) -> None:
    players = Players(emulator, 6)
    async with running_bot(emulator, settings_for(emulator, tmp_path / "t.sqlite3")):
        message, _ = await sign_up(emulator, players, "swiss", rounds=3)
        await emulator.invoke(players.organiser, "ttt tournament start")
        pairs: list[frozenset[int]] = []
        for _ in range(3):
            matches = await until(lambda: len(waiting_matches(emulator)) == 3
                                  and waiting_matches(emulator), what="matches")  # fmt: skip
            pairs += [frozenset(int(i) for i in MENTION.findall(m["content"])[:2]) for m in matches]
            assert await play_round(emulator, players, lambda n: WIN_X, 3) == 3
        final = await champion_shown(emulator, message)
        # /ttt help states the tie-breaks, in a second private message
        res = await emulator.invoke(players.members[0], "ttt help")
        more = (await until(lambda: res.followups, what="the help's second message"))[0]
        assert more["flags"] & 64 and "Swiss by Buchholz" in more["content"]
    assert len(pairs) == 9 and len(set(pairs)) == 9
    picture = Image.open(io.BytesIO(picture_of(emulator, final)))
    assert picture.format == "PNG" and picture.height > 6 * 20


@pytest.mark.slow  # waits out a match's time to show up (1.2 s)
async def test_a_no_show_forfeits_and_a_removed_player_is_out(
    emulator: DiscordEmulator, tmp_path
) -> None:
    players = Players(emulator, 4)
    # no threads (matches in the channel), no files (the tournament's message without
    # its picture)
    emulator.channel.app_permissions &= ~(PERM_CREATE_PUBLIC_THREADS | PERM_ATTACH_FILES)
    async with running_bot(emulator, settings_for(emulator, tmp_path / "t.sqlite3")):
        message, _ = await sign_up(emulator, players, "single", show_up_minutes=0.02)
        await emulator.invoke(players.organiser, "ttt tournament start")
        matches = await until(lambda: len(waiting_matches(emulator)) == 2
                              and waiting_matches(emulator), what="two matches")  # fmt: skip
        assert all(m["channel_id"] == str(emulator.channel.id) for m in matches)
        one, other = matches
        a, b = (players.by_id[int(i)] for i in MENTION.findall(one["content"])[:2])
        (ready,) = _ids(one, ReadyClick)
        res = await emulator.click(b, one, custom_ids.ready(ready.match_id))
        assert "is ready" in res.message["content"]
        # in the other match, the organiser takes out a player
        c, d = (players.by_id[int(i)] for i in MENTION.findall(other["content"])[:2])
        res = await emulator.invoke(players.organiser, "ttt tournament remove", {"member": d})
        assert res.ephemeral and "is out of" in res.content

        def forfeited() -> dict | None:
            shown = emulator.message(one["id"])
            return shown if "by forfeit" in shown["content"] else None

        forfeit = await until(forfeited, what="the no-show")
        assert f"<@{b.id}> goes through by forfeit" in forfeit["content"]
        await until(lambda: f"<@{c.id}> goes through by forfeit"
                    in emulator.message(other["id"])["content"], what="the removal")  # fmt: skip
        # the final, b against c, is waiting for them
        final = await until(lambda: waiting_matches(emulator), what="the final")
        assert set(MENTION.findall(final[0]["content"])[:2]) == {str(b.id), str(c.id)}
        status = await emulator.invoke(a, "ttt tournament status")
        assert status.ephemeral and "Match 3" in status.content
        shown = emulator.message(message["id"])
        assert "**Round 2**" in shown["content"] and not shown["attachments"]


async def test_a_restart_between_rounds_plays_on(emulator: DiscordEmulator, tmp_path) -> None:
    players = Players(emulator, 4)
    settings = settings_for(emulator, tmp_path / "t.sqlite3")
    async with running_bot(emulator, settings):
        message, _ = await sign_up(emulator, players, "single")
        await emulator.invoke(players.organiser, "ttt tournament start")
        await play_round(emulator, players, lambda n: WIN_X, 2)
        await until(lambda: len(waiting_matches(emulator)) == 1, what="the final")
    before = len(uploaded_pictures(emulator, message))
    async with running_bot(emulator, settings):
        assert await play_round(emulator, players, lambda n: WIN_X, 1) == 1
        await champion_shown(emulator, message)
    # the new process knew nothing of the picture shown: the message's own told it that
    # the Ready presses left it as it was; only the final's result was a new one
    uploaded = uploaded_pictures(emulator, message)
    assert (before, len(uploaded), len(set(uploaded))) == (3, 4, 4)
    assert picture_of(emulator, message) == uploaded[-1]


async def test_a_knockout_uploads_each_of_its_pictures_once(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """Each Ready press and each game's end redraws the tournament's message; its picture
    is uploaded only when it changed, and its name says which picture it is."""
    players = Players(emulator, 4)
    async with running_bot(emulator, settings_for(emulator, tmp_path / "t.sqlite3")):
        message, _ = await sign_up(emulator, players, "single")
        await emulator.invoke(players.organiser, "ttt tournament start")
        for count in (2, 1):
            assert await play_round(emulator, players, lambda n: WIN_X, count) == count
        await champion_shown(emulator, message)
    edits = [r for r in emulator.requests
             if r.method == "PATCH" and r.path.endswith(f"/messages/{message['id']}")]  # fmt: skip
    uploaded = uploaded_pictures(emulator, message)
    # the bracket at the start, then after each of the three matches; the six Ready
    # presses changed nothing in it
    assert (len(uploaded), len(set(uploaded))) == (4, 4) and len(edits) >= 4 + 6
    shown = picture_of(emulator, message)
    assert shown == uploaded[-1]
    (attached,) = emulator.message(message["id"])["attachments"]
    assert hashlib.sha256(shown).hexdigest()[:12] in attached["filename"]


def uploaded_pictures(emulator: DiscordEmulator, message: dict) -> list[bytes]:
    """The files uploaded into ``message``, in order."""
    return [emulator.files[a["id"]] for a in emulator.uploads.get(int(message["id"]), [])]


def picture_of(emulator: DiscordEmulator, message: dict) -> bytes:
    """The picture ``message`` shows now: its one attachment, which its embed displays."""
    current = emulator.message(message["id"])
    (embed,) = current["embeds"]
    (attached,) = current["attachments"]  # a redrawn picture replaces the one before
    assert embed["image"]["url"] == attached["url"]  # attachment:// as Discord resolves it
    return emulator.files[attached["id"]]


async def champion_shown(
    emulator: DiscordEmulator, message: dict, timeout: float = WAIT_CEILING
) -> dict:
    def shown() -> dict | None:
        current = emulator.message(message["id"])
        return current if "Champion" in current["content"] else None

    return await until(shown, timeout=timeout, what="the champion")


@pytest.mark.slow  # a bot process started twice, killed in between
async def test_a_tournament_survives_a_sigkill_between_rounds(
    emulator: DiscordEmulator, tmp_path
) -> None:
    players = Players(emulator, 4)
    env = bot_process_env(emulator, tmp_path / "t.sqlite3")
    async with bot_process(emulator, env, tmp_path, ready=1) as bot:
        await emulator.wait_for_commands()
        message, _ = await sign_up(emulator, players, "single", best_of=3)
        await emulator.invoke(players.organiser, "ttt tournament start")
        assert await play_round(emulator, players, lambda n: WIN_X, 2) == 6  # X wins: 2–1
        await until(lambda: len(waiting_matches(emulator)) == 1, what="the final")
        assert await bot.kill() == -signal.SIGKILL
    async with bot_process(emulator, env, tmp_path, ready=2):
        assert await play_round(emulator, players, lambda n: DRAW if n < 2 else WIN_X, 1) == 3
        final = await champion_shown(emulator, message)
    assert "Match 3" in final["content"] and "wins" in final["content"]


@pytest.mark.slow  # waits out a match's time to show up (3 s), two bots on PostgreSQL
async def test_two_processes_on_postgresql_run_one_tournament(
    emulator: DiscordEmulator, tmp_path, pg_database: str
) -> None:
    """The server's shard is one process's: it answers the clicks of round 1. With it
    gone, the other process's timekeeper resolves the final nobody showed up for and
    crowns the champion, on the tournament's message."""
    emulator.shard_count = 2
    emulator.max_concurrency = 2
    home = (emulator.guild.id >> 22) % 2
    common = {"database_url": pg_database, "shard_count": 2}
    answering = settings_for(emulator, tmp_path / "a", shard_ids=(home,), **common)
    other = settings_for(emulator, tmp_path / "b", shard_ids=(1 - home,), **common)
    players = Players(emulator, 4)
    async with running_bot(emulator, other):
        async with running_bot(emulator, answering):
            message, _ = await sign_up(emulator, players, "single", show_up_minutes=0.05)
            await emulator.invoke(players.organiser, "ttt tournament start")
            assert await play_round(emulator, players, lambda n: WIN_X, 2) == 2
            await until(lambda: len(waiting_matches(emulator)) == 1, what="the final")
        gone = len(emulator.requests)  # the answering process is closed: the rest is other's
        final = await champion_shown(emulator, message)

        def final_match() -> list[dict]:
            return [m for m in emulator._messages.values() if "match 3" in m["content"]
                    and "goes through by forfeit" in m["content"]]  # fmt: skip

        await until(final_match, what="the final's message forfeited")  # seed 1 goes through
    later = [r for r in emulator.requests[gone:] if r.method == "PATCH"]
    assert any(r.path.endswith(f"/messages/{message['id']}") for r in later)
    assert final["attachments"] and final["embeds"]


async def test_cancelling_ends_the_games_and_closes_the_matches(
    emulator: DiscordEmulator, tmp_path
) -> None:
    players = Players(emulator, 4)
    async with running_bot(emulator, settings_for(emulator, tmp_path / "t.sqlite3")):
        message, _ = await sign_up(emulator, players, "single")
        await emulator.invoke(players.organiser, "ttt tournament start")
        matches = await until(lambda: len(waiting_matches(emulator)) == 2
                              and waiting_matches(emulator), what="two matches")  # fmt: skip
        playing = matches[0]
        (ready,) = _ids(playing, ReadyClick)
        for user_id in MENTION.findall(playing["content"])[:2]:
            await emulator.click(
                players.by_id[int(user_id)], playing, custom_ids.ready(ready.match_id)
            )
        board = await until(lambda: running_board(emulator, playing["channel_id"]), what="a board")
        res = await emulator.invoke(players.members[0], "ttt tournament cancel")
        assert res.ephemeral and "Manage Server" in res.content
        res = await emulator.invoke(players.organiser, "ttt tournament cancel")
        assert res.ephemeral and "is cancelled" in res.content
        await until(lambda: not waiting_matches(emulator), what="no Ready left")
        # the step shows the matches' messages, then the games it ended
        await until(lambda: "ended by" in emulator.message(board["id"])["content"],
                    what="the game ended")  # fmt: skip
        assert running_board(emulator, playing["channel_id"]) is None
        assert "not played" in emulator.message(matches[1]["id"])["content"]
        shown = await until(lambda: "Cancelled" in emulator.message(message["id"])["content"]
                            and emulator.message(message["id"]), what="the cancel")  # fmt: skip
        assert "Champion" not in shown["content"]
        res = await emulator.invoke(players.organiser, "ttt tournament status")
        assert res.ephemeral and "no tournament" in res.content


async def test_a_tournament_whose_message_discord_refuses_does_not_hold_the_channel(
    emulator: DiscordEmulator, tmp_path
) -> None:
    players = Players(emulator, 2)
    async with running_bot(emulator, settings_for(emulator, tmp_path / "t.sqlite3")):
        emulator.faults.add("POST", r"^/interactions/\d+/[^/]+/callback$", 403, code=50013)
        res = await emulator.invoke(players.organiser, "ttt tournament create",
                                    {"name": "Lost", "format": "single"})  # fmt: skip
        assert res.ephemeral and "no tournament was opened" in res.content
        message, _ = await sign_up(emulator, players, "single")  # the channel is free
        assert "2/16" in message["content"]
