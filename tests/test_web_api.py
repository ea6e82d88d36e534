"""The Activity's web service, through its HTTP API as the page calls it (the browser
tests in ``test_activity_browser.py`` drive the page itself): signing in, one game
behind the chat buttons and the pages, and every refusal a 4xx with a reason that
changes nothing and leaks nothing."""

from __future__ import annotations

import logging

import aiohttp
import pytest

from bot.i18n import text
from bot.web.sessions import Sessions

from bot_harness import (
    board_of,
    cell_id,
    eventually,
    free_port,
    running_bot,
    settings_for,
    with_marks,
)
from discord_emulator import DiscordEmulator
from web_harness import bot_and_web_only, bot_with_web, live_socket, next_game, sign_in


async def test_a_page_and_the_chat_play_one_game(
    emulator: DiscordEmulator, transport: str, tmp_path
) -> None:
    """A move on the page shows on the chat board and on the other pages; a move with
    the chat buttons shows on the pages; a third member's page watches."""
    alice, bob, carol = (emulator.create_user(n) for n in ("alice", "bob", "carol"))
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (bot, base, http):
        start = await emulator.invoke(alice, "ttt start", {"opponent": bob, "first": "me"})
        challenge = start.message
        accepted = await emulator.click(
            bob, challenge, challenge["components"][0]["components"][0]["custom_id"]
        )
        board = accepted.message
        pages = [await sign_in(emulator, http, base, u) for u in (alice, bob, carol)]
        (game,) = await pages[0].games()
        assert game["can_move"] and game["you"] == "X" and game["cells"][4]["label"] == "B2, empty"
        async with pages[1].live() as bobs, pages[2].live() as carols:
            status, body = await pages[0].post(f"/api/games/{game['id']}/move",
                                               {"ply": 0, "cell": 4})  # fmt: skip
            assert status == 200 and body["game"]["cells"][4]["mark"] == "X", body
            assert (await next_game(bobs))["cells"][4]["mark"] == "X"
            seen = await next_game(carols)
            assert seen["you"] is None and not seen["can_move"]  # carol watches
            # the chat board shows the page's move
            await with_marks(emulator, board, 1)
            assert board_of(emulator.message(board["id"])) == "....X...."
            current = emulator.message(board["id"])
            await emulator.click(bob, current, cell_id(current, 0))  # a chat move
            pushed = await next_game(bobs)
            assert [c["mark"] for c in pushed["cells"]][:5] == ["O", None, None, None, "X"]
            assert (await next_game(carols))["ply"] == 2
        status, body = await pages[2].post(f"/api/games/{game['id']}/move", {"ply": 2, "cell": 8})
        assert (status, body["error"]) == (403, "not_player")
        status, body = await pages[1].post(f"/api/games/{game['id']}/move", {"ply": 2, "cell": 8})
        assert (status, body["error"]) == (403, "not_your_turn")
        (stored,) = await bot.repo.running_games_in(int(board["channel_id"]))
        assert stored.ply == 2  # the refused moves changed nothing


async def test_refusals_are_4xx_with_a_reason_and_leak_nothing(
    emulator: DiscordEmulator, tmp_path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    alice, mallory = emulator.create_user("alice"), emulator.create_user("mallory")
    elsewhere = emulator.create_channel(emulator.guild, "elsewhere")
    secret = emulator.client_secret
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (bot, base, http):
        await emulator.invoke(alice, "ttt start", {"first": "me"})
        page = await sign_in(emulator, http, base, alice)
        (game,) = await page.games()
        answers: list[tuple[int, dict]] = []

        async def post(path: str, data: bytes | None = None, json_body=None, headers=None):
            async with http.post(
                f"{base}{path}",
                data=data,
                json=json_body,
                headers=headers if headers is not None else page.headers,
            ) as res:
                text = await res.text()
                answers.append((res.status, text))
                return res.status, (await res.json(content_type=None))

        instance = emulator.launch_activity(alice, elsewhere)  # mallory is not in it
        code = emulator.authorize(mallory)
        assert (await post("/api/session", json_body={"code": code, "instance_id": instance},
                           headers={}))[1]["error"] == "not_in_instance"  # fmt: skip
        steer = {"code": emulator.authorize(alice), "instance_id": "../../users/@me"}
        assert (await post("/api/session", json_body=steer, headers={}))[1][
            "error"
        ] == "bad_request"
        odd = {"Authorization": "Bearer abc.\u00e9"}
        assert (await post(f"/api/games/{game['id']}/move", json_body={}, headers=odd))[0] == 401
        assert (await post("/api/session", json_body={"code": "forged", "instance_id": instance},
                           headers={}))[1]["error"] == "bad_code"  # fmt: skip
        used = emulator.authorize(alice)
        ok = await post(
            "/api/session", json_body={"code": used, "instance_id": instance}, headers={}
        )
        assert ok[0] == 200
        again = await post("/api/session", json_body={"code": used, "instance_id": instance},
                           headers={})  # fmt: skip
        assert again[1]["error"] == "bad_code"  # a code is good once
        move = f"/api/games/{game['id']}/move"
        forged = {"Authorization": "Bearer " + page.session[:-4] + "AAAA"}
        assert (await post(move, json_body={"ply": 0, "cell": 4}, headers=forged))[0] == 401
        expired = Sessions(secret, clock=lambda: 0.0).issue(
            user_id=int(page.user_id), name="alice", avatar=None, channel_id=int(page.channel_id),
            guild_id=None, instance_id=instance, locale="en",
        )  # fmt: skip
        status, body = await post(move, json_body={"ply": 0, "cell": 4},
                                  headers={"Authorization": f"Bearer {expired}"})  # fmt: skip
        assert (status, body["error"]) == (401, "bad_session")
        assert (await post(move, data=b"{not json"))[1]["error"] == "bad_json"
        assert (await post(move, data=b"[1, 2]"))[1]["error"] == "bad_json"
        assert (await post(move, data=b" " * (1024 * 1024)))[0] == 413
        assert (await post(move, json_body={"ply": "0", "cell": 4}))[1]["error"] == "bad_request"
        assert (await post("/api/games/999999/move", json_body={"ply": 0, "cell": 4}))[0] == 404
        assert (await post("/api/games/x1/move", json_body={"ply": 0, "cell": 4}))[0] == 404
        too_big = "/api/games/9999999999999999999/move"  # 19 digits, past a 64-bit id
        assert (await post(too_big, json_body={"ply": 0, "cell": 4}))[0] == 404
        off_board = (await post(move, json_body={"ply": 0, "cell": 99}))[1]["error"]
        assert off_board in ("taken", "bad_request")
        assert (await post(move, json_body={"ply": 3, "cell": 4}))[1]["error"] == "stale"
        (stored,) = await bot.repo.running_games_in(emulator.channel.id)
        assert stored.ply == 0  # nothing was changed
        for status, text in answers:
            assert 400 <= status < 500 or status == 200, (status, text)
            assert "Traceback" not in text and secret not in text
            assert page.session not in text or status == 200
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert secret not in logged and page.session not in logged
    assert "Traceback" not in "\n".join(t for s, t in answers)


async def test_the_page_is_served_under_discords_proxy_prefix(
    emulator: DiscordEmulator, tmp_path
) -> None:
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (_bot, base, http):
        for path in ("/", "/.proxy/"):
            async with http.get(base + path) as res:
                page = await res.text()
                assert res.status == 200 and "<html" in page.lower()
                assert emulator.client_secret not in page
        async with http.get(f"{base}/.proxy/api/config") as res:
            assert (await res.json())["client_id"] == str(emulator.application_id)
        async with http.get(f"{base}/../../etc/passwd") as res:
            assert res.status == 404
        async with live_socket(http, base, "forged", "?session=forged") as ws:
            closing = await ws.receive(timeout=10)  # a forged session: sign in again
            assert (closing.type, closing.data) == (aiohttp.WSMsgType.CLOSE, 4001)


async def test_the_entry_point_is_synced_and_kept(emulator: DiscordEmulator, tmp_path) -> None:
    """With the live board served, the slash commands are synced with the entry point
    command; one Discord made (Activities enabled in the portal) survives a sync of a bot
    that does not serve it, where a plain overwrite would be refused (50240)."""
    async with bot_with_web(emulator, tmp_path / "a.sqlite3"):
        entry = emulator.activities.entry_point()
        assert entry is not None and entry["handler"] == 2 and entry["name"] == "launch"
        instance = await emulator.invoke_entry_point(emulator.create_user("alice"))
        assert isinstance(instance, str)  # Discord launched it: no interaction for the bot
    assert not emulator.violations, emulator.violations


async def test_an_entry_point_the_app_handles_launches_the_activity(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """An entry point set to be handled by the app (handler 1) is answered with
    LAUNCH_ACTIVITY by a bot that does not serve the page itself (its web-only process
    may), and its sync keeps the command."""
    emulator.add_default_entry_point(handler=1)
    settings = settings_for(emulator, tmp_path / "b.sqlite3")
    async with running_bot(emulator, settings):
        entry = emulator.activities.entry_point()
        assert entry is not None and entry["handler"] == 1
        res = await emulator.invoke_entry_point(emulator.create_user("bob"))
        assert not isinstance(res, str) and res.type == 12 and res.activity_instance_id
    assert not emulator.violations, emulator.violations


async def test_the_live_board_button_opens_the_activity(
    emulator: DiscordEmulator, transport: str, tmp_path
) -> None:
    """Every board carries Live board where the page is served; a click asks Discord to
    launch the Activity (LAUNCH_ACTIVITY) in the channel, for the member who clicked."""
    alice = emulator.create_user("alice")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (_bot, base, http):
        board = (await emulator.invoke(alice, "ttt start", {"first": "me"})).message
        live = [b for row in board["components"] for b in row.get("components", [])
                if b.get("custom_id", "").startswith("ttt:l:")]  # fmt: skip
        assert [b["label"] for b in live] == ["Live board"]
        res = await emulator.click(alice, board, live[0]["custom_id"])
        assert res.type == 12 and res.activity_instance_id
        page = await sign_in(emulator, http, base, alice)  # the member in that instance
        (game,) = await page.games()
        assert game["you"] == "X"
    settings = settings_for(emulator, tmp_path / "off.sqlite3")
    async with running_bot(emulator, settings):  # the page not served: no button
        other = emulator.create_channel(emulator.guild, "b")
        board = (await emulator.invoke(alice, "ttt start", {"first": "me"}, channel=other)).message
        ids = [b.get("custom_id", "") for row in board["components"]
               for b in row.get("components", [])]  # fmt: skip
        assert not [i for i in ids if i.startswith("ttt:l:")]


@pytest.mark.postgres
async def test_a_page_served_by_a_web_only_process_follows_the_bots(
    emulator: DiscordEmulator, pg_database: str, tmp_path
) -> None:
    """Pages and shards scale apart: a web-only process on the same PostgreSQL serves
    the page; a move made with the chat buttons, handled by the bot's process, reaches
    it (the store's NOTIFY), and a move made on the page shows on the chat board."""
    alice = emulator.create_user("alice")
    async with bot_and_web_only(emulator, pg_database, tmp_path) as (base, http):
        board = (await emulator.invoke(alice, "ttt start", {"first": "me"})).message
        page = await sign_in(emulator, http, base, alice)
        async with page.live() as ws:
            await emulator.click(alice, board, cell_id(board, 4))  # by the bot's process
            pushed = await next_game(ws)
            assert pushed["cells"][4]["mark"] == "X" and pushed["ply"] == 2
            free = next(i for i, c in enumerate(pushed["cells"]) if c["mark"] is None)
            status, body = await page.post(f"/api/games/{pushed['id']}/move",
                                           {"ply": 2, "cell": free})  # fmt: skip
            assert status == 200, body
        await eventually(  # shown on the chat board by the web-only process, over REST
            lambda: board_of(emulator.message(board["id"]))[free] == "X", "the page's move shown"
        )
        assert board_of(emulator.message(board["id"]))[free] == "X"


async def test_start_hint_resign_review_and_rematch_from_the_page(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """With no game in the channel, the page starts one against the bot: its board is
    posted in the chat as for /ttt start. A hint is the member's alone; resigning ends
    the game on the chat board too; the review steps through the moves; a rematch
    starts the next game."""
    alice = emulator.create_user("alice")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (bot, base, http):
        page = await sign_in(emulator, http, base, alice)
        assert await page.games() == []
        status, body = await page.post("/api/games", {"difficulty": "hard", "size": 4})
        assert status == 200, body
        game = body["game"]
        assert game["size"] == 4 and len(game["cells"]) == 16 and game["you"] in ("X", "O")
        (stored,) = await bot.repo.running_games_in(emulator.channel.id)

        async def posted():  # posted in the chat by the bot, and remembered as its board
            game = await bot.repo.get_game(stored.id)
            return game if game.message_id and emulator.has_message(game.message_id) else None

        stored = await eventually(posted, "the board posted in the chat")
        assert stored.message_id is not None and emulator.has_message(stored.message_id)
        if not game["can_move"]:  # the bot moved first: wait for it

            async def movable():
                (game,) = await page.games()
                return game if game["can_move"] else None

            game = await eventually(movable, "the bot's first move", every=0.05)
        gid = game["id"]
        status, hint = await page.post(f"/api/games/{gid}/hint", {"ply": game["ply"]})
        assert status == 200 and hint["cells"] and hint["text"], hint
        assert all(game["cells"][c]["mark"] is None for c in hint["cells"])
        status, body = await page.post(f"/api/games/{gid}/resign")
        assert status == 200 and not body["game"]["running"] and body["game"]["ended"]
        assert body["game"]["actions"] == ["rematch", "review"]
        chat = emulator.message(stored.message_id)
        assert "resigned" in (chat["content"] or "")
        status, review = await page.get(f"/api/games/{gid}/review")
        assert status == 200 and len(review["steps"]) == len(
            (await bot.repo.get_game(int(gid))).moves
        )
        assert review["summary"] and all(len(s["cells"]) == 16 for s in review["steps"])
        status, body = await page.post(f"/api/games/{gid}/rematch")
        assert status == 200 and body["game"]["running"] and body["game"]["id"] != gid
        status, body = await page.post("/api/games", {"difficulty": "impossible"})
        assert (status, body["error"]) == (400, "bad_request")


@pytest.mark.parametrize(("locale", "words"), [("de", "leer"), ("fr", "vide"), ("es-ES", "vacía"),
                                               ("pt-BR", "vazia"), ("en-GB", "empty")])  # fmt: skip
async def test_the_page_speaks_the_members_language(
    emulator: DiscordEmulator, tmp_path, locale: str, words: str
) -> None:
    """Every word the page shows comes from the server in the member's own language (as
    Discord's /users/@me reports it)."""
    member = emulator.create_user("member", locale=locale)
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (_bot, base, http):
        await emulator.invoke(member, "ttt start", {"first": "me"})
        page = await sign_in(emulator, http, base, member)
        status, body = await page.get("/api/games")
        (game,) = body["games"]
        assert status == 200 and game["cells"][0]["label"] == f"A1, {words}"
        assert body["texts"]["resign"] == text("button.resign", locale)
        assert body["texts"]["title"] == text("web.title", locale)


async def test_a_challenge_from_the_page_is_posted_in_the_chat(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """The page challenges a member who is in the Activity: the challenge is posted in the
    channel with its Accept button, and accepting it there starts the game the pages
    then show."""
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (_bot, base, http):
        page = await sign_in(emulator, http, base, alice)
        status, body = await page.post("/api/games", {"opponent_id": str(bob.id), "size": 3})
        assert (status, body) == (200, {"challenge": True})
        posted = [m for m in emulator.channel_messages(emulator.channel.id)
                  if str(bob.id) in (m.get("content") or "")]  # fmt: skip
        assert posted, "the challenge was not posted"
        accept = posted[-1]["components"][0]["components"][0]["custom_id"]
        res = await emulator.click(bob, posted[-1], accept)
        assert res.type == 7
        (game,) = await page.games()
        assert game["you"] in ("X", "O") and game["players"]["X"]["bot"] is False
        status, body = await page.post("/api/games", {"opponent_id": "bob"})
        assert (status, body["error"]) == (400, "bad_request")


async def test_a_page_back_after_its_game_ended_is_sent_that_game_first(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """The web process restarts; meanwhile the page's game ends in the chat. It has left
    the running games, so the page names it (``game``) as it reconnects and gets it first,
    ended, rather than see it vanish."""
    alice = emulator.create_user("alice")
    database, port = tmp_path / "ttt.sqlite3", free_port()
    async with bot_with_web(emulator, database, port) as (_bot, base, http):
        board = (await emulator.invoke(alice, "ttt start", {"first": "me"})).message
        page = await sign_in(emulator, http, base, alice)
        (shown,) = await page.games()
    async with bot_with_web(emulator, database, port) as (_bot, base, http):
        resign = next(b for row in board["components"] for b in row.get("components", ())
                      if b.get("label") == "Resign")  # fmt: skip
        await emulator.click(alice, board, resign["custom_id"])  # in the chat
        async with live_socket(http, base, page.session, f"?game={shown['id']}") as ws:
            first = await ws.receive_json(timeout=10)
            assert first["type"] == "game" and first["game"]["id"] == shown["id"]
            assert not first["game"]["running"] and "resigned" in first["game"]["status"]
            assert first["game"]["ply"] == shown["ply"] and first["game"]["actions"] == [
                "rematch", "review"]  # fmt: skip
            assert await ws.receive_json(timeout=10) == {"type": "games", "games": []}
        for other in ("", "?game=999", "?game=x"):  # none shown, no such game, no id
            async with live_socket(http, base, page.session, other) as ws:
                assert await ws.receive_json(timeout=10) == {"type": "games", "games": []}
