"""The page's own session: who signed in, from which Activity instance and channel.

Signed with a key derived from the client secret, so every process serving pages reads
the sessions of the others, and nothing is stored. A session is a bearer token: it names
the member and the channel the instance runs in, and lasts :data:`LIFETIME` (the page
signs in again, silently, on a 401).

:class:`Gate` is the one read of a session for every handler (and the live socket's
first message): the token's signature and time, then the member's not-before stamp in
the database (forget-me and a ban set it, in any process), and for what changes state
the member's presence in the instance (kept :data:`~bot.web.instances.RUNNING_FOR`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass

from bot.i18n import text
from bot.web.errors import WebRefusal
from bot.web.instances import Instances

log = logging.getLogger(__name__)
LIFETIME = 900.0
"""Seconds a session lasts: a member who left the Activity or was banned holds a token
this long at most (and their intents are refused sooner, by the presence check)."""


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
    issued: float
    """When it was issued, on the sessions' clock (wall time: every process's, and the
    not-before stamps', so a stamp set by another process compares)."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(encoded: str) -> bytes:
    return base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))


class Sessions:
    def __init__(self, secret: str, clock: Callable[[], float] = time.time) -> None:
        self._key = hashlib.sha256(b"ttt activity sessions\0" + secret.encode()).digest()
        self.clock = clock

    def issue(
        self, *, user_id: int, name: str, avatar: str | None, channel_id: int,
        guild_id: int | None, instance_id: str, locale: str,
    ) -> str:  # fmt: skip
        now = self.clock()
        session = Session(user_id, name, avatar, channel_id, guild_id, instance_id, locale,
                          now + LIFETIME, now)  # fmt: skip
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


NotBefore = Callable[[int], Awaitable[float | None]]
"""A member's not-before stamp, read from the database (None: never set)."""


class Gate:
    """The one read of a session (see the module's doc)."""

    def __init__(self, sessions: Sessions, not_before: NotBefore, instances: Instances) -> None:
        self.sessions = sessions
        self.not_before = not_before
        self.instances = instances
        self.revoked: list[Callable[[int | None], None]] = []
        """Called with a member's id when their sessions were revoked, by any process
        (the live pages close theirs); with None when such news may have been missed
        (the database's notifications were down): every session should be read again."""

    def heard(self, payload: str) -> None:
        """A :data:`~bot.core.repository.SESSIONS_TOPIC` notification (wired by
        ``bot/web/wiring.py``)."""
        member = int(payload) if payload.isdigit() else None
        for callback in self.revoked:
            try:
                callback(member)
            except Exception:  # one listener's fault must not keep the others from it
                log.exception("a listener of revoked sessions failed")

    async def read(self, token: str | None, *, present: bool = False) -> Session:
        """The session ``token`` names, if it still holds; with ``present``, only while
        its member is in its Activity instance (for every intent that changes state).

        Raises:
            WebRefusal: 401 ``bad_session``, a token that is missing, forged, expired or
                issued before the member's sessions were revoked; 403
                ``not_in_instance`` (``present``), the member left the instance or it
                ended.
            Exception: the database did not answer (as any route's read of it).
        """
        session = self.sessions.read(token)
        stamp = await self.not_before(session.user_id)
        if stamp is not None and session.issued <= stamp:
            raise WebRefusal(401, "bad_session", "this session was ended: sign in again")
        if present:
            await self.present(session)
        return session

    async def present(self, session: Session) -> None:
        """Raises: WebRefusal: 403 ``not_in_instance``, the member is no longer in the
        session's instance (as kept, read again once when it does not list them), or it
        is no longer running."""
        refused = WebRefusal(403, "not_in_instance", text("web.left", session.locale))
        try:
            instance = await self.instances.read(session.instance_id, vouched=True,
                                                 again_for=session.user_id)  # fmt: skip
        except WebRefusal as error:
            if error.code == "not_in_instance":
                raise refused from None
            # Discord did not answer: the member was in it when signing in (at most a
            # session's life ago) and a hiccup of Discord's must not stop their games
            log.info("presence not checked for instance %s (%s)", session.instance_id,
                     error.reason)  # fmt: skip
            return
        if str(session.user_id) not in {str(u) for u in instance.get("users", ())}:
            raise refused
