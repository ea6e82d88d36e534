"""Persistence: the only package with SQL in it."""

from __future__ import annotations

from bot.storage.migrations import MIGRATIONS
from bot.storage.repository import Conflict, DatabaseError, GameRepository

__all__ = ["MIGRATIONS", "Conflict", "DatabaseError", "GameRepository"]
