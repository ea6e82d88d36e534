"""A signed interaction sent again (issue 47, item 7): someone who captured a request
Discord signed (from a log, a proxy) POSTs it again, as it went, within the timestamp's
five minutes, to the same process or another on the same database. It changes nothing
and reveals nothing: refused with a 409 that holds nothing of the answer, the original
answered as ever. The emulator keeps each request as it went (``http_mode.replay``)."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from bot.core.repository import Repository
from bot.discord_ui import custom_ids
from bot.i18n import text
from bot.web.replays import DISCORD_EPOCH_MS, KEEP, PURGE_EVERY, Replays, snowflake_at
from bot.web.signature import MAX_SKEW, Verifier

from bot_harness import accepted_member_game, board_of, cell_id, eventually, stored_games
from core_harness import open_repo
from discord_emulator import DiscordEmulator, buttons
from web_harness import bot_over_http

REFUSED = {"error": "replayed", "reason": "this interaction was already received"}


def _button(message: dict, kind: type) -> str:
    """The custom_id of the message's button of that kind (Accept, Hint)."""
    (found,) = [b["custom_id"] for row in buttons(message) for b in row
                if isinstance(custom_ids.parse(b["custom_id"]), kind)]  # fmt: skip
    return str(found)


def _bot_requests(emu: DiscordEmulator, token: str) -> list[str]:
    """What the bot asked of Discord through an interaction's token."""
    return [f"{r.method} {r.path}" for r in emu.requests if token in r.path]


async def test_a_start_sent_again_to_the_same_process_starts_nothing_and_shows_nothing(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    alice = emulator.create_user("alice")
    async with bot_over_http(emulator, tmp_path / "ttt.sqlite3") as (bot, _base, _http):
        start = await emulator.invoke(alice, "ttt start", {"difficulty": "easy", "first": "me"})
        assert start.type == 4 and start.record.id in emulator.http_mode.answered
        shown = len(emulator.channel_messages(emulator.channel))
        asked = _bot_requests(emulator, start.record.token)
        for _ in range(3):
            assert await emulator.http_mode.replay(start.record.id) == (409, REFUSED)
        assert bot.web is not None and bot.web.service.interactions is not None
        assert bot.web.service.interactions.replays_refused == 3
        # no second game, no message, no request about it: nothing was routed
        assert len(await bot.repo.running_games_in(emulator.channel.id)) == 1
        assert len(emulator.channel_messages(emulator.channel)) == shown
        assert _bot_requests(emulator, start.record.token) == asked
        # the original is untouched: its game goes on
        board = start.message
        click = await emulator.click(alice, board, cell_id(board, 4))
        assert click.type == 7 and board_of(click.message)[4] == "X"
    assert emulator.violations == []


async def test_copies_seen_here_and_forgeries_cost_no_claim(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    """A copy of an interaction this process saw claimed is refused from its memory: no
    claim is asked of the database. A forgery costs its signature check and nothing
    more: refused before any claim, and before its body is parsed (a forged body that
    is no JSON is a 401, not a 400). The database still holds the claim for the other
    processes."""
    alice = emulator.create_user("alice")
    mode = emulator.http_mode
    async with bot_over_http(emulator, tmp_path / "ttt.sqlite3") as (bot, _base, _http):
        start = await emulator.invoke(alice, "ttt start", {"difficulty": "easy", "first": "me"})
        assert start.type == 4
        assert bot.web is not None and bot.web.service.interactions is not None
        replays = bot.web.service.interactions.replays
        claims = replays.claims
        for _ in range(5):
            assert await mode.replay(start.record.id) == (409, REFUSED)
        assert replays.claims == claims  # five copies, no claim asked
        body, headers = mode.sent[start.record.id]
        other = type(mode)(emulator)  # another application's key pair
        stamp = headers["X-Signature-Timestamp"]
        nest = b"[" * 50_000  # json.loads would give up on it: a 400, were it parsed
        forged = {
            "another key's signature": (body, {**headers, "X-Signature-Ed25519":
                                               other.sign(stamp, body)}),
            "a body that is no JSON": (nest, {**headers, "X-Signature-Ed25519":
                                              other.sign(stamp, nest)}),
            "an old timestamp, signed": (body, mode.headers(body, at=time.time() - 3600)),
            "no signature": (nest, {"Content-Type": "application/json"}),
        }  # fmt: skip
        for what, (sent, sent_headers) in forged.items():
            status, answer = await mode.post_raw(sent, sent_headers)
            assert (status, answer["error"]) == (401, "bad_signature"), what
        assert replays.claims == claims
        elsewhere = Replays(bot.repo.claim_interaction)  # another process, its memory empty
        assert await elsewhere.first(start.record.id) is False and elsewhere.claims == 1
    assert emulator.violations == []


@pytest.mark.postgres
async def test_a_start_sent_again_to_another_process_on_the_database_is_refused(
    emulator: DiscordEmulator, pg_database: str, tmp_path: Path
) -> None:
    """Two gateway-less processes on one PostgreSQL (as behind nginx): the request went
    to the first; its copy, sent to the second, finds it claimed there."""
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with (
        bot_over_http(emulator, tmp_path / "a.sqlite3", database_url=pg_database) as (_a, a, _),
        bot_over_http(emulator, tmp_path / "b.sqlite3", database_url=pg_database) as (_b, b, _),
    ):  # fmt: skip
        emulator.use_http(f"{a}/interactions")
        start = await emulator.invoke(alice, "ttt start", {"opponent": bob, "first": "me"})
        assert start.type == 4 and start.record.id in emulator.http_mode.answered
        status, answer = await emulator.http_mode.replay(start.record.id, f"{b}/interactions")
        assert (status, answer) == (409, REFUSED)
        # the challenge, once: bob accepts it (through the second process) into one game
        emulator.use_http(f"{b}/interactions")
        accept = _button(start.message, custom_ids.AcceptClick)
        accepted = await emulator.click(bob, start.message, accept)
        assert accepted.type == 7
        assert await emulator.http_mode.replay(accepted.record.id, f"{a}/interactions") == (
            409, REFUSED)  # fmt: skip
    assert len(await stored_games(pg_database)) == 1
    assert emulator.violations == []


async def test_a_click_sent_again_is_applied_once(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with bot_over_http(emulator, tmp_path / "ttt.sqlite3") as (bot, _base, _http):
        board = await accepted_member_game(emulator, alice, bob)
        click = await emulator.click(alice, board, cell_id(board, 4))
        assert click.type == 7
        after = emulator.message(board["id"])
        assert await emulator.http_mode.replay(click.record.id) == (409, REFUSED)
        (game,) = await bot.repo.running_games_in(int(board["channel_id"]))
        assert game.ply == 1 and emulator.message(board["id"]) == after
        assert _bot_requests(emulator, click.record.token) == [
            f"POST /interactions/{click.record.id}/{click.record.token}/callback"
        ]  # the original's answer, in its response; nothing for the copy
    assert emulator.violations == []


async def test_a_hint_sent_again_repeats_no_private_answer(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    alice = emulator.create_user("alice")
    async with bot_over_http(emulator, tmp_path / "ttt.sqlite3"):
        start = await emulator.invoke(alice, "ttt start", {"difficulty": "hard", "first": "me"})
        hint = _button(start.message, custom_ids.HintClick)
        answer = await emulator.click(alice, start.message, hint)
        assert answer.type == 4 and answer.ephemeral and "Hint" in answer.content
        status, body = await emulator.http_mode.replay(answer.record.id)
        assert (status, body) == (409, REFUSED)  # no "data", no content: nothing to read
    assert emulator.violations == []


async def test_stats_sent_again_while_the_original_is_answered_changes_nothing(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    """``/ttt stats`` answers by a callback POSTed to the REST API (its chart), held here
    by the emulator: the copy comes while the original is still being answered, and is
    refused; the original gets its one callback and its 202 as ever."""
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with bot_over_http(emulator, tmp_path / "ttt.sqlite3"):
        message = await accepted_member_game(emulator, alice, bob)
        for i, cell in enumerate((0, 3, 1, 4, 2)):  # alice wins the top row
            message = (await emulator.click((alice, bob)[i % 2], message,
                                            cell_id(message, cell))).message  # fmt: skip
        callback = r"^/interactions/\d+/[^/]+/callback$"
        emulator.faults.hold("POST", callback, 1.5)  # a bound; the test waits on arrivals
        before = len(emulator.interactions)
        pending = asyncio.ensure_future(emulator.invoke(alice, "ttt stats"))

        def held() -> Any:
            recs = list(emulator.interactions.values())[before:]
            return recs and any(f"/interactions/{recs[0].id}/" in r.path for r in emulator.requests)

        await eventually(held, "the stats callback held by the emulator")
        (rec,) = list(emulator.interactions.values())[before:]
        assert not pending.done()  # the original is still being answered
        assert await emulator.http_mode.replay(rec.id) == (409, REFUSED)
        result = await pending
        assert result.type == 4 and result.ephemeral and result.message["attachments"]
        await emulator.http_mode.delivered()  # the original's 202
        path = f"/interactions/{rec.id}/{rec.token}/callback"
        assert [r.method for r in emulator.requests if r.path == path] == ["POST"]
    assert emulator.violations == []


async def test_a_copy_sent_after_the_window_is_refused_by_its_timestamp(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    """Past the five minutes, the timestamp check refuses the copy before any claim is
    looked at (the endpoint's clock moved on: an injected one)."""
    alice = emulator.create_user("alice")
    async with bot_over_http(emulator, tmp_path / "ttt.sqlite3") as (bot, _base, _http):
        start = await emulator.invoke(alice, "ttt start", {"difficulty": "easy", "first": "me"})
        assert start.type == 4
        assert bot.web is not None and bot.web.service.interactions is not None
        endpoint = bot.web.service.interactions
        later = time.time() + MAX_SKEW + 1
        endpoint.verifier = Verifier(emulator.public_key, clock=lambda: later)
        status, body = await emulator.http_mode.replay(start.record.id)
        assert (status, body) == (
            401, {"error": "bad_signature", "reason": "the timestamp is too old or in the future"}
        )  # fmt: skip
        assert endpoint.replays_refused == 0  # refused before its claim was looked at
        assert len(await bot.repo.running_games_in(emulator.channel.id)) == 1


async def test_an_interaction_that_cannot_be_claimed_gets_the_apology_and_nothing_else(
    emulator: DiscordEmulator, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The claim fails (here its table is gone: a fault; an outage is answered alike):
    the interaction is not routed unclaimed, where a copy could then pass, but answered
    with the private apology, which is true (nothing was changed) and in time. A copy
    is refused; once claims get through again, it is claimed for every process."""
    alice = emulator.create_user("alice", locale="fr")
    database = tmp_path / "ttt.sqlite3"
    async with bot_over_http(emulator, database) as (bot, _base, _http):
        with sqlite3.connect(database) as other:
            other.execute("DROP TABLE interaction_claims")
        with caplog.at_level(logging.WARNING, logger="bot.web.interactions"):
            start = await emulator.invoke(alice, "ttt start", {"first": "me"})
        assert start.type == 4 and start.ephemeral
        assert start.content == text("error.generic", "fr") != text("error.generic", "en")
        assert await bot.repo.running_games_in(emulator.channel.id) == []
        assert _bot_requests(emulator, start.record.token) == [
            f"POST /interactions/{start.record.id}/{start.record.token}/callback"
        ]
        assert any(f"interaction {start.record.id} could not be claimed" in r.getMessage()
                   for r in caplog.records)  # fmt: skip
        assert await emulator.http_mode.replay(start.record.id) == (409, REFUSED)
        with sqlite3.connect(database) as other:  # the database mended
            other.execute("CREATE TABLE interaction_claims (interaction_id INTEGER PRIMARY KEY)")
        again = await emulator.invoke(alice, "ttt start", {"first": "me"})
        assert again.type == 4 and not again.ephemeral  # the game, and the claim before
        assert bot.web is not None and bot.web.service.interactions is not None
        assert bot.web.service.interactions.replays.unclaimed == {}
        elsewhere = Replays(bot.repo.claim_interaction)  # another process on the database
        assert await elsewhere.first(start.record.id) is False
    assert emulator.violations == []


async def test_claims_are_kept_through_the_window_and_forgotten_after(
    database: Path | str,
) -> None:
    """On both databases, with an injected clock: a claim holds for :data:`KEEP` seconds
    past its interaction's creation (the snowflake's time), then a later claim deletes
    it; the deletion runs once a minute at most."""
    repo: Repository = open_repo(database)
    await repo.open()
    try:
        now = [1_800_000_000.0]
        replays = Replays(repo.claim_interaction, clock=lambda: now[0])

        def made(at: float, n: int = 0) -> int:
            return snowflake_at(at) + n  # an interaction Discord made at ``at``

        old = made(now[0])
        assert await replays.first(old) is True
        assert await replays.first(old) is False
        now[0] += KEEP - 1  # still within: kept
        recent = made(now[0])
        assert await replays.first(recent) is True
        assert await replays.first(old) is False
        now[0] += 2  # past it, but the last deletion was under a minute ago
        assert await replays.first(made(now[0], 1)) is True
        assert await replays.first(old) is False
        now[0] += PURGE_EVERY  # the next claim deletes the old one, not the recent
        assert await replays.first(made(now[0], 2)) is True
        assert await replays.first(old) is True  # forgotten (its timestamp long refused)
        assert await replays.first(recent) is False
    finally:
        await repo.close()


async def test_a_process_remembers_the_claims_it_saw_while_the_database_keeps_them(
    database: Path | str,
) -> None:
    """On both databases, an injected clock: an id this process claimed, or found claimed
    by another, is refused from memory after (copies at once included: one claim for
    all); once the database forgets it (:data:`KEEP` past its creation), so does the
    process, and the database is asked again."""
    repo: Repository = open_repo(database)
    await repo.open()
    try:
        now = [1_800_000_000.0]
        replays = Replays(repo.claim_interaction, clock=lambda: now[0])
        other = Replays(repo.claim_interaction, clock=lambda: now[0])  # another process
        ours, theirs = snowflake_at(now[0]), snowflake_at(now[0]) + 1
        first, *copies = await asyncio.gather(*(replays.first(ours) for _ in range(10)))
        assert (first, copies, replays.claims) == (True, [False] * 9, 1)
        assert await other.first(theirs) is True
        assert await replays.first(theirs) is False and replays.claims == 2  # found there
        for _ in range(3):
            assert await replays.first(ours) is False
            assert await replays.first(theirs) is False
        assert replays.claims == 2  # from memory
        now[0] += KEEP + 1  # both forgotten here; the database's deletion is due too
        assert await replays.first(snowflake_at(now[0])) is True  # which deletes them there
        assert replays.recent == {snowflake_at(now[0]): None}
        assert await replays.first(ours) is True and replays.claims == 4  # asked again
    finally:
        await repo.close()


def test_a_snowflake_carries_its_time() -> None:
    """Discord's own example (its Reference page): 175928847299117063 was made at
    1462015105796 ms since 1970."""
    made = 175928847299117063
    assert (made >> 22) + DISCORD_EPOCH_MS == 1462015105796
    assert snowflake_at(1462015105.0) < made < snowflake_at(1462015106.0)
    assert snowflake_at(time.time() + 10 * 365 * 86400) < 2**63  # a BIGINT for long yet
