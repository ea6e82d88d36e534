"""SQL for server settings and the bot's own state, written once for SQLite and
PostgreSQL (see :mod:`bot.storage.sql`)."""

from __future__ import annotations

import json

from bot.storage.sql import Db


async def guild_overrides(db: Db, guild_id: int) -> dict[str, object]:
    value = await db.value("SELECT overrides FROM guild_settings WHERE guild_id = :guild",
                           {"guild": guild_id})  # fmt: skip
    return dict(json.loads(value)) if value is not None else {}


async def set_guild_overrides(db: Db, guild_id: int, overrides: dict[str, object]) -> None:
    await db.run(
        "INSERT INTO guild_settings (guild_id, overrides) VALUES (:guild, :overrides)"
        " ON CONFLICT (guild_id) DO UPDATE SET overrides = excluded.overrides",
        {"guild": guild_id, "overrides": json.dumps(overrides, sort_keys=True)},
    )


async def get_meta(db: Db, key: str) -> str | None:
    value = await db.value("SELECT value FROM meta WHERE key = :key", {"key": key})
    return None if value is None else str(value)


async def set_meta(db: Db, key: str, value: str) -> None:
    await db.run(
        "INSERT INTO meta (key, value) VALUES (:key, :value)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        {"key": key, "value": value},
    )
