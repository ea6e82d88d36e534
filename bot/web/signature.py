"""Discord's signature on an interaction it POSTs: Ed25519 over the timestamp header and
the raw body, checked with the application's public key before anything is parsed.

PyNaCl (libsodium) does the cryptography: it is the library discord.py itself takes for
voice (its ``voice`` extra), small, and maintained; nothing here is hand-rolled but the
framing Discord documents (``X-Signature-Timestamp`` + body, signed).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

log = logging.getLogger(__name__)

MAX_SKEW = 300.0
"""Seconds a request's timestamp may lie from the clock, either way: a request signed
longer ago (or later) is a replay or a forgery, whatever its signature says, or this
machine's clock is wrong (then told in the log)."""


DOUBT_EVERY = 60.0
"""Seconds between two warnings that the clock may be wrong."""


class Verifier:
    """Checks a request's signature with one application's public key."""

    def __init__(
        self, public_key: str, *, clock: Callable[[], float] = time.time,
        max_skew: float = MAX_SKEW,
    ) -> None:  # fmt: skip
        self._key = VerifyKey(bytes.fromhex(public_key))  # settings checked it
        self._clock = clock
        self._max_skew = max_skew
        self._doubted_at = -DOUBT_EVERY

    def refusal(self, signature: str | None, timestamp: str | None, body: bytes) -> str | None:
        """Why the request is refused, or None when Discord signed it, lately. The
        timestamp's age is checked first; a stale request is verified only to tell a
        clock that is wrong (Discord did sign it) from a forgery."""
        if not signature or not timestamp:
            return "the signature headers are missing"
        if not (timestamp.isascii() and timestamp.isdigit() and len(timestamp) <= 12):
            return "the timestamp is not a number of seconds"  # whole ones, as Discord sends
        now = self._clock()
        if abs(now - int(timestamp)) > self._max_skew:
            if self._signed(signature, timestamp, body):
                self._clock_doubted(int(timestamp) - now, now)
            return "the timestamp is too old or in the future"
        if not self._signed(signature, timestamp, body):
            return "the signature does not match"
        return None

    def _signed(self, signature: str, timestamp: str, body: bytes) -> bool:
        try:
            self._key.verify(timestamp.encode() + body, bytes.fromhex(signature))
        except (BadSignatureError, ValueError):  # ValueError: not hex, or not 64 bytes
            return False
        return True

    def _clock_doubted(self, skew: float, now: float) -> None:
        """A stale request Discord did sign: a replay, or this machine's clock is off, and
        then every interaction is refused and Discord soon removes the endpoint's URL.
        Said to the owner, once a minute at most (a replayed flood costs a verification
        each, no more log lines)."""
        if now - self._doubted_at < DOUBT_EVERY:
            return
        self._doubted_at = now
        log.warning(
            "refused an interaction Discord signed with a timestamp %+.0f s from this "
            "machine's clock (more than %.0f s either way): if this "
            "repeats, this machine's clock is wrong (check its time sync), and Discord will "
            "remove the Interactions Endpoint URL", skew, self._max_skew,
        )  # fmt: skip
