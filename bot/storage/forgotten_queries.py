"""What forget-me keeps of a member's puzzles: only that they tried them, as a keyed
hash of the member and the puzzle with no link back (SQLite's migration 19, PostgreSQL's
16; why a keyed hash: docs/play/records.md, "Forget me").

The key is a per-installation secret, made once (by whichever process first needs it)
and kept in ``meta``. Without it the hashes cannot be matched by hashing every member id
against the public set of puzzles; with it (the whole database) one member can be tested
against every puzzle, which is what "tried before" needs anyway.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from bot.storage.sql import Db

SECRET_KEY = "puzzle_forget_secret"
"""The ``meta`` key of the installation's secret (64 hex digits)."""


async def _secret(db: Db) -> bytes:
    value = await db.value("SELECT value FROM meta WHERE key = :key", {"key": SECRET_KEY})
    if value is None:
        # Two processes may both make one: the first stored is the one both read back.
        await db.run(
            "INSERT INTO meta (key, value) VALUES (:key, :value) ON CONFLICT (key) DO NOTHING",
            {"key": SECRET_KEY, "value": secrets.token_hex(32)},
        )
        value = await db.value("SELECT value FROM meta WHERE key = :key", {"key": SECRET_KEY})
    return bytes.fromhex(str(value))


def tried_hash(secret: bytes, user_id: int, puzzle_id: str) -> str:
    """The stored form of "``user_id`` tried ``puzzle_id``": HMAC-SHA256, in hex."""
    return hmac.new(secret, f"{user_id}:{puzzle_id}".encode(), hashlib.sha256).hexdigest()


async def remember_tried(db: Db, user_id: int) -> None:
    """Keep the hash of each set puzzle the member has an attempt at (own-game puzzles
    go with the games they came from). Run in forget-me's transaction, before the
    attempts are deleted."""
    rows = await db.rows(
        "SELECT DISTINCT puzzle_id FROM puzzle_attempts WHERE user_id = :user"
        " AND puzzle_id NOT LIKE 'own-%'",
        {"user": user_id},
    )
    if not rows:
        return
    secret = await _secret(db)
    for row in rows:
        await db.run(
            "INSERT INTO puzzle_forgotten (tried) VALUES (:tried) ON CONFLICT (tried) DO NOTHING",
            {"tried": tried_hash(secret, user_id, str(row["puzzle_id"]))},
        )


async def tried_before_forgetting(db: Db, user_id: int, puzzle_id: str) -> bool:
    """True when the member tried the puzzle before a forget-me."""
    if await db.value("SELECT 1 FROM puzzle_forgotten LIMIT 1") is None:
        return False  # nobody was forgotten: no secret to make
    secret = await _secret(db)
    found = await db.value(
        "SELECT 1 FROM puzzle_forgotten WHERE tried = :tried",
        {"tried": tried_hash(secret, user_id, puzzle_id)},
    )
    return found is not None
