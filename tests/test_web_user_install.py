"""The page where only a member's own install of ttt reaches (a DM between members): the
bot cannot post there, so a game the page starts is posted through the token of the
channel's latest answered interaction while Discord accepts it (15 minutes), and then
played on the chat board as well; with no such token left, the page says the board lives
there only, and a challenge (which only the chat can accept) is withdrawn."""

from __future__ import annotations

from bot.i18n import text

from bot_harness import board_of, eventually
from discord_emulator import DiscordEmulator
from web_harness import bot_with_web, sign_in


async def test_a_page_start_in_a_dm_between_members_shows_in_the_chat(
    emulator: DiscordEmulator, tmp_path
) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    alice.installed = True
    dm = emulator.open_private(alice, bob)
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (bot, base, http):
        helped = await emulator.invoke(alice, "ttt help", channel=dm)  # any answered command
        assert helped.type == 4
        page = await sign_in(emulator, http, base, alice, dm)
        before = len(emulator.channel_messages(dm.id))
        status, body = await page.post("/api/games", {"difficulty": "easy"})
        assert status == 200 and "notice" not in body, body
        game = body["game"]
        stored = await bot.repo.get_game(int(game["id"]))
        assert stored is not None and stored.guest and stored.message_id is not None
        (board,) = emulator.channel_messages(dm.id)[before:]
        assert board["id"] == str(stored.message_id)
        assert board["id"] in {str(m) for m in emulator.interactions[helped.id].followup_ids}
        status, body = await page.post(f"/api/games/{game['id']}/move", {"ply": 0, "cell": 4})
        assert status == 200, body
        await eventually(  # the page's move on the chat board, through the same token
            lambda: board_of(emulator.message(board["id"]))[4] == "X", "the move in the chat"
        )
        status, body = await page.post(f"/api/games/{game['id']}/resign")
        assert status == 200 and not body["game"]["running"]

        emulator.advance(16 * 60)  # every token of the DM is past Discord's 15 minutes
        shown = len(emulator.channel_messages(dm.id))
        status, body = await page.post("/api/games", {"difficulty": "easy"})
        assert status == 200 and body["game"]["running"], body
        assert body["notice"] == text("web.page_only", "en")
        status, body = await page.post(f"/api/games/{body['game']['id']}/resign")
        assert status == 200
        status, body = await page.post("/api/games", {"opponent_id": str(bob.id)})
        assert (status, body["error"]) == (409, "no_chat"), body
        assert body["reason"] == text("web.challenge_no_chat", "en")
        assert await bot.repo.pending_challenge_in(dm.id) is None
        assert len(emulator.channel_messages(dm.id)) == shown  # nothing was posted
        assert not [r for r in emulator.requests if r.path.endswith(f"/channels/{dm.id}/messages")]
    # the bot's clock did not move: it tried the token once, and then forgot it
    (tried,) = emulator.violations
    assert "token used after expiry" in tried
    emulator.violations.clear()
