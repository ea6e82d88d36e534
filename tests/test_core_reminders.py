""" "Your move" reminders through the outbox, on SQLite and PostgreSQL, with a clock the
tests move: written with the move that makes them due (only for a member who chose
them), one per turn, claimed once however many senders race, never sent twice after a
crash between claim and mark, dropped for a game already moved in."""

from __future__ import annotations

import asyncio

from test_core_click_cost import services_over, watch_statements

from bot.core.models import DAY
from bot.core.reminders.models import HOUR, next_digest
from bot.core.reminders.service import DIGEST_BATCH, KEPT_DONE, PRUNE_EVERY
from bot.storage import SqliteRepository

from core_harness import CHANNEL, GUILD, Core, FakeClock, open_repo, play, refusal_key

ALICE, BOB = 101, 102


async def correspondence_game(core: Core, days: int = 1) -> int:
    """ALICE (X, to move) against BOB at ``days`` a move, accepted at once: its id."""
    challenge = await core.lobby.challenge(
        guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, opponent_id=BOB, first="me",
        days_per_move=days,
    )  # fmt: skip
    update = await core.lobby.accept(challenge.id, BOB, message_id=None)
    return update.game.id


async def outbox(core: Core) -> list[tuple[int, int, int, str, str]]:
    """(member, game, ply, kind, status) of every outbox row, in order."""
    rows = await core.repo._call(_rows)  # type: ignore[attr-defined]
    return [(r["member_id"], r["game_id"], r["ply"], r["kind"], r["status"]) for r in rows]


async def _rows(db):  # a query, as the storage package writes them (for the test's eyes)
    return await db.rows(
        "SELECT member_id, game_id, ply, kind, status FROM outbox ORDER BY member_id, ply, kind"
    )


async def test_nothing_is_written_for_a_member_who_did_not_opt_in(make_core) -> None:
    core: Core = await make_core()
    game_id = await correspondence_game(core)
    await play(core, game_id, (ALICE, 4), (BOB, 0))
    assert await outbox(core) == []
    assert await core.reminders.next() is None


async def test_each_turn_is_reminded_once_and_a_moved_game_is_dropped(make_core) -> None:
    core: Core = await make_core()
    await core.reminders.choose(BOB, "every", warnings=True)
    await core.reminders.choose(ALICE, "every")
    game_id = await correspondence_game(core)  # alice's first move: written at acceptance
    challenge_id = 1  # bob's DM of her challenge, written with it, dropped as he accepted
    assert await outbox(core) == [
        (ALICE, game_id, 0, "move", "due"), (BOB, challenge_id, 0, "challenge", "dropped")
    ]  # fmt: skip
    await play(core, game_id, (ALICE, 4))
    rows = await outbox(core)
    assert (BOB, game_id, 1, "move", "due") in rows and (BOB, game_id, 1, "warn12", "due") in rows
    assert (BOB, game_id, 1, "warn1", "due") in rows
    first = await core.reminders.next()  # alice's reminder: she moved since, so it is dropped
    assert first is not None and first.reminder.member_id == BOB
    assert first.reminder.kind == "move" and first.games[0].game.ply == 1
    await core.reminders.sent(first.reminder)
    assert await core.reminders.next() is None  # the warnings are not due yet
    assert (ALICE, game_id, 0, "move", "dropped") in await outbox(core)
    core.clock.advance(12 * HOUR)  # the 12 h warning is due: the 1 h one is not
    warned = await core.reminders.next()
    assert warned is not None and warned.reminder.kind == "warn12"
    await core.reminders.sent(warned.reminder)
    await play(core, game_id, (BOB, 0))  # moved: the 1 h warning goes nowhere
    core.clock.advance(11 * HOUR)
    again = await core.reminders.next()
    assert again is not None and again.reminder.member_id == ALICE  # her turn, ply 2
    await core.reminders.sent(again.reminder)
    assert await core.reminders.next() is None
    assert (BOB, game_id, 1, "warn1", "dropped") in await outbox(core)


async def test_a_click_writes_its_reminders_in_its_own_write(database) -> None:
    """Statement counts: a live click, and a correspondence click for a member who chose
    nothing, are one statement; one for a member who chose adds at most one INSERT in the
    move's transaction (on PostgreSQL none: it rides in the UPDATE)."""
    repo = open_repo(database, pool_size=1)  # one connection: every statement is seen
    await repo.open()
    try:
        clock = FakeClock()
        core = await services_over(repo, clock)
        await core.reminders.choose(BOB, "every")
        challenge = await core.lobby.challenge(
            guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, opponent_id=BOB, first="me",
            days_per_move=1,
        )  # fmt: skip
        game = (await core.lobby.accept(challenge.id, BOB, message_id=None)).game
        seen = await watch_statements(repo)
        await core.games.play_turn(game.id, 0, 4, ALICE)
        await asyncio.sleep(0)  # asyncpg tells its query loggers with call_soon
        writes = [s for s in seen if s.lstrip().upper().startswith(("UPDATE", "INSERT", "WITH"))]
        if isinstance(repo, SqliteRepository):  # one INSERT … SELECT more, in the move's
            assert [w.split()[0].upper() for w in writes] == ["UPDATE", "INSERT"]  # transaction
            assert any(s.upper().startswith(("BEGIN", "SAVEPOINT")) for s in seen)
        else:  # the move's UPDATE and its outbox rows: one statement, one round trip
            assert len(writes) == 1 and "INSERT INTO outbox" in writes[0], seen
        assert [r.member_id for r in await repo.claim_reminders(clock(), 10)] == [BOB]

        quiet = await core.lobby.challenge(  # a correspondence game nobody asked reminders of
            guild_id=GUILD, channel_id=CHANNEL + 2, user_id=303, opponent_id=304, first="me",
            days_per_move=1,
        )  # fmt: skip
        game = (await core.lobby.accept(quiet.id, 304, message_id=None)).game
        await asyncio.sleep(0)
        seen.clear()
        await core.games.play_turn(game.id, 0, 4, 303)
        await asyncio.sleep(0)
        assert len(seen) == 1, seen  # one statement, as a live click
        if isinstance(repo, SqliteRepository):  # the game's remind marks: no INSERT at all
            assert seen[0].startswith("UPDATE games"), seen

        live = await core.lobby.challenge(
            guild_id=GUILD, channel_id=CHANNEL + 1, user_id=ALICE, opponent_id=BOB, first="me"
        )
        game = (await core.lobby.accept(live.id, BOB, message_id=None)).game
        await asyncio.sleep(0)
        seen.clear()
        await core.games.play_turn(game.id, 0, 4, ALICE)
        await asyncio.sleep(0)
        assert len(seen) == 1 and "outbox" not in seen[0], seen  # a live game: as before
    finally:
        await repo.close()


async def test_two_senders_racing_claim_each_reminder_once(make_core, database) -> None:
    first: Core = await make_core()
    # PostgreSQL: another process's core; SQLite (one process a file): a second sender loop
    second = (
        first if isinstance(first.repo, SqliteRepository) else await make_core(clock=first.clock)
    )
    for member in range(200, 230):
        await first.reminders.choose(member, "every")
    for member in range(200, 230, 2):
        challenge = await first.lobby.challenge(
            guild_id=GUILD, channel_id=CHANNEL, user_id=member, opponent_id=member + 1,
            first="me", days_per_move=3,
        )  # fmt: skip
        game = (await first.lobby.accept(challenge.id, member + 1, message_id=None)).game
        await play(first, game.id, (member, 0))  # both sides reminded once

    async def drain(core: Core) -> list[int]:
        got = []
        while (item := await core.reminders.next()) is not None:
            got.append(item.reminder.id)
            await core.reminders.sent(item.reminder)
            await asyncio.sleep(0)
        return got

    a, b = await asyncio.gather(drain(first), drain(second))
    # each game: X's reminder at acceptance (dropped: X moved), then O's
    assert len(a) + len(b) == 15 and not set(a) & set(b)
    assert a and b  # both took part


async def test_a_crash_between_claim_and_mark_never_sends_twice(make_core) -> None:
    core: Core = await make_core()
    await core.reminders.choose(ALICE, "every")
    game_id = await correspondence_game(core)
    claimed = await core.reminders.next()  # claimed, then the process dies mid-send
    assert claimed is not None and claimed.reminder.game_id == game_id
    sqlite = isinstance(core.repo, SqliteRepository)  # (one process a file: another loop)
    again = core if sqlite else await make_core(clock=core.clock)  # another process
    core.clock.advance(DAY - 1)
    assert await again.reminders.next() is None  # left 'sending': lost, never doubled
    assert await outbox(again) == [(ALICE, game_id, 0, "move", "sending")]


async def test_unreachable_members_are_skipped_until_they_choose_again(make_core) -> None:
    core: Core = await make_core()
    await core.reminders.choose(ALICE, "every")
    await core.reminders.choose(BOB, "every")
    game_id = await correspondence_game(core)
    item = await core.reminders.next()
    assert item is not None
    assert (await core.repo.get_game(game_id)).remind == "XO"  # type: ignore[union-attr]
    await core.reminders.unreachable(item.reminder)  # Discord answered 50007
    game = await core.repo.get_game(game_id)
    assert game is not None and game.remind == "xO"  # mentioned in the channel instead
    assert game.mentioned_instead("X") and not game.mentioned_instead("O")
    await play(core, game_id, (ALICE, 4), (BOB, 0))
    assert [r for r in await outbox(core) if r[0] == ALICE and r[4] == "due"] == []
    assert await core.reminders.tell_unreachable(ALICE) is True  # told once
    assert await core.reminders.tell_unreachable(ALICE) is False
    await core.reminders.refresh_untold()
    assert await core.reminders.tell_unreachable(ALICE) is False
    await core.reminders.choose(ALICE, "every")  # chosen again: tried again
    assert (await core.repo.get_game(game_id)).remind == "XO"  # type: ignore[union-attr]
    await play(core, game_id, (ALICE, 1))
    await play(core, game_id, (BOB, 2))
    assert (ALICE, game_id, 4, "move", "due") in await outbox(core)


async def test_rows_done_with_are_forgotten_after_eight_days_once_an_hour(make_core) -> None:
    core: Core = await make_core()
    await core.reminders.choose(ALICE, "every")
    await core.reminders.choose(BOB, "every")
    game_id = await correspondence_game(core)
    item = await core.reminders.next()
    assert item is not None and item.reminder.member_id == ALICE
    await core.reminders.sent(item.reminder)
    await play(core, game_id, (ALICE, 4))  # bob's turn: due, and left due
    done = [(ALICE, game_id, 0, "move", "sent"), (BOB, 1, 0, "challenge", "dropped")]
    assert await core.reminders.prune() == 0  # nothing that old
    core.clock.advance(KEPT_DONE - 60)
    assert await core.reminders.prune() == 0 and set(done) <= set(await outbox(core))
    core.clock.advance(120)
    assert await core.reminders.prune() == 0  # an hour had not passed since the last
    core.clock.advance(PRUNE_EVERY)
    assert await core.reminders.prune() == 2
    assert await outbox(core) == [(BOB, game_id, 1, "move", "due")]  # never a due row


async def test_a_mark_another_process_changed_reaches_this_ones_next_save(make_core) -> None:
    """Another process's sender gets the 50007 and marks bob; this process, which keeps the
    game from its own clicks, mentions bob at his next turn all the same (the save reads
    the marks back), and stops once he chooses again elsewhere."""
    core: Core = await make_core()
    other = await services_over(core.repo, core.clock)  # a second process, one database
    await core.reminders.choose(BOB, "every")
    game_id = await correspondence_game(core)
    await play(core, game_id, (ALICE, 4))  # kept here, marked "O"
    item = await other.reminders.next()
    assert item is not None and item.reminder.member_id == BOB
    await other.reminders.unreachable(item.reminder)  # there: Discord answered 50007
    await play(core, game_id, (BOB, 0))
    game = (await core.games.play_turn(game_id, 2, 8, ALICE)).game
    assert game.remind == "o" and await core.messages.ping_due(game, ALICE) == BOB
    await other.reminders.choose(BOB, "every")  # chosen again, there
    await play(core, game_id, (BOB, 1))
    game = (await core.games.play_turn(game_id, 4, 7, ALICE)).game
    assert game.remind == "O" and await core.messages.ping_due(game, ALICE) is None


async def test_a_retry_backs_off_and_gives_up(make_core) -> None:
    core: Core = await make_core()
    await core.reminders.choose(ALICE, "every")
    await correspondence_game(core)
    item = await core.reminders.next()
    assert item is not None
    at = await core.reminders.failed(item.reminder)
    assert at == core.clock() + 60
    assert await core.reminders.next() is None
    core.clock.advance(60)
    item = await core.reminders.next()
    assert item is not None and item.reminder.attempts == 2


async def test_a_digest_lists_every_game_waiting_once_a_day(make_core) -> None:
    core: Core = await make_core()
    setting = await core.reminders.choose(ALICE, "digest", hour=9, utc_offset=120)
    assert setting.digest_minute == 7 * 60 and setting.digest_hour == 9
    first = await correspondence_game(core, 3)
    second = await correspondence_game(core, 7)
    await play(core, second, (ALICE, 4), (BOB, 0))
    assert await core.reminders.next() is None  # not their hour yet
    due = next_digest(core.clock(), 7 * 60)
    core.clock.now = due
    digest = await core.reminders.next()
    assert digest is not None and digest.reminder.kind == "digest"
    assert sorted(u.game.id for u in digest.games) == sorted([first, second])
    await core.reminders.sent(digest.reminder)
    assert await core.reminders.next() is None  # once that day
    assert await core.reminders.next_due() == due + DAY


async def test_a_look_seconds_before_the_hour_does_not_hold_the_digest_back(make_core) -> None:
    """Looks for digests fall on whole minutes: one made 30 s before the member's minute
    leaves their digest claimable at that minute. (A look a minute after the last one held
    it back 30 s, while next_due said it was due: the sender woke again and again at once,
    and with a clock standing still, for ever.)"""
    core: Core = await make_core()
    await core.reminders.choose(ALICE, "digest", hour=9, utc_offset=120)
    await correspondence_game(core)  # alice to move
    due = next_digest(core.clock(), 7 * 60)
    core.clock.now = due - 30
    assert await core.reminders.next() is None  # a look, half a minute early
    core.clock.now = due
    assert await core.reminders.next_due() == due
    digest = await core.reminders.next()
    assert digest is not None and digest.reminder.kind == "digest"


async def test_a_digest_hour_of_many_members_goes_at_the_senders_pace_moves_first(
    make_core,
) -> None:
    """More members than one batch at one hour: the next batch is claimed as soon as the
    outbox runs dry, not a minute later (which capped a digest hour at 100 a minute,
    whatever TTT_DM_PER_MINUTE said), and a move's reminder due meanwhile goes first."""
    core: Core = await make_core()
    members = [1000 + i for i in range(DIGEST_BATCH * 2 + 10)]
    for member in members:
        await core.reminders.choose(member, "digest", hour=9)
        challenge = await core.lobby.challenge(
            guild_id=GUILD, channel_id=CHANNEL, user_id=member, opponent_id=member + 10_000,
            first="me", days_per_move=1,
        )  # fmt: skip
        await core.lobby.accept(challenge.id, member + 10_000, message_id=None)
    await core.reminders.choose(BOB, "every")
    core.clock.now = next_digest(core.clock(), 9 * 60)  # the clock stands still from here
    sent: list[int] = []
    while len(sent) < DIGEST_BATCH:
        item = await core.reminders.next()
        assert item is not None and item.reminder.kind == "digest"
        sent.append(item.reminder.member_id)
        await core.reminders.sent(item.reminder)
    game_id = await correspondence_game(core)
    await play(core, game_id, (ALICE, 4))  # bob's move: due now, after the first batch
    item = await core.reminders.next()
    assert item is not None and (item.reminder.kind, item.reminder.member_id) == ("move", BOB)
    await core.reminders.sent(item.reminder)
    while (item := await core.reminders.next()) is not None:
        assert item.reminder.kind == "digest"
        sent.append(item.reminder.member_id)
        await core.reminders.sent(item.reminder)
    assert sorted(sent) == members  # every one, once, at the same minute


async def test_bad_choices_are_refused(make_core) -> None:
    core: Core = await make_core()
    for kwargs, key in (
        ({"mode": "hourly"}, "notify.bad_mode"),
        ({"mode": "digest"}, "notify.bad_hour"),
        ({"mode": "digest", "hour": 24}, "notify.bad_hour"),
        ({"mode": "every", "utc_offset": 15 * 60}, "notify.bad_offset"),
    ):
        mode = kwargs.pop("mode")
        assert await refusal_key(core.reminders.choose(ALICE, mode, **kwargs)) == key
    assert await core.reminders.offer_once(ALICE) is True
    assert await core.reminders.offer_once(ALICE) is False


async def test_a_choice_made_during_a_game_counts_from_its_next_move(make_core) -> None:
    core: Core = await make_core()
    game_id = await correspondence_game(core)
    await play(core, game_id, (ALICE, 4))  # bob chose nothing yet: nothing written
    game = await core.repo.get_game(game_id)
    assert game is not None and game.remind == ""
    await core.reminders.choose(ALICE, "off", warnings=True)  # warnings only
    game = await core.repo.get_game(game_id)
    assert game is not None and game.remind == "X"
    await play(core, game_id, (BOB, 0))
    kinds = {r[3] for r in await outbox(core) if r[0] == ALICE}
    assert kinds == {"warn12", "warn1"}  # no every-move reminder: not chosen
    await core.reminders.choose(ALICE, "off", warnings=False)
    game = await core.repo.get_game(game_id)
    assert game is not None and game.remind == ""
    assert {r[4] for r in await outbox(core)} == {"dropped"}  # her warnings, withdrawn
