"""The page's own session: who signed in, from which Activity instance and channel.

Signed with a key derived from the client secret, so every process serving pages reads
the sessions of the others, and nothing is stored. A session is a bearer token: it names
the member and the channel the instance runs in, and lasts :data:`LIFETIME`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

from bot.web.errors import WebRefusal

LIFETIME = 3600.0


@dataclass(frozen=True, slots=True)
class Session:
    user_id: int
    name: str
    avatar: str | None
    channel_id: int
    guild_id: int | None
    instance_id: str
    locale: str
    expires: float


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Sessions:
    def __init__(self, secret: str, clock: Callable[[], float] = time.time) -> None:
        self._key = hashlib.sha256(b"ttt activity sessions\0" + secret.encode()).digest()
        self.clock = clock

    def issue(
        self, *, user_id: int, name: str, avatar: str | None, channel_id: int,
        guild_id: int | None, instance_id: str, locale: str,
    ) -> str:  # fmt: skip
        session = Session(user_id, name, avatar, channel_id, guild_id, instance_id, locale,
                          self.clock() + LIFETIME)  # fmt: skip
        payload = _b64(json.dumps(asdict(session), separators=(",", ":")).encode())
        return f"{payload}.{self._sign(payload)}"

    def read(self, token: str | None) -> Session:
        """Raises: WebRefusal: 401, a token that is missing, forged or expired."""
        if not token or token.count(".") != 1 or not token.isascii():
            raise WebRefusal(401, "bad_session", "sign in first: no valid session was sent")
        payload, signature = token.split(".")
        if not hmac.compare_digest(self._sign(payload), signature):
            raise WebRefusal(401, "bad_session", "this session was not issued here")
        try:
            session = Session(**json.loads(_unb64(payload)))
        except (ValueError, TypeError):
            raise WebRefusal(401, "bad_session", "this session cannot be read") from None
        if session.expires <= self.clock():
            raise WebRefusal(401, "bad_session", "this session has expired: sign in again")
        return session

    def _sign(self, payload: str) -> str:
        return _b64(hmac.new(self._key, payload.encode(), hashlib.sha256).digest())
