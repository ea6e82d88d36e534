"""Courtesy on the live board: a correspondence game's more time and draw, offered to the
member who may take them, made through the same service method as the chat's Options,
shown on the chat board, and pushed to the other player's page (a courtesy change
made in the chat too)."""

from __future__ import annotations

from bot.core.models import DAY

from bot_harness import cell_id
from discord_emulator import DiscordEmulator, find_button
from web_harness import bot_with_web, next_game, sign_in


async def test_more_time_and_a_draw_from_the_page(emulator: DiscordEmulator, tmp_path) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (bot, base, http):
        res = await emulator.invoke(alice, "ttt start", {"opponent": bob, "first": "me",
                                                         "pace": 1})  # fmt: skip
        accept = find_button(res.message, label="Accept")
        board = (await emulator.click(bob, res.message, accept["custom_id"])).message
        board = (await emulator.click(alice, board, cell_id(board, 4))).message
        alices, bobs = [await sign_in(emulator, http, base, u) for u in (alice, bob)]
        (game,) = await alices.games()
        assert game["actions"] == ["resign", "more_time"]  # too early for a draw
        assert (await alices.games())[0]["pace"] == "Correspondence game: 1 day a move."
        gid, deadline = game["id"], game["deadline"]
        async with bobs.live() as socket:
            status, body = await alices.post(f"/api/games/{gid}/courtesy",
                                             {"ply": 1, "action": "time"})  # fmt: skip
            assert status == 200, body
            assert body["game"]["deadline"] == deadline + DAY
            assert body["notice"].startswith(f"Done: {bob.name} now has until ")
            assert "more_time" not in body["game"]["actions"]
            pushed = await next_game(socket)  # bob's page hears it, as of a move
            assert pushed["deadline"] == deadline + DAY
            assert f"{alice.name} gave {bob.name} one more day." in pushed["pace"]
        chat = emulator.message(board["id"])
        assert f"<@{alice.id}> gave <@{bob.id}> one more day." in chat["content"]
        status, body = await alices.post(f"/api/games/{gid}/courtesy",
                                         {"ply": 1, "action": "time"})  # fmt: skip
        refused = (409, "You already gave more time for this move: once a move.")
        assert (status, body["reason"]) == refused

        board = (await emulator.click(bob, chat, cell_id(chat, 0))).message
        status, body = await alices.post(f"/api/games/{gid}/courtesy",
                                         {"ply": 2, "action": "offer"})  # fmt: skip
        assert status == 200 and body["notice"] == (
            f"Draw offered: {bob.name} may accept it until they move."
        )
        (seen,) = await bobs.games()
        assert "accept_draw" in seen["actions"]
        status, body = await bobs.post(f"/api/games/{gid}/courtesy",
                                       {"ply": 2, "action": "accept"})  # fmt: skip
        assert status == 200 and not body["game"]["running"]
        assert body["game"]["status"] == (
            f"Draw by agreement. {alice.name} offered it, {bob.name} accepted."
        )
        records = await bot.repo.leaderboard(emulator.guild.id, 10)
        assert sorted(r.draws for r in records) == [1, 1]
        status, body = await bobs.post(f"/api/games/{gid}/courtesy", {"ply": 2, "action": "x"})
        assert status == 400
