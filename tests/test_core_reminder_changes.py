"""Reminders after a member's later choices: more time given moves the deadline
warnings with the deadline, and turning reminders off stops every DM, warnings too.
On SQLite and PostgreSQL, with the games' clock moved."""

from __future__ import annotations

from bot.core.models import DAY
from bot.core.policy import ServerPolicy
from bot.core.reminders.models import HOUR

from core_harness import CHANNEL, GUILD, Core, play

ALICE, BOB = 101, 102
QUICK = ServerPolicy(turn_timeout=30, challenge_timeout=60)


async def correspondence_game(core: Core, days: int) -> int:
    challenge = await core.lobby.challenge(
        guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, opponent_id=BOB, first="me",
        days_per_move=days,
    )  # fmt: skip
    return (await core.lobby.accept(challenge.id, BOB, message_id=None)).game.id


async def due_now(core: Core) -> list[tuple[str, float]]:
    """The deadline warnings due now, every due reminder claimed and marked sent (a
    digest too): (kind, hours to the game's deadline when it goes)."""
    sent = []
    while (item := await core.reminders.next()) is not None:
        deadline = item.games[0].game.turn_deadline if item.games else None
        left = (deadline - core.clock()) / HOUR if deadline is not None else float("nan")
        if item.reminder.kind in ("warn12", "warn1"):
            sent.append((item.reminder.kind, round(left)))
        await core.reminders.sent(item.reminder)
    return sent


async def test_more_time_moves_the_deadline_warnings_with_the_deadline(make_core) -> None:
    core: Core = await make_core(QUICK)
    await core.reminders.choose(BOB, "digest", hour=9, warnings=True)
    game_id = await correspondence_game(core, 1)
    await play(core, game_id, (ALICE, 4))  # bob's move: due in a day, warned at 12 h and 1 h
    done = await core.games.courtesy(game_id, 1, ALICE, "time")  # due in two days now
    assert done.update.game.turn_deadline == core.clock() + 2 * DAY
    core.clock.advance(23 * HOUR + 60)  # past where the 1 h warning was, a day early
    assert await due_now(core) == []
    core.clock.advance(13 * HOUR)  # 12 h before the new deadline, less a minute
    assert await due_now(core) == [("warn12", 12)]
    core.clock.advance(11 * HOUR)  # 1 h before it: the real last call
    assert await due_now(core) == [("warn1", 1)]


async def test_turning_reminders_off_stops_every_dm_warnings_too(make_core) -> None:
    core: Core = await make_core(QUICK)
    await core.reminders.choose(BOB, "every", warnings=True)
    setting = await core.reminders.choose(BOB, "off")  # "I won't DM you about your games"
    assert not setting.warnings
    game_id = await correspondence_game(core, 1)
    await play(core, game_id, (ALICE, 4))
    core.clock.advance(DAY - 60)
    assert await due_now(core) == []
    kept = await core.reminders.choose(BOB, "every", warnings=True)
    assert kept.warnings and (await core.reminders.choose(BOB, "off", warnings=True)).warnings


async def test_a_late_sender_sends_only_the_warnings_still_true(make_core) -> None:
    core: Core = await make_core(QUICK)
    await core.reminders.choose(BOB, "digest", hour=9, warnings=True)
    first = await correspondence_game(core, 1)
    await play(core, first, (ALICE, 4))
    core.clock.advance(DAY - HOUR / 2)  # the sender away since the move: both are due
    assert await due_now(core) == [("warn1", 0)]  # the last call, not "12 hours left" too
    second = await correspondence_game(core, 1)
    await play(core, second, (ALICE, 4))
    core.clock.advance(DAY + 60)  # away past the deadline (not settled yet): no warning
    assert await due_now(core) == []
