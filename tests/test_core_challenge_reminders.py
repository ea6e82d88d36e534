"""A correspondence challenge's DM through the outbox, on SQLite and PostgreSQL, with a
clock the tests move: written with the challenge (for an every-move member only; a
digest member finds it in their digest), sent once, and dropped unsent once the
challenge is declined, withdrawn, lapsed or accepted, or its challenger blocked."""

from __future__ import annotations

from test_core_reminders import outbox

from bot.core.models import Challenge
from bot.core.reminders.models import DAY
from bot.core.reminders.service import CHALLENGE_UNPOSTED_RETRY, CHALLENGE_UNPOSTED_TRIES

from core_harness import CHANNEL, GUILD, Core, refusal_key

ALICE, BOB, CAROL = 101, 102, 103
MESSAGE = 555


async def challenge(core: Core, opponent: int | None = BOB, days: int = 3) -> Challenge:
    """ALICE challenges ``opponent`` at ``days`` a move; its message posted."""
    made = await core.lobby.challenge(
        guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, opponent_id=opponent, first="me",
        days_per_move=days,
    )  # fmt: skip
    return await core.lobby.attach_challenge_message(made, MESSAGE)


async def test_an_every_move_member_gets_one_challenge_dm(make_core) -> None:
    core: Core = await make_core()
    await core.reminders.choose(BOB, "every")
    made = await challenge(core)
    assert await outbox(core) == [(BOB, made.id, 0, "challenge", "due")]
    item = await core.reminders.next()
    assert item is not None and item.reminder.kind == "challenge" and item.games == ()
    (shown,) = item.challenges
    assert (shown.id, shown.message_id, shown.days_per_move) == (made.id, MESSAGE, 3)
    await core.reminders.sent(item.reminder)
    assert await core.reminders.next() is None  # once
    assert await outbox(core) == [(BOB, made.id, 0, "challenge", "sent")]


async def test_nothing_for_a_member_who_did_not_opt_in_nor_for_open_or_live_challenges(
    make_core,
) -> None:
    core: Core = await make_core()
    await core.reminders.choose(CAROL, "every")  # in the channel, but named by nobody
    await challenge(core, opponent=BOB)
    await core.lobby.challenge(guild_id=GUILD, channel_id=CHANNEL + 1, user_id=ALICE,
                               opponent_id=None, first="me", days_per_move=1)  # fmt: skip
    await core.lobby.challenge(
        guild_id=GUILD, channel_id=CHANNEL + 2, user_id=ALICE, opponent_id=CAROL, first="me"
    )  # live: answered in a minute
    assert await outbox(core) == []
    assert await core.reminders.next() is None


async def test_a_digest_member_finds_the_challenge_in_their_digest(make_core) -> None:
    core: Core = await make_core()
    await core.reminders.choose(BOB, "digest", hour=9)
    made = await challenge(core)
    assert await outbox(core) == []  # no DM of its own
    core.clock.advance(DAY)  # past 09:00 UTC once
    item = await core.reminders.next()
    assert item is not None and item.reminder.kind == "digest" and item.games == ()
    assert [c.id for c in item.challenges] == [made.id]


async def test_a_challenge_declined_or_withdrawn_before_the_send_sends_nothing(
    make_core,
) -> None:
    core: Core = await make_core()
    await core.reminders.choose(BOB, "every")
    declined = await challenge(core)
    await core.lobby.decline(declined.id, BOB)
    assert await outbox(core) == [(BOB, declined.id, 0, "challenge", "dropped")]
    assert await core.reminders.next() is None


async def test_a_challenge_lapsed_before_the_sweep_is_dropped_by_the_sender(make_core) -> None:
    """Lapsed but not yet closed in storage: the sender's own look at it drops it."""
    core: Core = await make_core()
    await core.reminders.choose(BOB, "every")
    made = await challenge(core, days=1)
    core.clock.advance(DAY + 1)  # lapsed, the sweep not run yet: not closed in storage
    assert await core.reminders.next() is None
    assert await outbox(core) == [(BOB, made.id, 0, "challenge", "dropped")]


async def test_a_blocked_challenger_produces_no_dm(make_core) -> None:
    core: Core = await make_core()
    await core.reminders.choose(BOB, "every")
    await core.lobby.block(BOB, ALICE)
    key = await refusal_key(challenge(core))
    assert key == "challenge.not_accepted" and await outbox(core) == []
    await core.lobby.unblock(BOB, ALICE)
    made = await challenge(core)  # then blocked before the DM goes: it never does
    await core.lobby.block(BOB, ALICE)
    assert await core.reminders.next() is None
    assert await outbox(core) == [(BOB, made.id, 0, "challenge", "dropped")]


async def test_a_challenge_not_posted_yet_waits_for_its_message(make_core) -> None:
    core: Core = await make_core()
    await core.reminders.choose(BOB, "every")
    made = await core.lobby.challenge(guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE,
                                      opponent_id=BOB, first="me", days_per_move=1)  # fmt: skip
    assert await core.reminders.next() is None  # no link to give yet: put back a moment
    assert await outbox(core) == [(BOB, made.id, 0, "challenge", "due")]
    await core.lobby.attach_challenge_message(made, MESSAGE)
    # due at once once posted, not when the moment it was put back for has passed (the
    # games' clock has not moved: a row left put back would wait for it)
    item = await core.reminders.next()
    assert item is not None and item.challenges[0].message_id == MESSAGE


async def test_a_challenge_posted_while_its_dm_is_claimed_goes_at_once(make_core) -> None:
    """The post lands between the sender's read of the challenge (no message yet) and its
    putting the row back: the posted mark found the row claimed, not due, and changed
    nothing. The sender looks again once the row is back: due at once, not in ten
    seconds (never, on a clock that stands still)."""
    core: Core = await make_core()
    await core.reminders.choose(BOB, "every")
    made = await core.lobby.challenge(guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE,
                                      opponent_id=BOB, first="me", days_per_move=1)  # fmt: skip
    read = core.repo.get_challenge

    async def read_then_posted(challenge_id: int) -> Challenge | None:
        seen = await read(challenge_id)
        if seen is not None and seen.message_id is None:
            await core.lobby.attach_challenge_message(made, MESSAGE)  # lands right after
        return seen

    core.repo.get_challenge = read_then_posted  # type: ignore[method-assign]
    item = await core.reminders.next()
    assert item is not None and item.challenges[0].message_id == MESSAGE


async def test_a_challenge_never_posted_is_dropped_after_five_minutes_of_looks(
    make_core,
) -> None:
    core: Core = await make_core()
    await core.reminders.choose(BOB, "every")
    made = await core.lobby.challenge(guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE,
                                      opponent_id=BOB, first="me", days_per_move=7)  # fmt: skip
    for _ in range(CHALLENGE_UNPOSTED_TRIES):  # its process died before posting it
        assert await core.reminders.next() is None
        assert await outbox(core) == [(BOB, made.id, 0, "challenge", "due")]
        core.clock.advance(CHALLENGE_UNPOSTED_RETRY)
    assert await core.reminders.next() is None
    assert await outbox(core) == [(BOB, made.id, 0, "challenge", "dropped")]
    assert await core.reminders.next_due() is None  # nothing more to look at


async def test_a_challenge_dm_not_sent_yet_goes_no_more_once_reminders_are_off(
    make_core,
) -> None:
    core: Core = await make_core()
    await core.reminders.choose(BOB, "every")
    made = await challenge(core)
    await core.reminders.choose(BOB, "off")
    assert await core.reminders.next() is None
    assert await outbox(core) == [(BOB, made.id, 0, "challenge", "dropped")]
