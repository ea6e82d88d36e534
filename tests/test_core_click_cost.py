"""What a click costs the database: against the bot, the member's move and the bot's
reply are one write (one statement, one round trip) on both backends, with no read
before it; and the remembered game that spares the read never lets a click through that
the store would refuse."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest

from bot.core.models import GameUpdate
from bot.core.opponent import BotOpponent
from bot.core.policies import PolicyBook
from bot.core.policy import ServerPolicy
from bot.core.wiring import Core as Services
from bot.core.wiring import build_core
from bot.storage import SqliteRepository

from core_harness import BOT, CHANNEL, GUILD, FakeClock, open_core, open_repo, refusal_key

ALICE, BOB = 101, 102


class CountingStore:
    """The repository, with every call of one of its methods written down by name."""

    def __init__(self, repo: Any) -> None:
        self._repo = repo
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._repo, name)
        if name.startswith("_") or not callable(attr):
            return attr

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            return attr(*args, **kwargs)

        return counted


async def watch_statements(repo: Any) -> list[str]:
    """Every SQL statement the repository sends from now on, as the driver sees it (the
    repository must have one connection: SQLite's, or a PostgreSQL pool of one)."""
    seen: list[str] = []
    if isinstance(repo, SqliteRepository):
        repo.conn.set_trace_callback(seen.append)
    else:
        async with repo.pool.connection(timeout=2.0) as conn:
            conn.add_query_logger(lambda record: seen.append(record.query))
    return seen


async def services_over(
    repo: Any, clock: FakeClock, policy: ServerPolicy | None = None
) -> Services:
    return build_core(
        repo, PolicyBook(repo, policy or ServerPolicy()),
        BotOpponent(think_time=2.0, rng=random.Random(1)),
        bot_user_id=BOT, clock=clock, rng=random.Random(1),
    )  # fmt: skip


def start_hard(
    core: Services, user_id: int = ALICE, channel_id: int = CHANNEL
) -> Coroutine[Any, Any, GameUpdate]:
    """The member's game against ``hard`` in the channel, the member moving first."""
    return core.lobby.start_bot_game(
        guild_id=GUILD, channel_id=channel_id, user_id=user_id, difficulty="hard", first="me"
    )


def free_cell(update: GameUpdate) -> int:
    return update.game.board.legal_moves()[0]


async def test_a_click_against_the_bot_is_one_store_call(database: Path | str) -> None:
    repo = open_repo(database)
    await repo.open()
    try:
        counting = CountingStore(repo)
        core = await services_over(counting, FakeClock())
        update = await core.lobby.start_bot_game(
            guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, difficulty="easy", first="me"
        )
        clicks = 0
        while update.game.running:
            counting.calls.clear()
            update = await core.games.play_turn(
                update.game.id, update.game.ply, free_cell(update), ALICE
            )
            assert counting.calls == ["save_game"], counting.calls
            clicks += 1
        assert clicks >= 3  # the member moved first: at least three clicks to any ending
        stored = await repo.get_game(update.game.id)
        assert stored is not None and stored.moves == update.game.moves
    finally:
        await repo.close()


async def test_a_click_that_goes_on_is_one_statement(database: Path | str) -> None:
    repo = open_repo(database, pool_size=1)
    await repo.open()
    try:
        core = await services_over(repo, FakeClock())
        update = await start_hard(core)
        statements = await watch_statements(repo)
        update = await core.games.play_turn(update.game.id, 0, 4, ALICE)
        await asyncio.sleep(0)  # asyncpg tells its query loggers with call_soon
        assert update.game.running and update.game.ply == 2  # hard never loses in two moves
        assert len(statements) == 1, statements
        assert statements[0].lstrip().upper().startswith("UPDATE GAMES")
    finally:
        await repo.close()


async def a_watched_start(
    repo: Any, policy: ServerPolicy | None = None
) -> tuple[Services, list[str]]:
    """A core over ``repo``, and the statements of ALICE's start in CHANNEL: its second
    start (the first reads the server's settings, then cached, and announces the first
    deadline; later ones do neither)."""
    core = await services_over(repo, FakeClock(), policy)
    await start_hard(core, BOB, CHANNEL + 1)
    statements = await watch_statements(repo)
    await start_hard(core)
    await asyncio.sleep(0)  # asyncpg tells its query loggers with call_soon
    return core, statements


async def test_a_start_is_one_statement_that_takes_the_channels_lock(
    database: Path | str,
) -> None:
    """The insert counts the channel's games and challenges itself; on PostgreSQL it takes
    the channel's lock first (``ttt_room_after_locks``), so it needs no transaction."""
    repo = open_repo(database, pool_size=1)
    await repo.open()
    try:
        core, statements = await a_watched_start(repo)
        assert len(statements) == 1, statements
        insert = statements[0].lstrip().upper()
        assert insert.startswith("INSERT INTO GAMES")
        if isinstance(repo, SqliteRepository):
            assert "COUNT(*) FROM GAMES" in insert
        else:
            assert "TTT_ROOM_AFTER_LOCKS" in insert
        # a second start in the busy channel is refused, and says which game is there
        refused = await refusal_key(start_hard(core, BOB))
        assert refused == "start.busy_game"
    finally:
        await repo.close()


async def test_a_start_that_reads_the_member_first_is_a_transaction(
    database: Path | str,
) -> None:
    """One game per member: BEGIN (PostgreSQL: with the channel's and the member's locks,
    one round trip), the member's running game, the insert, COMMIT."""
    repo = open_repo(database, pool_size=1)
    await repo.open()
    try:
        core, statements = await a_watched_start(repo, ServerPolicy(one_game_per_member=True))
        begin, read, insert, commit = (s.lstrip().upper() for s in statements)
        assert begin.startswith("BEGIN") and commit.startswith("COMMIT")
        if not isinstance(repo, SqliteRepository):
            assert begin.count("PG_ADVISORY_XACT_LOCK") == 2
        assert read.startswith("SELECT") and insert.startswith("INSERT INTO GAMES")
        assert "COUNT(*) FROM GAMES" in insert  # the transaction holds the locks already
        refused = await refusal_key(start_hard(core, ALICE, CHANNEL + 2))
        assert refused == "start.member_busy"
    finally:
        await repo.close()


@pytest.mark.postgres
async def test_a_click_that_ends_a_game_against_the_bot_is_one_statement(
    pg_database: str,
) -> None:
    """On PostgreSQL the finishing save and the member's record at the level are one
    statement (a WITH query): atomic by itself, one round trip."""
    repo = open_repo(pg_database, pool_size=1)
    await repo.open()
    try:
        core = await services_over(repo, FakeClock())
        update = await start_hard(core)
        while update.game.running:  # the last click's statements are kept
            statements = await watch_statements(repo)
            update = await core.games.play_turn(
                update.game.id, update.game.ply, free_cell(update), ALICE
            )
        await asyncio.sleep(0)
        assert len(statements) == 1 and statements[0].lstrip().upper().startswith("WITH"), (
            statements
        )
        (record,) = await repo.best_against_bot(GUILD, "hard", 10)
        assert (record.user_id, record.wins) == (ALICE, 0)
        assert record.losses + record.draws == 1
    finally:
        await repo.close()


@pytest.mark.postgres
async def test_a_click_on_a_board_another_process_posted_again_is_refused(
    pg_database: str,
) -> None:
    clock = FakeClock()
    first, second = await open_core(pg_database, clock), await open_core(pg_database, clock)
    try:
        challenge = await first.lobby.challenge(
            guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, opponent_id=BOB, first="me"
        )
        update = await first.lobby.accept(challenge.id, BOB, message_id=None)
        game = await first.games.attach_game_message(update.game, 5000)
        await first.games.play_turn(game.id, 0, 4, ALICE, message_id=5000)  # remembered
        await first.games.play_turn(game.id, 1, 0, BOB, message_id=5000)

        async def post(_update: GameUpdate) -> int:
            return 6000

        reposted = await second.messages.repost(ALICE, CHANNEL, post)
        assert reposted.live
        # the first process remembers the game at ply 2 on message 5000: the store says no
        key = await refusal_key(first.games.play_turn(game.id, 2, 8, ALICE, message_id=5000))
        assert key == "move.moved"
        done = await first.games.play_turn(game.id, 2, 8, ALICE, message_id=6000)
        assert done.game.moves == (4, 0, 8) and done.game.message_id == 6000
    finally:
        await first.repo.close()
        await second.repo.close()


@pytest.mark.postgres
async def test_a_move_made_in_another_process_is_never_overwritten(pg_database: str) -> None:
    clock = FakeClock()
    first, second = await open_core(pg_database, clock), await open_core(pg_database, clock)
    try:
        challenge = await first.lobby.challenge(
            guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, opponent_id=BOB, first="me"
        )
        game_id = (await first.lobby.accept(challenge.id, BOB, message_id=None)).game.id
        await first.games.play_turn(game_id, 0, 4, ALICE)  # the first remembers ply 1
        await second.games.resign(BOB, game_id=game_id)  # and the game ends elsewhere
        assert await refusal_key(first.games.play_turn(game_id, 1, 0, BOB)) == "move.over"
        stored = await first.repo.get_game(game_id)
        assert stored is not None and stored.moves == (4,) and stored.ending is not None
    finally:
        await first.repo.close()
        await second.repo.close()
