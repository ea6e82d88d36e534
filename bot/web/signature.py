"""Discord's signature on an interaction it POSTs: Ed25519 over the timestamp header and
the raw body, checked with the application's public key before anything is parsed.

PyNaCl (libsodium) does the cryptography: it is the library discord.py itself takes for
voice (its ``voice`` extra), small, and maintained; nothing here is hand-rolled but the
framing Discord documents (``X-Signature-Timestamp`` + body, signed).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

MAX_SKEW = 300.0
"""Seconds a request's timestamp may lie from the clock, either way: a request signed
longer ago (or later) is a replay or a forgery, whatever its signature says."""


class Verifier:
    """Checks a request's signature with one application's public key."""

    def __init__(
        self, public_key: str, *, clock: Callable[[], float] = time.time,
        max_skew: float = MAX_SKEW,
    ) -> None:  # fmt: skip
        self._key = VerifyKey(bytes.fromhex(public_key))  # settings checked it
        self._clock = clock
        self._max_skew = max_skew

    def refusal(self, signature: str | None, timestamp: str | None, body: bytes) -> str | None:
        """Why the request is refused, or None when Discord signed it, lately. The
        timestamp's age is checked first: a stale request costs no verification."""
        if not signature or not timestamp:
            return "the signature headers are missing"
        if not (timestamp.isascii() and timestamp.isdigit()):  # whole seconds, as Discord sends
            return "the timestamp is not a number of seconds"
        if abs(self._clock() - int(timestamp)) > self._max_skew:
            return "the timestamp is too old or in the future"
        try:
            signed = bytes.fromhex(signature)
        except ValueError:
            return "the signature is not hex"
        try:
            self._key.verify(timestamp.encode() + body, signed)
        except (BadSignatureError, ValueError):  # ValueError: not 64 bytes
            return "the signature does not match"
        return None
