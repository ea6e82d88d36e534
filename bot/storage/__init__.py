"""Persistence: the only package with SQL in it. It implements the repository interface
the core declares (:mod:`bot.core.repository`); the composition root picks the backend:
SQLite embedded, PostgreSQL (``asyncpg``, the ``postgres`` extra) for several processes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.storage.migrations import MIGRATIONS
from bot.storage.sqlite import SqliteRepository, SqliteTransaction

if TYPE_CHECKING:
    from bot.storage.postgres import PostgresRepository, PostgresTransaction

__all__ = [
    "MIGRATIONS",
    "PostgresRepository",
    "PostgresTransaction",
    "SqliteRepository",
    "SqliteTransaction",
]


def __getattr__(name: str) -> object:
    """The PostgreSQL names, imported on first use: asyncpg is an optional dependency, and
    a bot on SQLite runs without it."""
    if name in ("PostgresRepository", "PostgresTransaction"):
        try:
            from bot.storage import postgres
        except ModuleNotFoundError as exc:
            raise ImportError(
                f"PostgreSQL storage needs asyncpg ({exc}): pip install 'ttt[postgres]'"
            ) from exc
        return getattr(postgres, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
