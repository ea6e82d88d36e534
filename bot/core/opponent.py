"""The bot as a player: which engine agent moves, and where the search runs.

3×3 runs on the event loop once its agent is warm (microseconds, less than a hop to a
thread costs); an agent's first 3×3 move, which builds its tables, on the engine thread.
Larger boards run in the engine's process pool, where a search may use its whole think
time without holding the event loop.
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import cast

from bot.core.variants import variant_of
from engine import (
    Agent,
    Board,
    EnginePool,
    IllegalMove,
    PoolClosed,
    UltimateBoard,
    choose_move_async,
    get_agent,
)

log = logging.getLogger(__name__)

MIN_WAIT = 0.05
"""Seconds a search someone waits on gets at least: a 4×4 move from warm tables."""

SMALL_BOARD_CELLS = 9
"""Boards this small are searched in this process: the answer takes microseconds once
the agent's tables are built."""


class BotOpponent:
    def __init__(
        self,
        *,
        think_time: float,
        pool: EnginePool | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.think_time = think_time
        self.pool = pool
        self.rng = rng or random.Random()
        self._agents: dict[str, Agent] = {}
        self._warm: set[str] = set()
        """Difficulties whose agent has moved once, on the engine thread: their tables are
        built, so their next 3×3 moves run inline."""

    async def move(
        self, board: Board | UltimateBoard, difficulty: str, *, within: float | None = None,
        game: int | None = None,
    ) -> int:  # fmt: skip
        """The cell the bot plays. A search past the think time, or past ``within``
        seconds when given (someone waits for an answer), falls back to a quick move
        (logged), so a game never waits on the engine. ``game`` (its id, once stored)
        lets the engine pool search it where its last search's tree is kept.

        Raises:
            ValueError: unknown difficulty. IllegalMove: the game is over.
        """
        think = self.think_time
        try:
            if within is None:
                return await self._search(board, difficulty, think, game)
            # the worker is given no longer than the caller waits, so it stops with it
            budget = min(think, max(MIN_WAIT, within))
            search = self._search(board, difficulty, budget, game)
            return await asyncio.wait_for(search, budget)
        except TimeoutError:
            log.warning("%s took longer than %.1f s; playing a quick move", difficulty,
                        think if within is None else min(think, within))  # fmt: skip
        except (ValueError, IllegalMove):
            raise  # a bug in the caller, not the engine's trouble
        except PoolClosed:  # the bot is stopping, and its workers with it
            log.info("the engine stopped during a %s search; playing a quick move", difficulty)
        except Exception:
            # the engine failed (a worker died twice in a row, say): the member's move is
            # stored already, so the bot must still answer it
            log.exception("the %s search failed; playing a quick move", difficulty)
        return await choose_move_async(board, "easy", seed=self.rng.getrandbits(64))

    async def reply_within(
        self, board: Board | UltimateBoard, difficulty: str, seconds: float, *,
        game: int | None = None,
    ) -> asyncio.Future[int]:  # fmt: skip
        """:meth:`move`, started and waited for up to ``seconds``: the future is done if
        the cell came in time. A warm agent on a small board chooses it here and now, in
        a future done at once: no task to schedule and no timer to wait on, on each click.
        """
        chosen = self._chosen_inline(board, difficulty)
        if chosen is not None:
            return chosen
        reply = asyncio.ensure_future(self.move(board, difficulty, game=game))
        await asyncio.wait({reply}, timeout=seconds)
        return reply

    def _chosen_inline(
        self, board: Board | UltimateBoard, difficulty: str
    ) -> asyncio.Future[int] | None:
        """What :meth:`move` comes to when :meth:`_search` runs the agent inline, as a
        done future; None when it would search elsewhere (or the agent failed: ``move``
        then tells of it and plays a quick move)."""
        big = board.cell_count > SMALL_BOARD_CELLS
        if (self.pool is not None and big) or difficulty not in self._warm:
            return None
        if not variant_of(board.variant).keeps_agents:  # no warm agent of its own
            return None
        chosen: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        try:  # a variant that keeps agents plays the classic agents' boards
            chosen.set_result(self._agents[difficulty].choose(cast(Board, board)))
        except (ValueError, IllegalMove) as exc:  # as move() lets them through
            chosen.set_exception(exc)
        except Exception:
            return None
        return chosen

    async def _search(
        self, board: Board | UltimateBoard, difficulty: str, think: float, game: int | None
    ) -> int:
        if self.pool is not None and board.cell_count > SMALL_BOARD_CELLS:
            seed = self.rng.getrandbits(64)
            return await self.pool.choose(
                board, difficulty, seed=seed, time_budget=think, game=game
            )
        if not variant_of(board.variant).keeps_agents:  # no pool (tests): one for this move
            seed = self.rng.getrandbits(64)
            return await choose_move_async(board, difficulty, seed=seed, time_budget=think)
        agent = self._agents.get(difficulty)
        if agent is None:
            agent = get_agent(
                difficulty, seed=self.rng.getrandbits(64), time_budget=self.think_time
            )
            self._agents[difficulty] = agent
        if difficulty in self._warm:  # a variant that keeps agents: the classic boards
            return agent.choose(cast(Board, board))
        cell = await choose_move_async(board, agent, time_budget=think)
        self._warm.add(difficulty)
        return cell
