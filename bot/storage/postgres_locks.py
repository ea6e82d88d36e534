"""Advisory lock keys: PostgreSQL's named locks take a 64-bit integer."""

from __future__ import annotations

import hashlib


def lock_key(key: tuple[str, int]) -> int:
    """A stable signed 64-bit advisory lock key for ``("channel", id)`` and the like: the
    same in every process and every release (``hash()`` is salted per process)."""
    digest = hashlib.blake2b(f"ttt:{key[0]}:{key[1]}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)
