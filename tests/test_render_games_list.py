"""``/ttt games``' pages within Discord's limits: at most 25 buttons a message and 4,096
characters an embed's description, for the longest entries a member can have."""

from __future__ import annotations

from bot.core.models import DAY, Challenge, Game
from bot.core.my_games import Listed
from bot.discord_ui import custom_ids
from bot.discord_ui.render_games_list import PAGE, games_list

ALICE = 123456789012345678
NOW = 1_800_000_000.0


def guest_game(n: int) -> Game:
    return Game(id=1_000_000 + n, guild_id=None, channel_id=987654321098765432 + n,
                message_id=876543210987654321 + n, size=9, k=3, player_x=ALICE,
                player_o=234567890123456789, bot_side=None, difficulty=None, moves=(),
                turn_deadline=NOW + n, created_at=NOW, updated_at=NOW, guest=True,
                variant="ultimate", days_per_move=7)  # fmt: skip


def server_game(n: int) -> Game:
    return guest_game(n).with_changes(guild_id=345678901234567890, guest=False, variant="classic",
                                      size=5, k=4)  # fmt: skip


def challenge(n: int) -> Challenge:
    return Challenge(id=2_000_000 + n, guild_id=345678901234567890, channel_id=99 + n,
                     message_id=456789012345678901 + n, challenger_id=234567890123456789,
                     opponent_id=ALICE, x_player="random", size=4, k=4, status="pending",
                     expires_at=NOW + DAY * 7, created_at=NOW, days_per_move=7)  # fmt: skip


LONG_NAME = (
    "A server whose name is as long as Discord allows, a full hundred characters of it, and more"
)


def test_every_page_of_the_longest_entries_stays_within_discords_limits() -> None:
    entries = [Listed("you", guest_game(n), 234567890123456789) for n in range(20)]
    entries += [Listed("opponent", server_game(n), 234567890123456789) for n in range(20)]
    entries += [Listed("to_you", challenge(n), 234567890123456789) for n in range(25)]
    seen: list[str] = []
    for page in range(7):
        shown = games_list(entries, ALICE, page, "pt-BR", lambda _: LONG_NAME)
        assert shown.embed is not None and shown.view is not None
        description = shown.embed.description or ""
        assert len(description) <= 4096 and len(shown.embed) <= 6000
        ids = [c.custom_id for c in shown.view.children]  # type: ignore[attr-defined]
        assert len(ids) <= 25 and len(set(ids)) == len(ids)
        assert all(len(i) <= 100 for i in ids)
        seen += [line for line in description.split("\n") if line.startswith("`")]
    assert len(seen) == len(entries) == 65  # every entry on one page or another, once
    assert [int(line[1:].split(".")[0]) for line in seen] == list(range(1, 66))
    last = games_list(entries, ALICE, 99, "en", lambda _: None)  # past the end: the last page
    assert last.embed is not None and last.embed.footer.text.startswith("Page 7 of 7")
    first_buttons = games_list(entries, ALICE, 0, "en", lambda _: None).view
    assert first_buttons is not None
    assert [c.custom_id for c in first_buttons.children][-1] == custom_ids.games_page(ALICE, 1)  # type: ignore[attr-defined]
    assert PAGE == 10


def test_nothing_to_list_says_how_to_start() -> None:
    shown = games_list([], ALICE, 0, "en", lambda _: None)
    assert shown.embed is None and shown.view is None
    assert (
        shown.content
        == "You have no running game and no open challenge. Start one with `/ttt start`."
    )
