"""A correspondence challenge's DM through Discord: sent once to a member who chose
every-move reminders (nothing for one who did not, nor from a member they blocked),
saying who, the board, the pace, when it lapses and where, with Accept and Decline that
answer it as its own buttons do (the challenge's message becomes the game, the DM loses
its buttons); a click after the challenge closed is refused privately and changes
nothing. The games' clock is the test's; the emulator checks every request."""

from __future__ import annotations

import pytest

from bot.core.models import DAY
from bot.discord_ui import custom_ids

from bot_harness import board_of, running_bot, settings_for
from correspondence_harness import MovableClock, dms_to, next_dm, press, stamp
from discord_emulator import DiscordEmulator, buttons


@pytest.fixture
def clock() -> MovableClock:
    return MovableClock()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def bot(request, emulator: DiscordEmulator, tmp_path, clock: MovableClock):
    url = request.getfixturevalue("pg_database") if request.param == "postgres" else None
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3", dm_per_minute=600,
                            database_url=url)  # fmt: skip
    async with running_bot(emulator, settings, game_clock=clock) as bot:
        yield bot


def clicks(message: dict) -> list[object]:
    """The DM's buttons, read with the bot's own grammar."""
    return [custom_ids.parse(b["custom_id"]) for row in buttons(message) for b in row]


def dm_channel_opened(emulator: DiscordEmulator, user) -> bool:
    return any(r.method == "POST" and r.path == "/users/@me/channels"
               and str((r.body or {}).get("recipient_id")) == str(user.id)
               for r in emulator.requests)  # fmt: skip


async def challenge(emulator: DiscordEmulator, challenger, opponent, days: int = 3) -> dict:
    res = await emulator.invoke(challenger, "ttt start",
                                {"opponent": opponent, "first": "me", "pace": days})  # fmt: skip
    assert "challenges you" in res.message["content"], res.message["content"]
    return res.message


async def test_an_opted_in_member_gets_one_dm_and_accepts_from_it(
    emulator, transport, bot, clock
) -> None:
    alice, bob, carol = (emulator.create_user(n) for n in ("alice", "bob", "carol"))
    await emulator.invoke(bob, "ttt notify", {"mode": "every"})
    to_carol = await challenge(emulator, alice, carol)  # carol chose nothing
    other = emulator.create_channel(emulator.guild, "other")
    emulator.channel = other
    message = await challenge(emulator, alice, bob)
    dm = await next_dm(emulator, bob, challenges=True)
    link = f"https://discord.com/channels/{emulator.guild.id}/{other.id}/{message['id']}"
    assert dm["content"] == (
        f"<@{alice.id}> challenges you to a correspondence game: 3×3, three in a row"
        f" · 3 days a move. It lapses {stamp(clock() + 3 * DAY)} unless you answer."
        f" The challenge: {link}"
    )
    challenge_id = int(press(message, "Accept").split(":")[2])
    assert clicks(dm) == [custom_ids.ReminderAcceptClick(challenge_id),
                          custom_ids.ReminderDeclineClick(challenge_id)]  # fmt: skip
    assert await bot.reminder_sender.send_due() == 0
    assert len(dms_to(emulator, bob, challenges=True)) == 1
    assert dm_channel_opened(emulator, bob)  # as the helper sees it: bob's, not carol's
    assert not dm_channel_opened(emulator, carol) and not dm_channel_opened(emulator, alice)
    assert "challenges you" in emulator.message(to_carol["id"])["content"]

    res = await emulator.click(bob, dm, press(dm, "Accept"))
    assert res.type == 7 and not res.message["components"]  # the DM, without its buttons
    assert res.message["content"].startswith(dm["content"])
    assert res.message["content"].endswith(
        f"-# Accepted: the game is on the challenge's message, {link}."
    )
    board = emulator.message(message["id"])  # the challenge became the board, as from it
    assert board_of(board) == "........."
    assert f"<@{alice.id}> to move (❌), <t:{int(clock() + 3 * DAY)}:R>." in board["content"]
    assert emulator.violations == []


async def test_a_dm_click_after_the_challenge_closed_is_refused_and_changes_nothing(
    emulator, bot
) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    await emulator.invoke(bob, "ttt notify", {"mode": "every"})
    message = await challenge(emulator, alice, bob)
    dm = await next_dm(emulator, bob, challenges=True)
    res = await emulator.click(bob, message, press(message, "Decline"))  # in the channel
    declined = emulator.message(message["id"])
    assert "declined" in declined["content"] and buttons(declined) == []

    res = await emulator.click(bob, dm, press(dm, "Accept"))
    assert res.ephemeral and res.content == "This challenge is no longer open."
    assert emulator.message(dm["id"]) == dm  # the DM as it was
    assert emulator.message(message["id"]) == declined  # no game
    challenge_id = int(press(dm, "Accept").split(":")[2])
    stored = await bot.repo.get_challenge(challenge_id)
    assert stored is not None and stored.status == "declined" and stored.game_id is None


async def test_declined_from_the_dm(emulator, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    await emulator.invoke(bob, "ttt notify", {"mode": "every"})
    message = await challenge(emulator, alice, bob, days=1)
    dm = await next_dm(emulator, bob, challenges=True)
    res = await emulator.click(bob, dm, press(dm, "Decline"))
    assert res.type == 7 and not res.message["components"]
    assert res.message["content"].endswith("-# Declined: the challenge's message says so.")
    shown = emulator.message(message["id"])
    assert "declined" in shown["content"] and buttons(shown) == []


async def test_a_blocked_challenger_produces_no_dm(emulator, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    await emulator.invoke(bob, "ttt notify", {"mode": "every"})
    await emulator.invoke(bob, "ttt block", {"member": alice})
    res = await emulator.invoke(alice, "ttt start", {"opponent": bob, "first": "me", "pace": 1})
    assert res.ephemeral and res.content == "Your challenge was not accepted."
    assert await bot.reminder_sender.send_due() == 0
    assert not dm_channel_opened(emulator, bob)


async def test_a_digest_member_finds_the_challenge_in_their_digest_and_no_dm_before(
    emulator, bot, clock
) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    await emulator.invoke(bob, "ttt notify", {"mode": "digest", "hour": 9})
    chosen_at = clock()
    message = await challenge(emulator, alice, bob, days=7)
    assert await bot.reminder_sender.send_due() == 0  # no DM of its own
    assert not dm_channel_opened(emulator, bob)
    clock.now = clock.now - clock.now % DAY + 9 * 3600  # 09:00 UTC
    if clock.now <= chosen_at:
        clock.now += DAY
    bot.reminders.wake.set()
    digest = await next_dm(emulator, bob)
    link = f"https://discord.com/channels/{emulator.guild.id}/{emulator.channel.id}/{message['id']}"
    challenge_id = int(press(message, "Accept").split(":")[2])
    stored = await bot.repo.get_challenge(challenge_id)  # its expiry, as stored
    assert stored is not None
    assert digest["content"] == (
        "Challenges waiting for your answer (1):\n"
        f"• from <@{alice.id}>, 7 days a move, lapses {stamp(stored.expires_at)}: {link}"
    )
    assert buttons(digest) == []  # answered on the challenge, or from /ttt games
