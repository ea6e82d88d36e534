"""The Activity's sessions through the real app and the emulator: a session lasts 15
minutes, an intent (a POST) is refused to a member no longer in the Activity instance,
and /ttt forget-me or a ban ends the member's sessions at once, in every process (a
not-before stamp in the database, on SQLite and on PostgreSQL)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.i18n import text
from bot.web.instances import FAILED_FOR, RUNNING_FOR
from bot.web.sessions import LIFETIME, Gate

from bot_harness import eventually, running_bot, settings_for
from discord_emulator import DiscordEmulator, find_button
from web_harness import Page, bot_with_web, live_socket, sign_in

CLOSED = (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSING, aiohttp.WSMsgType.CLOSED)


def gate_of(bot) -> Gate:
    assert bot.web is not None and bot.web.service.api is not None
    gate: Gate = bot.web.service.api.gate
    return gate


async def test_a_session_lasts_fifteen_minutes(emulator: DiscordEmulator, tmp_path) -> None:
    alice = emulator.create_user("alice")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (bot, base, http):
        page = await sign_in(emulator, http, base, alice)
        sessions = gate_of(bot).sessions
        assert LIFETIME == 15 * 60
        sessions.clock = lambda: time.time() + LIFETIME - 5  # not quite over
        assert (await page.get("/api/games"))[0] == 200
        sessions.clock = lambda: time.time() + LIFETIME  # over
        status, body = await page.get("/api/games")
        assert (status, body["error"]) == (401, "bad_session")
        status, body = await page.post("/api/games", {"difficulty": "easy"})
        assert (status, body["error"]) == (401, "bad_session")
        again = await sign_in(emulator, http, base, alice)  # as the page does on a 401
        assert (await again.get("/api/games"))[0] == 200


async def test_a_member_who_left_the_instance_is_refused_every_intent(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """Within the while an instance is kept, then for sure: 403 ``not_in_instance`` with
    the reason in the member's language on every POST (games and puzzles alike); what
    they read is still answered until the session ends; nothing changed."""
    alice, bob = emulator.create_user("alice", locale="fr"), emulator.create_user("bob")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (bot, base, http):
        page = await sign_in(emulator, http, base, alice)
        bobs = await sign_in(emulator, http, base, bob)  # joined after the instance was kept
        status, body = await page.post("/api/games", {"difficulty": "easy"})
        assert status == 200, body
        game = body["game"]
        emulator.leave_activity(alice, emulator.launch_activity(alice))  # the one she is in
        emulator.advance(RUNNING_FOR)  # the instance kept is read again
        left = text("web.left", "fr")
        intents = [
            (f"/api/games/{game['id']}/move", {"ply": game["ply"], "cell": 4}),
            (f"/api/games/{game['id']}/resign", {}),
            (f"/api/games/{game['id']}/hint", {"ply": game["ply"]}),
            ("/api/games", {"difficulty": "hard"}),
            ("/api/puzzles", {"mode": "daily"}),
        ]
        for path, intent in intents:
            status, body = await page.post(path, intent)
            assert (status, body["error"], body["reason"]) == (403, "not_in_instance", left)
        (stored,) = await bot.repo.running_games_in(emulator.channel.id)
        assert stored.ply == game["ply"] and stored.running
        assert (await page.get("/api/games"))[0] == 200  # reading is no intent
        status, body = await bobs.post("/api/puzzles", {"mode": "training"})  # bob stayed
        assert status == 200, body


@contextlib.asynccontextmanager
async def web_beside_bot(
    emulator: DiscordEmulator, database: Path | str, tmp_path: Path
) -> AsyncIterator[tuple[Any, str, aiohttp.ClientSession]]:
    """The pages and the chat in one process on SQLite; on PostgreSQL, the pages in a
    web-only process beside the bot's, which handles /ttt forget-me. Yields the pages'
    bot, their base URL and a client."""
    if isinstance(database, str):
        chat = settings_for(emulator, tmp_path / "unused.sqlite3", database_url=database)
        async with (
            running_bot(emulator, chat),
            bot_with_web(emulator, tmp_path / "unused2.sqlite3", database_url=database,
                         web_only=True) as (web, base, http),
        ):  # fmt: skip
            yield web, base, http
    else:
        async with bot_with_web(emulator, database) as (web, base, http):
            yield web, base, http


async def forget_me(emulator: DiscordEmulator, user) -> None:
    asked = await emulator.invoke(user, "ttt forget-me")
    button = find_button(asked.message, label="Delete my data")
    done = await emulator.click(user, asked.message, button["custom_id"])
    assert done.content.startswith("Done"), done.content


async def test_forget_me_ends_the_sessions_issued_before_it(
    emulator: DiscordEmulator, database: Path | str, tmp_path
) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with web_beside_bot(emulator, database, tmp_path) as (web, base, http):
        page = await sign_in(emulator, http, base, alice)
        bobs = await sign_in(emulator, http, base, bob)
        assert (await page.get("/api/games"))[0] == 200
        heard: list[int | None] = []
        gate_of(web).revoked.append(heard.append)  # as the live pages listen
        await forget_me(emulator, alice)
        for answer in (await page.get("/api/games"), await page.get("/api/puzzles"),
                       await page.post("/api/games", {"difficulty": "easy"})):  # fmt: skip
            assert (answer[0], answer[1]["error"]) == (401, "bad_session")
        assert (await bobs.get("/api/games"))[0] == 200  # only hers
        again: Page = await sign_in(emulator, http, base, alice)  # a new one holds
        assert (await again.post("/api/games", {"difficulty": "easy"}))[0] == 200
        # the pages' process heard it (PostgreSQL's NOTIFY from the bot's process)
        await eventually(lambda: heard, "the revocation heard")
        assert heard == [alice.id]


async def test_a_ban_ends_the_members_sessions(emulator: DiscordEmulator, tmp_path) -> None:
    """ttt asks for the GUILD_MODERATION intent (not privileged): where the server let it
    hear bans, a ban revokes at once; where not, the banned member left the voice
    channel and so the instance, and their next intent is refused."""
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (_, base, http):
        assert emulator.identify_payloads[-1]["intents"] & (1 << 2)
        page = await sign_in(emulator, http, base, alice)
        bobs = await sign_in(emulator, http, base, bob)
        async with live_socket(http, base, page.session) as board:
            assert (await board.receive_json())["type"] == "games"  # her page is open
            emulator.ban(alice)
            # the event comes over the gateway: her open page is closed as it arrives
            async with asyncio.timeout(10):
                closing = await board.receive()
                while closing.type not in CLOSED:  # a "closing" message may come first
                    closing = await board.receive()
            assert (closing.type, board.close_code) in {
                (aiohttp.WSMsgType.CLOSE, 4001),
                (aiohttp.WSMsgType.CLOSED, 4001),
            }
        status = await eventually(lambda: _status(page), "alice's session refused")
        assert status == 401
        status, body = await page.post("/api/games", {"difficulty": "easy"})
        assert (status, body["error"]) == (401, "bad_session")
        emulator.ban(bob, bot_told=False)  # a server that granted ttt neither permission
        assert (await bobs.get("/api/games"))[0] == 200  # the session itself holds...
        emulator.advance(RUNNING_FOR)
        status, body = await bobs.post("/api/games", {"difficulty": "easy"})
        assert (status, body["error"]) == (403, "not_in_instance")  # ...no intent does


async def _status(page: Page) -> int | None:
    status, _ = await page.get("/api/games")
    return status if status != 200 else None


@pytest.mark.parametrize("stamp_first", [True, False])
async def test_the_stamp_only_moves_forward(
    database: Path | str, stamp_first: bool, make_core
) -> None:
    core = await make_core()
    repo = core.repo
    assert await repo.sessions_not_before(7) is None
    await repo.revoke_sessions(7, 100.0 if stamp_first else 50.0)
    await repo.revoke_sessions(7, 50.0 if stamp_first else 100.0)
    assert await repo.sessions_not_before(7) == 100.0
    assert await repo.sessions_not_before(8) is None


async def test_an_intent_is_answered_when_discord_does_not_answer_the_presence_read(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """The member was in the instance when Discord last said: their intents go on, and
    Discord is not asked again for every one while it fails."""
    alice = emulator.create_user("alice")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (_, base, http):
        page = await sign_in(emulator, http, base, alice)
        emulator.advance(RUNNING_FOR)  # the instance kept must be read again
        emulator.faults.add("GET", "/activity-instances/", 403, times=10)

        def reads() -> int:
            return sum(1 for r in emulator.requests if "/activity-instances/" in r.path)

        before = reads()
        for _ in range(3):
            status, body = await page.post("/api/puzzles", {"mode": "training"})
            assert status == 200, body
        assert reads() == before + 1  # one read failed; not asked again meanwhile
        emulator.advance(FAILED_FOR)
        assert (await page.post("/api/puzzles", {"mode": "training"}))[0] == 200
        assert reads() == before + 2
