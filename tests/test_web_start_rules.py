"""A server's start rules hold for a start from the page as for one in the chat: the web
service reads the member's roles from Discord (a page has no interaction to carry them)
and hands them to the same core rules, at most once a minute for each member."""

from __future__ import annotations

from bot.i18n import text

from discord_emulator import DiscordEmulator
from web_harness import bot_with_web, sign_in


async def test_the_start_role_holds_on_the_page_as_in_chat(
    emulator: DiscordEmulator, tmp_path
) -> None:
    players = emulator.create_role("players")
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    bob.role_ids.append(players)
    db = tmp_path / "ttt.sqlite3"
    async with bot_with_web(emulator, db, start_role=players) as (bot, base, http):
        in_chat = await emulator.invoke(alice, "ttt start", {"first": "me"})
        assert in_chat.ephemeral and f"<@&{players}>" in in_chat.content
        page = await sign_in(emulator, http, base, alice)
        status, body = await page.post("/api/games", {"difficulty": "easy"})
        assert status == 409 and body["error"] == "refused", body
        assert (
            body["reason"]
            == in_chat.content
            == text("start.role_required", "en", role=f"<@&{players}>")
        )
        assert await bot.repo.running_games_in(emulator.channel.id) == []

        bobs = await sign_in(emulator, http, base, bob)
        status, body = await bobs.post("/api/games", {"difficulty": "easy"})
        assert status == 200 and body["game"]["you"] == "X", body
        status, body = await bobs.post("/api/games", {"difficulty": "easy"})
        assert status == 409  # the channel is busy now; his roles were not asked again
        member = f"/guilds/{emulator.guild.id}/members/{bob.id}"
        asked = [r for r in emulator.requests if r.method == "GET" and r.path.endswith(member)]
        assert len(asked) == 1, asked
    assert not emulator.violations, emulator.violations
