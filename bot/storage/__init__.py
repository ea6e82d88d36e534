"""Persistence: the only package with SQL in it. It implements the repository interface
the core declares (:mod:`bot.core.repository`); the composition root picks the backend."""

from __future__ import annotations

from bot.storage.migrations import MIGRATIONS
from bot.storage.sqlite import SqliteRepository, SqliteTransaction

__all__ = ["MIGRATIONS", "SqliteRepository", "SqliteTransaction"]
