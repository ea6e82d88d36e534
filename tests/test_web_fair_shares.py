"""Fair shares through the real web app (issue 53): a member who asks the page for a hint
before each of their moves is never refused, however small the hints' budget; what goes
beyond that is counted; and the members of one server spend at most its share of
everyone's budget, so a member of another server is still served. The core's rules:
tests/test_core_fair_shares.py."""

from __future__ import annotations

from typing import Any

from bot.i18n import text
from bot.settings import WebLimits
from bot.web.limits import WebBudgets
from bot.web.page_text import plain

from bot_harness import eventually
from discord_emulator import DiscordEmulator
from web_harness import Page, bot_with_web, sign_in


async def my_turn(page: Page, game_id: str) -> dict[str, Any]:
    """The game once it is the member's move or over (the bot's reply may be stored
    after the move's answer)."""

    async def ready() -> dict[str, Any] | None:
        (game,) = [g for g in await page.games() if g["id"] == game_id] or [None]
        if game is None:
            return {"running": False}
        return game if game["can_move"] or not game["running"] else None

    found: dict[str, Any] = await eventually(ready, "the member's move, or the end")
    return found


async def test_a_hint_before_each_move_is_never_refused_and_each_server_has_its_share(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """One hint a minute for each member, four for everyone, a server half of that."""
    alice, bob = emulator.create_user("alice", locale="fr"), emulator.create_user("bob")
    carol = emulator.create_user("carol", locale="de")
    elsewhere = emulator.create_guild("Elsewhere")
    dave = emulator.create_user("dave", guilds=[elsewhere])
    limits = WebLimits(hints_per_member=1, hints_overall=4, server_share=50)
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3", web_limits=limits) as (
        _bot, base, http,
    ):  # fmt: skip
        a = await sign_in(emulator, http, base, alice)
        status, body = await a.post("/api/games", {"difficulty": "easy"})
        assert status == 200, body
        game, game_id = body["game"], body["game"]["id"]
        path = f"/api/games/{game_id}/hint"
        hints = 0
        while game["running"]:
            assert game["can_move"], game
            status, hint = await a.post(path, {"ply": game["ply"]})
            assert status == 200, hint  # never refused
            hints += 1
            free = [i for i, cell in enumerate(game["cells"]) if not cell["mark"]]
            cell = (hint.get("cells") or free)[0]
            status, body = await a.post(f"/api/games/{game_id}/move",
                                        {"ply": game["ply"], "cell": cell})  # fmt: skip
            assert status == 200, body
            game = await my_turn(a, game_id)
        assert hints >= 3  # each of her moves, past her budget of one

        # beyond: a hint for a game over (a credit: hers, and her server's), then refused
        status, body = await a.post(path, {"ply": 0})
        assert (status, body["error"]) == (409, "over"), body
        status, body = await a.post(path, {"ply": 0})
        assert (status, body["error"]) == (429, "too_many")
        assert body["reason"] == plain(text("web.limit.member", "fr", seconds=60))

        # her server's share is two: Bob spends its second, Carol is refused for it
        b, c = await sign_in(emulator, http, base, bob), await sign_in(emulator, http, base, carol)
        status, body = await b.post(path, {"ply": 0})
        assert status != 429, body
        status, body = await c.post(path, {"ply": 0})
        wait = body.get("retry_after")
        assert (status, body["error"]) == (429, "too_many"), body
        assert body["reason"] == plain(text("web.limit.place", "de", seconds=wait))
        # a member of another server is served from everyone's (the game is not his
        # channel's: he is told so, not refused)
        d = await sign_in(emulator, http, base, dave, elsewhere.channels[0])
        status, body = await d.post(path, {"ply": 0})
        assert (status, body["error"]) == (404, "unknown_game"), body


def test_each_budget_of_the_page_has_its_server_share() -> None:
    """TTT_WEB_SERVER_SHARE applies to every budget (puzzles' too), never below one
    member's."""
    budgets = WebBudgets.of(WebLimits(server_share=10, puzzles_overall=1000, hints_overall=50))
    assert (budgets.puzzles.per_place, budgets.reviews.per_place) == (100, 12)
    assert budgets.hints.per_place == 10  # 5 would be less than one member's 10
    assert WebBudgets.of(WebLimits()).reviews.per_place == 30  # a quarter of 120
