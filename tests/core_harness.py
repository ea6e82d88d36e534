"""The core without Discord: the game service over a temporary SQLite file or a fresh
PostgreSQL database (every core test runs on both: ``[sqlite]`` and ``[postgres]`` in its
name), with an injected clock and seeded randomness, so a rule that involves time is
tested in milliseconds instead of by sleeping."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.core.deadlines import Deadlines
from bot.core.game_messages import GameMessages
from bot.core.lobby import Lobby
from bot.core.my_games import MyGames
from bot.core.opponent import BotOpponent
from bot.core.policies import PolicyBook
from bot.core.policy import ServerPolicy
from bot.core.puzzles.service import PuzzleService
from bot.core.records import RecordsService
from bot.core.refusals import Refusal
from bot.core.reminders.service import Reminders
from bot.core.repository import Repository
from bot.core.service import GameService
from bot.core.tournaments.service import TournamentService
from bot.core.variants import Advisor, advise_here
from bot.core.wiring import build_core
from bot.storage import SqliteRepository

BOT = 999
GUILD = 1
CHANNEL = 10


async def refusal_key(call: Awaitable[object]) -> str:
    """The catalog key of the Refusal that awaiting ``call`` raises (fails if none)."""
    with pytest.raises(Refusal) as info:
        await call
    return info.value.key


def independent_elo(ra: float, rb: float, score_a: float) -> tuple[float, float]:
    """The Elo update written out again, independently of bot.core.rating (K = 32): the
    new ratings of A and B after A scored ``score_a``."""
    expected_a = 1 / (1 + 10 ** ((rb - ra) / 400))
    delta = 32 * (score_a - expected_a)
    return ra + delta, rb - delta


class FakeClock:
    """Time that moves only when a test says so."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Core:
    repo: Repository
    games: GameService
    lobby: Lobby
    deadlines: Deadlines
    records: RecordsService
    clock: FakeClock
    messages: GameMessages
    tournaments: TournamentService
    puzzles: PuzzleService
    my_games: MyGames
    reminders: Reminders


def open_repo(where: Path | str, pool_size: int = 4) -> Repository:
    """A repository (not yet open) for a SQLite file path or a ``postgresql://`` DSN."""
    if isinstance(where, str) and where.startswith("postgresql://"):
        from bot.storage import PostgresRepository  # asyncpg only where it is used

        return PostgresRepository(where, pool_size=pool_size)
    return SqliteRepository(where)


async def open_core(
    where: Path | str, clock: FakeClock, policy: ServerPolicy | None = None, seed: int = 0,
    patience: float = 1.0, advise: Advisor = advise_here,
) -> Core:  # fmt: skip
    """A core over the database at ``where``, a SQLite path or a PostgreSQL DSN (opened,
    migrated); close ``.repo`` after."""
    repo = open_repo(where)
    await repo.open()
    core = build_core(
        repo,
        PolicyBook(repo, policy or ServerPolicy()),
        BotOpponent(think_time=2.0, rng=random.Random(seed)),
        bot_user_id=BOT,
        clock=clock,
        rng=random.Random(seed),
        patience=patience,
        advise=advise,
    )
    return Core(repo, core.games, core.lobby, core.deadlines, RecordsService(repo, BOT), clock,
                core.messages, core.tournaments, core.puzzles, core.my_games,
                core.reminders)  # fmt: skip


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """Where a test's cores keep their data: a SQLite file, or a PostgreSQL database of
    its own (skipped, with a notice, where no PostgreSQL server can be started)."""
    if request.param == "postgres":
        return str(request.getfixturevalue("pg_database"))
    return tmp_path / "ttt.sqlite3"


@pytest.fixture
async def make_core(database: Path | str) -> AsyncIterator[Callable[..., object]]:
    """``await make_core(policy=..., path=...)``: a core over the test's database (or the
    SQLite file at ``path``); all are closed at teardown."""
    opened: list[Core] = []

    async def make(
        policy: ServerPolicy | None = None, *, path: Path | None = None,
        clock: FakeClock | None = None, seed: int = 0, patience: float = 1.0,
        advise: Advisor = advise_here,
    ) -> Core:  # fmt: skip
        core = await open_core(
            path or database, clock or FakeClock(), policy, seed, patience, advise
        )
        opened.append(core)
        return core

    yield make
    for core in opened:
        await core.repo.close()


@pytest.fixture
async def core(make_core: Callable[..., object]) -> Core:
    """A core with the default policy."""
    return await make_core()  # type: ignore[no-any-return, operator]


async def member_game(core: Core, x: int, o: int, channel: int = CHANNEL) -> int:
    """A running member game with ``x`` to move first; its id."""
    challenge = await core.lobby.challenge(
        guild_id=GUILD, channel_id=channel, user_id=x, opponent_id=o, first="me"
    )
    update = await core.lobby.accept(challenge.id, o, message_id=None)
    return update.game.id


async def play(core: Core, game_id: int, *moves: tuple[int, int]) -> None:
    """Play ``(user, cell)`` moves in order."""
    for user, cell in moves:
        game = await core.repo.get_game(game_id)
        assert game is not None
        await core.games.play_turn(game_id, game.ply, cell, user)
