""" "Your move" reminders through Discord: chosen privately with /ttt notify (or the first
correspondence game's offer), sent as a DM with the board once a turn, played from the
DM (the game's own message then shows the move), stale DM clicks redrawn, and a member
whose DMs are closed marked unreachable, mentioned in the game's channel instead and
told once. The games' clock is the test's; the emulator checks every request."""

from __future__ import annotations

import pytest

from bot.core.models import DAY

from bot_harness import board_of, cell_id, running_bot, settings_for
from correspondence_harness import (
    MovableClock,
    correspondence_board,
    dm_board,
    dm_cells,
    dms_to,
    next_dm,
    press,
    stamp,
)
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


async def test_a_member_who_chose_gets_one_dm_a_turn_and_plays_from_it(
    emulator, transport, bot, clock
) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    res = await emulator.invoke(bob, "ttt notify", {"mode": "every"})
    assert res.ephemeral and res.content.startswith("I'll DM you when it's your move")
    start = await emulator.invoke(alice, "ttt start", {"opponent": bob, "first": "me", "pace": 1})
    await start.wait_for_edit()  # a follow-up after the answer
    (offer,) = start.followups  # her first correspondence game: offered, privately
    assert (
        emulator.is_ephemeral(offer["id"]) and "Want a DM when it's your move?" in offer["content"]
    )
    res = await emulator.click(bob, start.message, press(start.message, "Accept"))
    assert res.followups == []  # bob chose already: no offer
    board = res.message
    res = await emulator.click(alice, board, cell_id(board, 4))
    board = res.message

    dm = await next_dm(emulator, bob)
    assert f"Your move against <@{alice.id}>, due {stamp(clock() + DAY)}" in dm["content"]
    link = f"https://discord.com/channels/{emulator.guild.id}/{emulator.channel.id}/{board['id']}"
    assert link in dm["content"], (link, dm["content"])
    assert dm_board(dm) == "....X...."
    assert len(dm_cells(dm)) == 9 and len(buttons(dm)) == 3  # the squares alone
    assert dms_to(emulator, alice) == []  # alice never chose: nothing for her
    assert await bot.reminder_sender.send_due() == 0  # one reminder a turn

    res = await emulator.click(bob, dm, dm_cells(dm)[0]["custom_id"])
    assert res.type == 7 and not res.message["components"]  # alice's move now
    assert "⭕⬜⬜\n⬜❌⬜\n⬜⬜⬜" in res.message["content"]
    payload = emulator.interactions[res.id].payload
    assert payload["context"] == 1 and "member" not in payload
    shown = await emulator.wait_for_message(
        lambda m: m["id"] == board["id"] and board_of(m) == "O...X....", include_existing=True
    )
    assert f"<@{alice.id}> to move" in shown["content"]  # the channel's board, as after a click
    assert dms_to(emulator, alice) == []
    assert emulator.violations == []


FRENCH_TURN = "À <@{alice}> de jouer"


async def test_a_dm_is_written_in_the_language_the_member_chose_in(emulator, bot) -> None:
    """The server speaks English; bob chose reminders from a French client: his DMs are
    French. (A DM has no locale: the choice's interaction is where his language is known.)"""
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    board = await correspondence_board(emulator, alice, bob)  # then chosen: no challenge DM
    res = await emulator.invoke(bob, "ttt notify", {"mode": "every"}, locale="fr")
    assert res.ephemeral and not res.content.startswith("I'll DM you")  # answered in French
    board = (await emulator.click(alice, board, cell_id(board, 4))).message
    assert f"<@{bob.id}> to move" in board["content"]  # the channel: the server's English
    dm = await next_dm(emulator, bob)
    assert dm["content"].startswith(f"À toi de jouer contre <@{alice.id}>"), dm["content"]
    stored = await bot.repo.reminder_setting(bob.id)
    assert stored is not None and stored.locale == "fr"
    res = await emulator.click(bob, dm, dm_cells(dm)[0]["custom_id"], locale="fr")
    assert res.type == 7 and FRENCH_TURN.format(alice=alice.id) in res.message["content"]
    assert "to move" not in res.message["content"]  # redrawn in his language, as sent


async def test_a_dm_click_on_a_game_moved_since_is_redrawn_and_changes_nothing(
    emulator, bot
) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    await emulator.invoke(bob, "ttt notify", {"mode": "every"})
    board = await correspondence_board(emulator, alice, bob)
    board = (await emulator.click(alice, board, cell_id(board, 4))).message
    dm = await next_dm(emulator, bob)
    board = (await emulator.click(bob, board, cell_id(board, 8))).message  # moved in the channel
    res = await emulator.click(bob, dm, dm_cells(dm)[0]["custom_id"])
    assert res.type == 7 and "⬜⬜⬜\n⬜❌⬜\n⬜⬜⭕" in res.message["content"]  # as it stands
    assert not res.message["components"]  # alice's move now: nothing to click
    await res.wait_for_edit()  # the refusal follows, privately
    (told,) = res.followups
    assert emulator.is_ephemeral(told["id"])
    stored = await bot.repo.get_game(int(cell_id(board, 0).split(":")[2]))
    assert stored is not None and stored.moves == (4, 8)  # nothing played from the DM


async def test_closed_dms_mark_the_member_unreachable_ping_in_the_channel_and_tell_once(
    emulator, bot
) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    bob.dms_closed = True
    board = await correspondence_board(emulator, alice, bob)
    # chosen once the game runs: a DM of the challenge would race his Accept, whose
    # answer would then tell him (his "next interaction" below would not)
    await emulator.invoke(bob, "ttt notify", {"mode": "every", "warnings": True})
    board = (await emulator.click(alice, board, cell_id(board, 4))).message
    ping = await emulator.wait_for_message(
        lambda m: m["channel_id"] == str(emulator.channel.id) and f"<@{bob.id}>" in m["content"]
        and m["id"] != board["id"],
        include_existing=True,
    )  # fmt: skip
    assert ping["content"].startswith(f"<@{bob.id}>")  # the turn's ping, instead of a DM
    dm_posts = [r for r in emulator.requests if r.method == "POST"
                and r.path == f"/channels/{emulator.dm_channel(bob).id}/messages"]  # fmt: skip
    assert len(dm_posts) == 1 and dms_to(emulator, bob) == []
    refused = [e for e in emulator.error_responses if e[3].get("code") == 50007]
    assert len(refused) == 1

    res = await emulator.click(bob, board, cell_id(board, 0))  # his next interaction
    await res.wait_for_edit()
    told = [f for f in res.followups if "can't reach you by DM" in f["content"]]
    assert len(told) == 1 and emulator.is_ephemeral(told[0]["id"])
    board = res.message
    res = await emulator.click(alice, board, cell_id(board, 8))
    await emulator.wait_for_message(  # his next turn: mentioned again (the ping is off here)
        lambda m: m["channel_id"] == str(emulator.channel.id) and m["id"] != ping["id"]
        and m["content"].startswith(f"<@{bob.id}>"),
        include_existing=True,
    )  # fmt: skip
    res = await emulator.invoke(bob, "ttt help")
    await bot.responder.idle.wait()  # whatever follows its answer has been sent
    told_all = [m for m in emulator._messages.values() if "can't reach you by DM" in m["content"]]
    assert len(told_all) == 1  # told once
    assert await bot.reminder_sender.send_due() == 0  # not tried again
    dm_posts = [r for r in emulator.requests if r.method == "POST"
                and r.path == f"/channels/{emulator.dm_channel(bob).id}/messages"]  # fmt: skip
    assert len(dm_posts) == 1
    res = await emulator.invoke(bob, "ttt notify", {"mode": "every"})  # chosen again
    assert res.ephemeral


async def test_deadline_warnings_go_12_h_and_1_h_before_and_stop_once_moved(
    emulator, bot, clock
) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    res = await emulator.invoke(bob, "ttt notify", {"mode": "every", "warnings": True})
    assert "Deadline warnings: on (12 hours and 1 hour before)." in res.content
    board = await correspondence_board(emulator, alice, bob)
    board = (await emulator.click(alice, board, cell_id(board, 4))).message
    deadline = clock() + DAY
    await next_dm(emulator, bob)
    clock.advance(12 * 3600)
    bot.reminders.wake.set()  # the sender's longest sleep would find it within a minute
    warned = await next_dm(emulator, bob, 2)
    assert (
        f"12 hours left for your move against <@{alice.id}> (due {stamp(deadline)})"
        in (warned["content"])
    )
    board = (await emulator.click(bob, board, cell_id(board, 0))).message  # moved in time
    clock.advance(11 * 3600)  # the 1 h warning's time: the turn it warned of is over
    assert await bot.reminder_sender.send_due() == 0
    assert len(dms_to(emulator, bob)) == 2


async def test_a_daily_digest_lists_every_game_waiting_at_the_members_hour(
    emulator, bot, clock
) -> None:
    alice, bob, carol = (emulator.create_user(n) for n in ("alice", "bob", "carol"))
    res = await emulator.invoke(bob, "ttt notify", {"mode": "digest", "hour": 9, "utc_offset": -5})
    assert "one digest a day at 9:00 (UTC-5)" in res.content
    chosen_at = clock()
    one = await correspondence_board(emulator, alice, bob, 3)
    one = (await emulator.click(alice, one, cell_id(one, 4))).message
    two = await correspondence_board(emulator, carol, bob, 7)
    two = (await emulator.click(carol, two, cell_id(two, 0))).message
    assert await bot.reminder_sender.send_due() == 0  # not every move: the digest's hour
    clock.now = clock.now - clock.now % DAY + 14 * 3600  # 14:00 UTC: 9:00 at UTC-5
    if clock.now <= chosen_at:
        clock.now += DAY
    bot.reminders.wake.set()
    digest = await next_dm(emulator, bob)
    assert digest["content"].startswith("Correspondence games waiting for your move (2):")
    for board, who in ((one, alice), (two, carol)):
        assert f"against <@{who.id}>" in digest["content"]
        assert f"/{emulator.channel.id}/{board['id']}" in digest["content"]
    assert await bot.reminder_sender.send_due() == 0  # once that day
    assert len(dms_to(emulator, bob)) == 1


async def test_discords_refusals_are_retried_later_and_its_limits_obeyed(
    emulator, bot, clock
) -> None:
    alice, bob, carol = (emulator.create_user(n) for n in ("alice", "bob", "carol"))
    boards = [await correspondence_board(emulator, alice, member) for member in (bob, carol)]
    for member in (bob, carol):  # chosen once the games run: no challenge DM takes a fault
        await emulator.invoke(member, "ttt notify", {"mode": "every"})
    limit = emulator.rate_limits.dm
    limit.set(1, 0.3)  # one DM opened in 0.3 s: the second waits (discord.py reads the headers)
    emulator.faults.add("POST", rf"/channels/{emulator.dm_channel(bob).id}/messages", 403,
                        code=50001, times=1)  # fmt: skip
    emulator.faults.add("POST", r"^/users/@me/channels$", 429, retry_after=0.2)  # waited out
    for board in boards:
        await emulator.click(alice, board, cell_id(board, 4))
    await next_dm(emulator, carol)
    assert dms_to(emulator, bob) == []  # refused once: due again after a minute
    assert limit.early == 0 and limit.calls >= 3  # the 429'd call made again, after its wait
    clock.advance(60)
    bot.reminders.wake.set()
    dm = await next_dm(emulator, bob)
    assert "Your move against" in dm["content"] and len(dms_to(emulator, bob)) == 1


async def test_dm_channels_kept_are_bounded_the_least_recent_opened_again(
    emulator, bot, monkeypatch
) -> None:
    from bot.discord_ui import reminder_sender

    monkeypatch.setattr(reminder_sender, "KNOWN_DMS", 1)  # a process keeps one DM channel
    alice, bob, carol = (emulator.create_user(n) for n in ("alice", "bob", "carol"))
    for member in (bob, carol):
        await emulator.invoke(member, "ttt notify", {"mode": "every"})

    def opened(user) -> int:
        return sum(1 for r in emulator.requests if r.method == "POST"
                   and r.path == "/users/@me/channels"
                   and str((r.body or {}).get("recipient_id")) == str(user.id))  # fmt: skip

    with_bob = await correspondence_board(emulator, alice, bob)
    with_bob = (await emulator.click(alice, with_bob, cell_id(with_bob, 4))).message
    await next_dm(emulator, bob)
    with_carol = await correspondence_board(emulator, alice, carol)
    await emulator.click(alice, with_carol, cell_id(with_carol, 4))
    await next_dm(emulator, carol)  # carol's channel kept: bob's forgotten
    with_bob = (await emulator.click(bob, with_bob, cell_id(with_bob, 0))).message
    await emulator.click(alice, with_bob, cell_id(with_bob, 8))
    await next_dm(emulator, bob, 2)  # his next turn's DM, in the same channel
    assert (opened(bob), opened(carol)) == (2, 1)
