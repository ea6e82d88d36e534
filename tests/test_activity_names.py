"""Players' names on a 360 px phone, in each of the page's five languages (see
test_activity_page.py for the browser): a name is never broken inside a word (it ends
with an ellipsis), nothing is wider than the screen, and the status line and the player
cards draw the marks and the bot as the board does, with no emoji (a system without a
colour emoji font would show empty boxes).

``TTT_SCREENSHOTS=1`` writes docs/images/activity-phone-long-names.png."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from bot.core import rules
from bot.web.game_json import bot_name, status, status_parts

from activity_frame.fixtures import PHONE, ActivityClient
from activity_stub import StubActivityServer, game, open_page

DOCS = Path(__file__).resolve().parents[1] / "docs" / "images"
LONG_WORD = "Maximilianvonhabsburgerlothring"[:31] + "X"  # 32 characters, no space
LONG_WORDS = "Doña Esperanza de la Santísima Trinidad Fernández"
EMOJI = re.compile("[\u2190-\u2bff\u2600-\u27bf\U0001f000-\U0001faff\ufe0f]")

pytestmark = pytest.mark.browser

NAMES = """() => [...document.querySelectorAll('.status .name, .player .player-name')]
  .map((el) => ({
    text: el.textContent, lines: el.getClientRects().length,
    tall: el.getBoundingClientRect().height > 1.5 * parseFloat(getComputedStyle(el).lineHeight),
    cut: el.scrollWidth > el.clientWidth, style: getComputedStyle(el).textOverflow,
    inside: el.getBoundingClientRect().right <= document.documentElement.clientWidth + 0.5,
  }))"""


def scene(locale: str, x_name: str, bot: bool) -> dict:
    """A game as the server shows it in ``locale``: X to move, O a member or the bot."""
    stored = rules.new_game(guild_id=20, channel_id=10, size=3, now=0.0, player_x=1001,
                            player_o=2002, bot_side="O" if bot else None,
                            difficulty="hard" if bot else None, locale=locale)  # fmt: skip
    o = {"id": None, "name": bot_name(stored, locale), "avatar": None, "bot": True} if bot \
        else {"id": "2002", "name": LONG_WORDS, "avatar": None, "bot": False}  # fmt: skip
    shown = game("7", ".........", opponent=o)
    shown["players"]["X"] = {"id": "1001", "name": x_name, "avatar": None, "bot": False}
    players = shown["players"]
    return shown | {"status": status(stored, locale, players),
                    "status_parts": status_parts(stored, locale, players)}  # fmt: skip


@pytest.mark.parametrize("locale", ["en", "fr", "de", "es", "pt-BR"])
async def test_long_names_on_a_phone_stay_whole_and_the_marks_are_drawn(
    activity_client: ActivityClient, stub: StubActivityServer, tmp_path: Path, locale: str
) -> None:
    for x_name, bot in [(LONG_WORD, True), (LONG_WORDS, False), (LONG_WORD, False)]:
        page = await open_page(activity_client, stub, [scene(locale, x_name, bot)],
                               viewport=PHONE)  # fmt: skip
        await page.activity.get_by_role("grid").wait_for()
        frame = page.frame
        assert await frame.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
        names = await frame.evaluate(NAMES)
        assert {n["text"] for n in names} >= {x_name}, names
        for name in names:  # one line each: no break inside a word; cut with an ellipsis
            assert name["lines"] == 1 and not name["tall"] and name["inside"], name
            assert not name["cut"] or name["style"] == "ellipsis", name
        assert any(n["cut"] for n in names if n["text"] == LONG_WORD or " " in n["text"])
        shown = await page.activity.locator(".status, .players").all_text_contents()
        assert not [t for t in shown if EMOJI.search(t)], shown
        assert await page.activity.locator(".status svg.mark-X").count() == 1
        assert await page.activity.locator(".player svg").count() == 2 + bot  # marks, bot face
        if locale == "en" and x_name == LONG_WORD and not bot:
            on = os.environ.get("TTT_SCREENSHOTS")
            await page.screenshot((DOCS if on else tmp_path) / "activity-phone-long-names.png")
        assert page.errors == []
