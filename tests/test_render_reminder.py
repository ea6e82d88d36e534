"""A reminder's text as members read it: a digest of many games fits one message (the
rest counted), and a 5×5 board's reminder comes as text, without buttons."""

from __future__ import annotations

from bot.core.models import Game, GameUpdate
from bot.core.policy import ServerPolicy
from bot.core.reminders.models import Reminder
from bot.core.reminders.service import ToSend
from bot.discord_ui.render_reminder import MESSAGE_LIMIT, reminder_message

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


def test_a_five_by_five_reminder_is_text_without_buttons() -> None:
    game = waiting(7, size=5)
    content, view = reminder_message(ToSend(Reminder(1, BOB, 7, 1, "move", 0.0), (update(game),)))
    assert view is None and content.startswith(f"Your move against <@{game.player_x}>")
    assert "❌" in content  # the board as text
