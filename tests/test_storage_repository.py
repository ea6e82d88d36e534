"""The repository contract, on both backends (``[sqlite]`` and ``[postgres]``): migrations,
round trips, the compare-and-set, conflicts that leave a unit of work usable, records
written with the game that finishes. Then what only PostgreSQL has: errors naming the
server, migrations under a lock, advisory locks, claimed deadlines."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg
import pytest

from bot.core.models import Challenge, Ending, Game
from bot.core.repository import Conflict, DatabaseError, Repository
from bot.storage import MIGRATIONS, PostgresRepository
from bot.storage.postgres import POSTGRES, lock_key, name_of
from bot.storage.postgres_migrations import MIGRATIONS as PG_MIGRATIONS

from core_harness import open_repo

NOW = 1_700_000_000.0


def a_game(channel_id: int = 1, moves: tuple[int, ...] = (), deadline: float = NOW + 60) -> Game:
    return Game(
        id=0, guild_id=1, channel_id=channel_id, message_id=None, size=3, k=3,
        player_x=10, player_o=20, bot_side=None, difficulty=None, moves=moves,
        turn_deadline=deadline, created_at=NOW, updated_at=NOW,
    )  # fmt: skip


def a_challenge(channel_id: int = 1, expires_at: float = NOW + 60) -> Challenge:
    return Challenge(
        id=0, guild_id=1, channel_id=channel_id, message_id=None, challenger_id=10,
        opponent_id=20, x_player="challenger", size=3, k=3, status="pending",
        expires_at=expires_at, created_at=NOW,
    )  # fmt: skip


@pytest.fixture
async def repo(database: Path | str):
    opened = open_repo(database)
    await opened.open()
    yield opened
    await opened.close()


async def test_migrations_apply_once_and_data_survives_a_reopen(database: Path | str) -> None:
    expected = len(PG_MIGRATIONS) if isinstance(database, str) else len(MIGRATIONS)
    first = open_repo(database)
    await first.open()
    assert await first.schema_version() == expected
    assert f"schema version {expected}" in await first.describe()
    await first.set_meta("commands", "abc")
    await first.close()
    again = open_repo(database)
    await again.open()
    assert await again.schema_version() == expected
    assert await again.get_meta("commands") == "abc"
    await again.close()


async def test_round_trip_and_compare_and_set(repo: Repository) -> None:
    game = await repo.create_game(a_game(moves=(4,)))
    assert game.id > 0 and await repo.get_game(game.id) == game
    await repo.set_game_message(game.id, 2**62)  # Discord ids need 64 bits
    moved = game.with_changes(moves=(4, 0), message_id=2**62)
    assert await repo.save_game(game.with_changes(moves=(4, 0)), expected_ply=1) == moved
    assert await repo.get_game(game.id) == moved
    with pytest.raises(Conflict):
        await repo.save_game(game.with_changes(moves=(4, 8)), expected_ply=1)
    assert await repo.get_game(game.id) == moved
    assert await repo.running_games_in(1) == [moved] and await repo.running_games_in(2) == []


async def test_a_finished_game_and_its_records_are_one_write(repo: Repository) -> None:
    game = await repo.create_game(a_game(moves=(0, 3, 1, 4)))
    won = game.with_changes(moves=(0, 3, 1, 4, 2), ending=Ending("line", "X"), finished_at=NOW)
    await repo.save_game(won, expected_ply=4)
    with pytest.raises(Conflict):  # a second finish of the same game counts nothing
        await repo.save_game(won, expected_ply=4)
    board = await repo.leaderboard(1, 10)
    assert [(r.user_id, r.wins, r.losses) for r in board] == [(10, 1, 0), (20, 0, 1)]
    assert board[0].rating == pytest.approx(1016) and board[1].rating == pytest.approx(984)
    assert await repo.rank_of(1, 20) == (2, board[1])
    assert await repo.finished_games_of(1, 20) == [won]
    assert await repo.forget_player(20) == 1 and await repo.leaderboard(1, 10) == [board[0]]


async def test_imported_games_count_in_the_records(repo: Repository) -> None:
    ended = [
        a_game(moves=(0, 3, 1, 4, 2)).with_changes(ending=Ending("line", "X"), finished_at=NOW),
        a_game(moves=(4,)).with_changes(ending=Ending("resign", "X"), finished_at=NOW + 1),
    ]
    with pytest.raises(ValueError):  # a running game is no record
        await repo.import_finished_games([*ended, a_game()])  # type: ignore[attr-defined]
    assert await repo.finished_games_of(1, 10) == []  # all or nothing
    await repo.import_finished_games(ended)  # type: ignore[attr-defined]
    board = await repo.leaderboard(1, 10)
    assert [(r.user_id, r.wins, r.losses) for r in board] == [(10, 2, 0), (20, 0, 2)]
    assert [g.finished_at for g in await repo.finished_games_of(1, 20, limit=1)] == [NOW + 1]


async def test_a_conflict_inside_a_unit_of_work_leaves_it_usable(repo: Repository) -> None:
    async with repo.atomic() as tx:
        await tx.serialize(("channel", 1), ("member", 10))
        first = await tx.create_challenge(a_challenge())
        with pytest.raises(Conflict):  # one pending challenge per channel
            await tx.create_challenge(a_challenge())
        game = await tx.create_game(a_game(channel_id=2))
    assert await repo.pending_challenge_in(1) == first
    assert await repo.get_game(game.id) == game


async def test_a_unit_of_work_that_raises_leaves_nothing(repo: Repository) -> None:
    with pytest.raises(RuntimeError):
        async with repo.atomic() as tx:
            await tx.create_game(a_game())
            raise RuntimeError("refused after the insert")
    assert await repo.running_games() == []


async def test_a_challenge_is_accepted_once(repo: Repository) -> None:
    challenge = await repo.create_challenge(a_challenge())
    game = await repo.accept_challenge(challenge, a_game())
    with pytest.raises(Conflict):
        await repo.accept_challenge(challenge, a_game(channel_id=2))
    with pytest.raises(Conflict):
        await repo.close_challenge(challenge, "declined")
    stored = await repo.get_challenge(challenge.id)
    assert stored is not None and (stored.status, stored.game_id) == ("accepted", game.id)
    assert [g.id for g in await repo.running_games()] == [game.id]


async def test_settings_and_deadlines(repo: Repository) -> None:
    await repo.set_guild_overrides(7, {"games_per_channel": 2, "emoji_set": "hearts"})
    assert await repo.guild_overrides(7) == {"emoji_set": "hearts", "games_per_channel": 2}
    assert await repo.guild_overrides(8) == {}
    assert await repo.next_deadline() is None
    game = await repo.create_game(a_game(deadline=NOW + 30))
    await repo.create_challenge(a_challenge(channel_id=2, expires_at=NOW + 20))
    assert await repo.next_deadline() == NOW + 20
    assert await repo.games_due(NOW + 29) == [] and await repo.challenges_due(NOW + 19) == []
    assert await repo.games_due(NOW + 30) == [game]
    assert [c.channel_id for c in await repo.challenges_due(NOW + 20)] == [2]


# --- PostgreSQL only ----------------------------------------------------------------------


async def test_an_unreachable_server_is_a_one_line_error_naming_it() -> None:
    repo = PostgresRepository("postgresql://ttt:s3cret@127.0.0.1:9/tttdb", pool_size=2)
    with pytest.raises(DatabaseError) as info:
        await repo.open()
    message = str(info.value)
    assert message.startswith("cannot open PostgreSQL database tttdb on 127.0.0.1:9: ")
    assert "\n" not in message and "s3cret" not in message
    assert (
        name_of("postgresql://u:pw@db.example:5433/ttt")
        == "PostgreSQL database ttt on db.example:5433"
    )


@pytest.mark.postgres
async def test_a_newer_schema_is_refused(pg_database: str) -> None:
    repo = PostgresRepository(pg_database, pool_size=2)
    await repo.open()
    await repo.close()
    conn = await asyncpg.connect(pg_database)
    await conn.execute("UPDATE schema_version SET version = 99")
    await conn.close()
    with pytest.raises(DatabaseError, match="schema version 99 is newer than this bot knows"):
        await repo.open()


@pytest.mark.postgres
async def test_processes_starting_together_migrate_once(pg_database: str) -> None:
    repos = [PostgresRepository(pg_database, pool_size=1) for _ in range(6)]
    await asyncio.gather(*(r.open() for r in repos))  # six connections, one migration
    assert [await r.schema_version() for r in repos] == [len(PG_MIGRATIONS)] * 6
    await asyncio.gather(*(r.close() for r in repos))


@pytest.mark.postgres
async def test_serialize_makes_the_same_key_wait_and_others_not(pg_database: str) -> None:
    assert lock_key(("channel", 10)) == lock_key(("channel", 10)) != lock_key(("member", 10))
    assert lock_key(("channel", 10)) == -5935316142424423640  # the same in every release
    repo = PostgresRepository(pg_database, pool_size=3)
    await repo.open()
    taken = asyncio.Event()

    async def second(key: tuple[str, int]) -> None:
        async with repo.atomic() as tx:
            await tx.serialize(key)
            taken.set()

    async with repo.atomic() as tx:
        await tx.serialize(("channel", 10), ("member", 5))
        await asyncio.wait_for(second(("channel", 11)), 5)  # another channel goes ahead
        taken.clear()
        waiting = asyncio.create_task(second(("member", 5)))
        await asyncio.sleep(0.3)
        assert not taken.is_set()  # held until the first unit of work ends
    await asyncio.wait_for(waiting, 5)
    assert taken.is_set()
    await repo.close()


@pytest.mark.postgres
async def test_a_due_deadline_is_claimed_by_one_process(pg_database: str) -> None:
    mine, theirs = (PostgresRepository(pg_database, pool_size=2) for _ in range(2))
    await mine.open()
    await theirs.open()
    game = await mine.create_game(a_game(deadline=NOW))
    challenge = await mine.create_challenge(a_challenge(channel_id=2, expires_at=NOW))
    assert await mine.games_due(NOW) == [game]
    assert await mine.challenges_due(NOW) == [challenge]
    assert await theirs.games_due(NOW + 1) == [] and await theirs.challenges_due(NOW + 1) == []
    assert await theirs.next_deadline() == NOW + POSTGRES.claim_seconds  # no spinning meanwhile
    later = NOW + POSTGRES.claim_seconds  # the claimer died: the deadline is free again
    assert await theirs.games_due(later) == [game]
    moved = game.with_changes(moves=(4,), turn_deadline=later + 5)
    await theirs.save_game(moved, expected_ply=0)  # a move ends the claim with the deadline
    assert await mine.games_due(later + 5) == [moved]
    await mine.close()
    await theirs.close()


async def test_a_save_keeps_the_board_posted_again_since_the_game_was_read(repo) -> None:
    """/ttt board in one process moves the game to a new message while another process,
    holding the game as read before, times it out: the ending is stored without bringing
    the old message back, and the save says where the game is shown now."""
    game = await repo.create_game(a_game().with_changes(message_id=111))
    assert await repo.move_game_message(game.id, 111, 222)
    ended = game.with_changes(ending=Ending("timeout", "O"), turn_deadline=None,
                              finished_at=NOW + 61)  # fmt: skip
    saved = await repo.save_game(ended, expected_ply=0)
    assert saved.message_id == 222 and saved.ending == Ending("timeout", "O")
    stored = await repo.get_game(game.id)
    assert stored is not None and stored.message_id == 222 and not stored.running
