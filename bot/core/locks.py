"""Per-game serialization within one process, owned by one registry.

A click and the bot's reply to it, a resignation, a timeout: whatever changes one game
takes its lock, so they apply one after another and a double click sees the first
click's result. The stored ply (compare-and-set) is what keeps processes apart; these
locks only keep the order within one.
"""

from __future__ import annotations

import asyncio
import weakref


class LockRegistry:
    """One asyncio.Lock per game. A lock nobody holds or waits for is forgotten (weak
    values), so the registry does not grow with every game ever."""

    def __init__(self) -> None:
        self._games: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()

    def game(self, game_id: int) -> asyncio.Lock:
        lock = self._games.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._games[game_id] = lock
        return lock
