"""Interactions over HTTP (issue 43): Discord POSTs each interaction to the bot's
Interactions Endpoint URL, signed, and takes the HTTP response as its answer. The
emulator signs with a key pair of its own (``emu.public_key``), POSTs, and holds the
response to the spec and the 3-second deadline as it holds a REST callback."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator

from discord.state import ConnectionState
from discord.webhook.async_ import async_context
from nacl.signing import SigningKey

from bot.discord_ui import http_answers
from bot.web import interactions
from bot.web.signature import Verifier

from bot_harness import accepted_member_game, board_of, cell_id, with_marks
from discord_emulator import DiscordEmulator
from web_harness import bot_over_http, bot_with_web


def _requests_to(emu: DiscordEmulator, interaction_id: int) -> list[str]:
    return [f"{r.method} {r.path}" for r in emu.requests
            if f"/interactions/{interaction_id}/" in r.path]  # fmt: skip


async def test_a_game_is_played_over_http_each_answer_in_its_response(
    emulator: DiscordEmulator, tmp_path
) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3",
                            public_key=emulator.public_key) as (bot, base, _):  # fmt: skip
        emulator.use_http(f"{base}/interactions")
        status, body = await emulator.http_mode.post_raw(
            b'{"type": 1}', emulator.http_mode.headers(b'{"type": 1}')
        )
        assert (status, body) == (200, {"type": 1})  # PING: PONG
        start = await emulator.invoke(alice, "ttt start", {"opponent": bob, "first": "me"})
        assert start.type == 4 and start.record.id in emulator.http_mode.answered
        challenge = start.message
        accept = challenge["components"][0]["components"][0]["custom_id"]
        accepted = await emulator.click(bob, challenge, accept)
        assert accepted.type in (4, 7) and accepted.record.id in emulator.http_mode.answered
        board = accepted.message
        (game,) = await bot.repo.running_games_in(int(board["channel_id"]))
        assert game.message_id == int(board["id"])  # read back after the HTTP answer
        for user, cell, marks in ((alice, 4, 1), (bob, 0, 2), (alice, 8, 3)):
            current = emulator.message(board["id"])
            click = await emulator.click(user, current, cell_id(current, cell))
            assert click.type == 7 and click.record.id in emulator.http_mode.answered
            # one answer, in the HTTP response: nothing POSTed to the REST callback
            assert _requests_to(emulator, click.record.id) == [
                f"POST /interactions/{click.record.id}/{click.record.token}/callback"
            ]
            await with_marks(emulator, board, marks)
        assert board_of(emulator.message(board["id"])) == "O...X...X"
        (stored,) = await bot.repo.running_games_in(int(board["channel_id"]))
        assert stored.ply == 3
    assert emulator.violations == []


async def test_forged_stale_and_oversized_requests_are_refused_and_change_nothing(
    emulator: DiscordEmulator, tmp_path
) -> None:
    alice = emulator.create_user("alice")
    mode = emulator.http_mode
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3",
                            public_key=emulator.public_key) as (bot, base, http):  # fmt: skip
        mode.url = f"{base}/interactions"
        # a /ttt start as Discord would send it, sent by the test itself
        payload = emulator.command_payload(alice, "ttt start", {"first": "me"})
        body = json.dumps(payload).encode()
        good = mode.headers(body)

        def flipped(text: str, at: int = 0) -> str:
            return text[:at] + ("1" if text[at] != "1" else "2") + text[at + 1 :]

        wrong_key = {**good}
        other = type(mode)(emulator)  # another application's key pair
        wrong_key["X-Signature-Ed25519"] = other.sign(good["X-Signature-Timestamp"], body)
        old = time.time() - 3600
        cases = {
            "a flipped byte of the body": (body[:-2] + b" }", good),
            "a flipped byte of the signature": (body, {**good, "X-Signature-Ed25519":
                                                       flipped(good["X-Signature-Ed25519"], 5)}),
            "a flipped byte of the timestamp": (body, {**good, "X-Signature-Timestamp":
                                                       flipped(good["X-Signature-Timestamp"], 3)}),
            "an old timestamp, signed": (body, mode.headers(body, at=old)),
            "a timestamp in the future, signed": (body, mode.headers(body, at=time.time() + 3600)),
            "another key's signature": (body, wrong_key),
            "no signature": (body, {"Content-Type": "application/json"}),
        }  # fmt: skip
        for what, (sent, headers) in cases.items():
            status, answer = await mode.post_raw(sent, headers)
            assert (status, answer["error"]) == (401, "bad_signature"), what
        # a signed body that arrives in pieces (chunked, with pauses) is read whole
        padded = b'{"type": 1, "pad": "' + b"x" * 40_000 + b'"}'

        async def pieces() -> AsyncIterator[bytes]:
            for at in range(0, len(padded), 4096):
                yield padded[at : at + 4096]
                await asyncio.sleep(0.005)

        async with http.post(mode.url, data=pieces(), headers=mode.headers(padded)) as res:
            assert (res.status, await res.json()) == (200, {"type": 1})
        huge = b'{"type": 2, "pad": "' + b"x" * 300_000 + b'"}'
        status, answer = await mode.post_raw(huge, mode.headers(huge))
        assert (status, answer["error"]) == (413, "too_large")
        broken = b'{"type": 2,'
        status, answer = await mode.post_raw(broken, mode.headers(broken))
        assert (status, answer["error"]) == (400, "bad_request")
        # nothing happened: no game, no message, no request from the bot about it
        assert await bot.repo.running_games_in(emulator.channel.id) == []
        assert not [r for r in emulator.requests if payload["token"] in r.path]
        # and a member's /ttt start, signed by Discord, is answered: one game, theirs
        started = await emulator.invoke(alice, "ttt start", {"first": "me"})
        assert started.type == 4 and started.record.id in mode.answered
        assert len(await bot.repo.running_games_in(emulator.channel.id)) == 1
    assert emulator.violations == []


async def test_a_process_without_the_gateway_plays_a_game_against_the_bot(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """TTT_GATEWAY=off: no gateway connection at all; the commands synced at start-up,
    every interaction over HTTP, the bot's reply shown as on the gateway path."""
    alice = emulator.create_user("alice")
    async with bot_over_http(emulator, tmp_path / "ttt.sqlite3") as (bot, _base, _http):
        assert emulator.ready_count == 0 and emulator.gateway.session_for(None) is None
        start = await emulator.invoke(alice, "ttt start", {"difficulty": "hard", "first": "me"})
        assert start.type == 4 and start.record.id in emulator.http_mode.answered
        board = start.message
        click = await emulator.click(alice, board, cell_id(board, 4))
        assert click.type == 7 and click.record.id in emulator.http_mode.answered
        shown = board_of(emulator.message(board["id"]))
        assert shown[4] == "X" and shown.count("O") == 1
        (game,) = await bot.repo.running_games_in(int(board["channel_id"]))
        assert game.message_id == int(board["id"]) and game.ply == 2
    assert emulator.violations == []


async def test_a_message_read_back_before_discord_made_it_is_read_again(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """Discord makes the message of an HTTP answer after the response; the bot's read of
    it (for its id) may come first and be told Unknown Message. The game is not given
    up for that: the read is tried again, and the board's message is the game's."""
    alice = emulator.create_user("alice")
    emulator.http_mode.apply_lag = 0.3
    async with bot_over_http(emulator, tmp_path / "ttt.sqlite3") as (bot, _base, _http):
        start = await emulator.invoke(alice, "ttt start", {"first": "me"})
        assert start.type == 4
        board = start.message
        reads = [r for r in start.answers if r.method == "GET"]
        assert len(reads) >= 2, "the first read came before the message was made"
        (game,) = await bot.repo.running_games_in(int(board["channel_id"]))
        await eventually_attached(bot, game.id, int(board["id"]))
        click = await emulator.click(alice, board, cell_id(board, 4))
        assert click.type == 7 and board_of(emulator.message(board["id"]))[4] == "X"
    assert emulator.violations == []


async def eventually_attached(bot, game_id: int, message_id: int) -> None:
    async def attached() -> bool:
        game = await bot.repo.get_game(game_id)
        return game is not None and game.message_id == message_id

    for _ in range(100):
        if await attached():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"game {game_id} never got message {message_id}")


def test_the_internals_answering_over_http_leans_on_are_checked(monkeypatch) -> None:
    """A discord.py whose internals changed stops the start with one line (runner.py)
    rather than failing every interaction: the check sees a changed parameter."""
    assert http_answers.internals_problems() == []

    def parse(self: object, payload: dict) -> None:
        """discord.py's parser with its parameter renamed."""

    monkeypatch.setattr(ConnectionState, "parse_interaction_create", parse)
    assert http_answers.internals_problems() == [
        "ConnectionState.parse_interaction_create takes no data"
    ]


def test_the_timestamp_may_be_five_minutes_off_and_must_be_whole_seconds() -> None:
    """The replay window, on an injected clock: 300 s either way, not a second more; a
    signed timestamp that is not whole seconds is refused too."""
    key = SigningKey.generate()
    now = 1_800_000_000.0
    verifier = Verifier(key.verify_key.encode().hex(), clock=lambda: now)
    body = b'{"type": 1}'

    def refusal(timestamp: str) -> str | None:
        signature = key.sign(timestamp.encode() + body).signature.hex()
        return verifier.refusal(signature, timestamp, body)

    assert refusal(str(int(now) - 300)) is None and refusal(str(int(now) + 300)) is None
    assert (
        refusal(str(int(now) - 301))
        == refusal(str(int(now) + 301))
        == ("the timestamp is too old or in the future")
    )
    for odd in ("nan", "1.8e9", "-1", "１８００００００００", "9" * 5000):  # int() refuses 5000
        assert refusal(odd) == "the timestamp is not a number of seconds", odd


async def test_an_answer_that_could_not_be_written_lets_the_game_go_on(
    emulator: DiscordEmulator, tmp_path, monkeypatch
) -> None:
    """The connection is gone when the answer is ready (Discord gave up at its 3 s, say):
    the click that made it is told it expired, and nothing waits for ever holding the
    game's lock: the next click on that game is answered."""
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with bot_over_http(emulator, tmp_path / "ttt.sqlite3") as (bot, _base, _http):
        board = await accepted_member_game(emulator, alice, bob)
        writes = interactions._response

        def gone(answer: object) -> object:
            monkeypatch.setattr(interactions, "_response", writes)  # this answer only
            raise ConnectionResetError("the client went away")

        monkeypatch.setattr(interactions, "_response", gone)
        lost = await emulator.click(alice, board, cell_id(board, 4))
        assert lost.type is None  # never answered: the member saw it fail
        assert any("the endpoint answered 503" in v for v in emulator.violations)
        emulator.violations.clear()
        (game,) = await bot.repo.running_games_in(int(board["channel_id"]))
        # the move was stored, as a click answered too late is, and shown by an edit of
        # the board's message; the game goes on
        await with_marks(emulator, board, 1)
        current = emulator.message(board["id"])
        ply = game.ply
        nxt = await emulator.click(bob if ply % 2 else alice, current,
                                   cell_id(current, 0))  # fmt: skip
        assert nxt.type == 7, nxt
    assert emulator.violations == []


async def test_an_http_answer_shares_the_process_rate_limit_locks(
    emulator: DiscordEmulator, tmp_path, monkeypatch
) -> None:
    """The adapter an interaction over HTTP answers through waits on the same rate-limit
    locks as every other webhook request of the process (a timer editing the same message
    through the interaction's token, say), as discord.py's one adapter does over the
    gateway: a table of its own would let the two race a 429."""
    shared = async_context.get()
    seen: list[object] = []
    request = http_answers.CapturingAdapter.request

    async def recording(self: http_answers.CapturingAdapter, *args: object, **kwargs: object):
        seen.append(self._locks)
        return await request(self, *args, **kwargs)

    monkeypatch.setattr(http_answers.CapturingAdapter, "request", recording)
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with bot_over_http(emulator, tmp_path / "ttt.sqlite3"):
        board = await accepted_member_game(emulator, alice, bob)
        click = await emulator.click(alice, board, cell_id(board, 4))
        assert click.type == 7
    assert len(seen) >= 3  # the start, the accept, the click
    assert all(locks is shared._locks for locks in seen)
    assert emulator.violations == []


async def test_an_answer_with_a_picture_is_posted_and_the_request_answered_202(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """Discord fails an interaction whose HTTP response is multipart/form-data (files:
    discord-api-docs#5933, and the emulator holds to it), so ``/ttt stats`` with its
    rating chart POSTs its callback to the REST API, as over the gateway, and answers the
    request 202 with no body, as Discord's documentation says; the chart is there."""
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with bot_over_http(emulator, tmp_path / "ttt.sqlite3"):
        message = await accepted_member_game(emulator, alice, bob)
        for i, cell in enumerate((0, 3, 1, 4, 2)):  # alice wins the top row
            message = (await emulator.click((alice, bob)[i % 2], message,
                                            cell_id(message, cell))).message  # fmt: skip
        assert "wins** with three in a row" in message["content"], message["content"]
        stats = await emulator.invoke(alice, "ttt stats")
        assert stats.type == 4 and stats.ephemeral
        assert stats.record.id not in emulator.http_mode.answered  # not in the response
        callback = f"/interactions/{stats.record.id}/{stats.record.token}/callback"
        assert [r.method for r in emulator.requests if r.path == callback] == ["POST"]
        (attachment,) = stats.message["attachments"]
        assert attachment["filename"] == "rating.png"
        assert emulator.attachment(stats.message, "rating.png").startswith(b"\x89PNG")
    assert emulator.violations == []


async def test_an_endpoint_that_takes_any_signature_is_caught_as_discord_would(
    emulator: DiscordEmulator, tmp_path, monkeypatch
) -> None:
    """Before the first interaction the emulator checks the URL as the Developer Portal
    does (a PING answered PONG, one signed with another key refused with a 401): an
    endpoint that let a forgery through would be removed by Discord, and is reported."""
    monkeypatch.setattr(Verifier, "refusal", lambda self, signature, timestamp, body: None)
    alice = emulator.create_user("alice")
    async with bot_over_http(emulator, tmp_path / "ttt.sqlite3"):
        url = emulator.http_mode.url
        await emulator.invoke(alice, "ttt help")
    assert [v for v in emulator.violations if "Discord would remove this URL" in v] == [
        f"{url}: a PING signed with another key was answered 200, not 401:"
        " Discord would remove this URL"
    ]
    emulator.violations.clear()


def test_a_wrong_clock_is_told_to_the_owner_a_forgery_is_not(caplog) -> None:
    """This machine's clock 400 s ahead: every request Discord signs is refused as stale,
    and Discord would soon remove the endpoint's URL, so the log says the clock may be
    wrong (once a minute at most). A stale request not signed by Discord says nothing."""
    key = SigningKey.generate()
    now = [1_800_000_000.0]
    verifier = Verifier(key.verify_key.encode().hex(), clock=lambda: now[0])
    body = b'{"type": 2}'
    sent = str(int(now[0]) - 400)

    def signed_by(signer: SigningKey) -> str:
        return signer.sign(sent.encode() + body).signature.hex()

    with caplog.at_level("WARNING", logger="bot.web.signature"):
        forged = verifier.refusal(signed_by(SigningKey.generate()), sent, body)
        assert forged == "the timestamp is too old or in the future"
        assert caplog.records == []
        for _ in range(3):  # a burst: one line
            assert verifier.refusal(signed_by(key), sent, body) == forged
        now[0] += 61
        sent = str(int(now[0]) - 400)
        assert verifier.refusal(signed_by(key), sent, body) == forged
    assert [r.getMessage() for r in caplog.records] == [
        "refused an interaction Discord signed with a timestamp -400 s from this machine's "
        "clock (more than 300 s either way): if this "
        "repeats, this machine's clock is wrong (check its time sync), and Discord will "
        "remove the Interactions Endpoint URL"
    ] * 2


async def test_a_picture_slower_to_post_than_the_deadline_still_gets_its_202(
    emulator: DiscordEmulator, tmp_path, monkeypatch
) -> None:
    """The callback with the chart takes longer to POST than the endpoint gives an answer
    (a slow upload, say; here the endpoint's 2.9 s made 0.5 s and the callback held 1 s):
    the endpoint does not give up with a 503 on an interaction answered meanwhile; it
    answers 202 once the callback went."""
    monkeypatch.setattr(interactions, "DEADLINE", 0.5)
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with bot_over_http(emulator, tmp_path / "ttt.sqlite3"):
        message = await accepted_member_game(emulator, alice, bob)
        for i, cell in enumerate((0, 3, 1, 4, 2)):
            message = (await emulator.click((alice, bob)[i % 2], message,
                                            cell_id(message, cell))).message  # fmt: skip
        emulator.faults.hold("POST", r"^/interactions/\d+/[^/]+/callback$", 1.0)
        stats = await emulator.invoke(alice, "ttt stats")
        assert stats.type == 4 and stats.message["attachments"]
        await emulator.http_mode.delivered()  # the 202, after the held callback
    assert emulator.violations == []
