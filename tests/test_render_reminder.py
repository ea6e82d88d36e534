"""A reminder as members read it: a digest of many games fits one message (the rest
counted), and a 5×5 or ultimate board's reminder is the board's layout with its squares
(or ultimate's small boards) as reminder clicks and none of the game's actions."""

from __future__ import annotations

from dataclasses import replace

from bot.core.models import Game, GameUpdate
from bot.core.policy import ServerPolicy
from bot.core.reminders.models import Reminder
from bot.core.reminders.service import ToSend
from bot.discord_ui import custom_ids
from bot.discord_ui.custom_ids import ReminderBoardClick, ReminderCellClick
from bot.discord_ui.render_reminder import MESSAGE_LIMIT, headline, reminder_message
from bot.discord_ui.render_ultimate import TEXT_LIMIT
from bot.i18n import catalogs
from engine import UltimateBoard

BOB = 123456789012345678


def waiting(n: int, size: int = 3) -> Game:
    """Game ``n``: bob (O) to move, a day to go."""
    big = 10**17
    return Game(
        id=n, guild_id=big + 1, channel_id=big + 2, message_id=big + 3 + n, size=size, k=3,
        player_x=big + 4 + n, player_o=BOB, bot_side=None, difficulty=None, moves=(4,),
        turn_deadline=1_800_000_000.0 + n, created_at=0.0, updated_at=0.0, days_per_move=1,
    )  # fmt: skip


def update(game: Game) -> GameUpdate:
    return GameUpdate(game, ServerPolicy().marks)


def test_a_digest_of_many_games_fits_one_message() -> None:
    for count in (1, 12, 40):
        games = tuple(update(waiting(n)) for n in range(count))
        item = ToSend(Reminder(1, BOB, 0, 0, "digest", 0.0), games)
        content, view = reminder_message(item)
        assert view is None and len(content) <= MESSAGE_LIMIT
        lines = content.split("\n")
        assert lines[0] == f"Correspondence games waiting for your move ({count}):"
        shown = [line for line in lines if line.startswith("• against")]
        if len(shown) < count:
            assert lines[-1] == f"…and {count - len(shown)} more."
        else:
            assert len(lines) == count + 1
        assert f"<t:{1_800_000_000 + len(shown) - 1}:R>" in content  # soonest first, in order
        assert count != 40 or 10 < len(shown) < 40  # ~140 characters a line: 40 do not fit


def layout_of(view: object) -> tuple[str, list[object]]:
    """A layout's text and its buttons' clicks, as the bot's grammar reads them."""
    (container,) = view.to_components()  # type: ignore[attr-defined]
    assert container["type"] == 17
    texts = [c["content"] for c in container["components"] if c["type"] == 10]
    rows = [c["components"] for c in container["components"] if c["type"] == 1]
    return "\n".join(texts), [custom_ids.parse(b["custom_id"]) for row in rows for b in row]


def test_a_five_by_five_reminder_is_its_layout_with_the_squares_alone() -> None:
    game = waiting(7, size=5)
    content, view = reminder_message(ToSend(Reminder(1, BOB, 7, 1, "move", 0.0), (update(game),)))
    assert content is None and view is not None and view.has_components_v2()
    said, clicks = layout_of(view)
    assert said.startswith(f"Your move against <@{game.player_x}>")
    assert "❌" in said  # the board as text too, for clients that show text only
    assert clicks == [ReminderCellClick(7, 1, cell) for cell in range(25)]  # no Resign, Options


def test_an_ultimate_free_move_reminder_offers_the_small_boards() -> None:
    other = waiting(8).player_x  # bob plays X: the first move, free, is his
    game = replace(waiting(8), variant="ultimate", moves=(), player_x=BOB, player_o=other)
    assert isinstance(game.board, UltimateBoard) and game.board.forced_board is None
    content, view = reminder_message(ToSend(Reminder(1, BOB, 8, 0, "move", 0.0), (update(game),)))
    assert content is None and view is not None
    _, clicks = layout_of(view)
    assert clicks == [ReminderBoardClick(8, 0, board) for board in range(9)]


def test_a_reminders_line_fits_beside_the_largest_board_text_in_every_language() -> None:
    """The layout holds 4,000 characters of text and ultimate's board takes up to
    TEXT_LIMIT (its marks shown plainer until it fits): the reminder's line, ids and
    link at their longest, takes the rest with room to spare."""
    big = 10**19 - 1
    game = replace(waiting(9), guild_id=big, channel_id=big, message_id=big, player_x=big)
    for locale in catalogs():
        for kind in ("move", "warn12", "warn1"):
            said = headline(kind, game, BOB, locale)
            assert len(f"{said}\n".encode("utf-16-le")) // 2 <= 4000 - TEXT_LIMIT, (locale, said)
