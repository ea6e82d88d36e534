"""Per-channel and per-game serialization, owned by one registry."""

from __future__ import annotations

import asyncio
import weakref


class LockRegistry:
    """Hands out one asyncio.Lock per channel and per game. A lock nobody holds or waits
    for is forgotten (weak values), so the registry does not grow with every game ever."""

    def __init__(self) -> None:
        self._channels: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        self._games: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()

    @staticmethod
    def _get(table: weakref.WeakValueDictionary[int, asyncio.Lock], key: int) -> asyncio.Lock:
        lock = table.get(key)
        if lock is None:
            lock = asyncio.Lock()
            table[key] = lock
        return lock

    def channel(self, channel_id: int) -> asyncio.Lock:
        return self._get(self._channels, channel_id)

    def game(self, game_id: int) -> asyncio.Lock:
        return self._get(self._games, game_id)
