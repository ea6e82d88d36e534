"""The core's services built together, each handed what it uses: one place that says
which service shares what (the store, the policies, the clock, the game locks, the
timekeeper's alarm), for the composition root and the core tests alike."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from bot.core.alarm import DeadlineAlarm
from bot.core.deadlines import Deadlines
from bot.core.engine_gate import EngineGate
from bot.core.game_messages import GameMessages
from bot.core.lobby import Lobby
from bot.core.locks import LockRegistry
from bot.core.my_games import MyGames
from bot.core.opponent import BotOpponent
from bot.core.policies import PolicyBook
from bot.core.policy import CORRESPONDENCE_GAMES_PER_MEMBER
from bot.core.puzzles.engine_calls import PuzzleEngine
from bot.core.puzzles.service import PuzzleService
from bot.core.reminders.service import Reminders
from bot.core.repository import Repository
from bot.core.service import Clock, GameService
from bot.core.tournaments.service import TournamentService
from bot.core.variants import Advisor, advise_here
from engine import EnginePool


@dataclass(frozen=True, slots=True)
class Core:
    games: GameService
    lobby: Lobby
    messages: GameMessages
    deadlines: Deadlines
    tournaments: TournamentService
    puzzles: PuzzleService
    my_games: MyGames
    """A member's games and challenges everywhere (``/ttt games``, the live board's list)."""
    reminders: Reminders


def build_core(
    repo: Repository, policies: PolicyBook, opponent: BotOpponent, *, bot_user_id: int,
    clock: Clock = time.time, rng: random.Random | None = None, patience: float = 1.0,
    advise: Advisor = advise_here, live_board: bool = False, gate: EngineGate | None = None,
    puzzle_pool: EnginePool | None = None,
    correspondence_limit: int = CORRESPONDENCE_GAMES_PER_MEMBER,
) -> Core:  # fmt: skip
    """The core's services. ``puzzle_pool`` judges puzzle moves past their stored line
    (default: the bot's moves' pool, ``opponent.pool``); ``correspondence_limit``: the
    running correspondence games a member may play at once."""
    rng = rng or random.Random()
    locks, alarm = LockRegistry(), DeadlineAlarm()
    games = GameService(
        repo, policies, opponent, bot_user_id=bot_user_id, clock=clock, rng=rng,
        patience=patience, advise=advise, locks=locks, alarm=alarm, live_board=live_board,
        gate=gate,
    )  # fmt: skip
    lobby = Lobby(games, repo=repo, policies=policies, clock=clock, alarm=alarm, rng=rng,
                  correspondence_limit=correspondence_limit)  # fmt: skip
    return Core(
        games,
        lobby,
        GameMessages(games, repo=repo, policies=policies, locks=locks),
        Deadlines(games, lobby, repo=repo, clock=clock, alarm=alarm),
        TournamentService(repo, policies, clock=clock, rng=rng, alarm=alarm),
        PuzzleService(
            repo, policies, clock=clock, rng=rng, engine=PuzzleEngine(puzzle_pool or opponent.pool)
        ),
        MyGames(repo, games, clock),
        Reminders(repo, games, clock=clock),
    )
