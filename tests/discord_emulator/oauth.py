"""OAuth2 as an Activity uses it: the code a member's client hands the page
(``authorize``), its exchange at ``POST /oauth2/token`` and the Bearer token that then
reads ``GET /users/@me``.

The token route is not in Discord's OpenAPI spec; its form is checked here as Discord
documents it (topics/oauth2): ``application/x-www-form-urlencoded`` only, the client
authenticated by HTTP Basic or ``client_id``/``client_secret`` fields, and RFC 6749's
error bodies (``{"error": ..., "error_description": ...}``) instead of Discord's usual
``{"code", "message"}``.
"""

from __future__ import annotations

import base64
import binascii
import secrets
import string
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import ApiError
from .state import EmuUser

if TYPE_CHECKING:
    from .server import DiscordEmulator

CODE_LIFETIME = 10 * 60
"""Seconds an authorization code can be exchanged (Discord's: ten minutes)."""
ACCESS_TOKEN_LIFETIME = 7 * 24 * 3600
"""``expires_in`` of Discord's access tokens (604800 in its documented answer)."""
SCOPES = frozenset({
    "activities.read", "activities.write", "applications.builds.read",
    "applications.builds.upload", "applications.commands", "applications.commands.update",
    "applications.commands.permissions.update", "applications.entitlements",
    "applications.store.update", "bot", "connections", "dm_channels.read", "email", "gdm.join",
    "guilds", "guilds.join", "guilds.members.read", "identify", "identify.premium",
    "messages.read", "relationships.read", "role_connections.write", "rpc",
    "rpc.activities.write", "rpc.notifications.read", "rpc.voice.read", "rpc.voice.write",
    "voice", "webhook.incoming",
})  # fmt: skip
"""The scopes Discord documents; an unknown one is a typo the SDK's authorize refuses."""
_ALPHABET = string.ascii_letters + string.digits


class FormBody(dict[str, str]):
    """A request body sent as ``application/x-www-form-urlencoded`` (first value of each
    field), told apart from a JSON object so the token route can refuse JSON."""


@dataclass
class Grant:
    """What one code, access token or refresh token stands for."""

    user: EmuUser
    scopes: tuple[str, ...]
    expires: float
    """On the emulator's clock (``emu.now()``)."""
    redirect_uri: str | None = None


def _token() -> str:
    """Shaped like Discord's codes and tokens: 30 letters and digits."""
    return "".join(secrets.choice(_ALPHABET) for _ in range(30))


class OAuth:
    """The application's OAuth2 state: codes waiting to be exchanged, live tokens."""

    def __init__(self, emu: DiscordEmulator) -> None:
        self.emu = emu
        self.client_secret = secrets.token_urlsafe(24)
        self.redirect_uris: list[str] = []
        """The redirect URIs registered in the developer portal (none by default: an
        Activity's code comes from the SDK, not from a redirect)."""
        self.codes: dict[str, Grant] = {}
        self.access_tokens: dict[str, Grant] = {}
        self.refresh_tokens: dict[str, Grant] = {}

    def authorize(self, user: EmuUser, scopes: tuple[str, ...], redirect_uri: str | None) -> str:
        """A code for ``user``, as the client returns it to the SDK's ``authorize``.

        Raises:
            ValueError: an unknown user, a bot, no scope or an undocumented one, or a
                redirect URI the application did not register.
        """
        if self.emu.users.get(user.id) is not user or user.bot:
            raise ValueError(f"{user.name} is not a user of this emulator who can sign in")
        unknown = sorted(set(scopes) - SCOPES)
        if not scopes or unknown:
            raise ValueError(f"scopes must be documented OAuth2 scopes, not {unknown or 'none'}")
        if redirect_uri is not None and redirect_uri not in self.redirect_uris:
            raise ValueError(f"redirect_uri {redirect_uri!r} is not registered")
        code = _token()
        self.codes[code] = Grant(user, tuple(scopes), self.emu.now() + CODE_LIFETIME,
                                 redirect_uri)  # fmt: skip
        return code

    def bearer_user(self, authorization: str | None) -> Grant | None:
        """The grant of a live ``Bearer`` access token in an Authorization header."""
        if not authorization or not authorization.startswith("Bearer "):
            return None
        grant = self.access_tokens.get(authorization.removeprefix("Bearer "))
        return grant if grant is not None and grant.expires > self.emu.now() else None

    def token(self, body: Any, authorization: str | None) -> dict[str, Any]:
        """``POST /oauth2/token``: an access token for a code or a refresh token.

        Raises:
            ApiError: 401 ``invalid_client`` (no or wrong client credentials), 400
                ``unsupported_grant_type``, ``invalid_request`` (a field missing) or
                ``invalid_grant`` (a code or refresh token unknown, used or expired).
        """
        if not isinstance(body, FormBody):
            self.emu.violation("POST /oauth2/token: the body must be form-encoded, not JSON "
                               "(Discord reads no field of it)")  # fmt: skip
            body = FormBody()
        self._authenticate(body, authorization)
        kind = body.get("grant_type")
        if kind == "authorization_code":
            grant = self._redeem(self.codes, body, "code")
            # RFC 6749 4.1.3: the authorization's redirect URI again, or, for a code
            # asked without one (the SDK's), none or one the application registered
            sent = body.get("redirect_uri")
            if sent != grant.redirect_uri and (grant.redirect_uri is not None
                                               or sent not in self.redirect_uris):  # fmt: skip
                raise _oauth_error(400, "invalid_grant", 'Invalid "redirect_uri" in request.')
        elif kind == "refresh_token":
            grant = self._redeem(self.refresh_tokens, body, "refresh_token")
        else:
            raise _oauth_error(400, "unsupported_grant_type",
                               f"Grant type {kind} is not supported",
                               violation=f"POST /oauth2/token: grant_type {kind!r}")  # fmt: skip
        access, refresh = _token(), _token()
        now = self.emu.now()
        self.access_tokens[access] = Grant(grant.user, grant.scopes, now + ACCESS_TOKEN_LIFETIME)
        # Discord documents no lifetime for refresh tokens; single use is what matters here
        self.refresh_tokens[refresh] = Grant(grant.user, grant.scopes, float("inf"))
        return {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": ACCESS_TOKEN_LIFETIME,
            "refresh_token": refresh,
            "scope": " ".join(grant.scopes),
        }

    def _authenticate(self, body: FormBody, authorization: str | None) -> None:
        """The client's id and secret, from HTTP Basic or the form (Discord takes either)."""
        client_id, secret = body.get("client_id"), body.get("client_secret")
        if authorization and authorization.startswith("Basic "):
            try:
                decoded = base64.b64decode(authorization.removeprefix("Basic ")).decode()
            except (binascii.Error, UnicodeDecodeError):
                decoded = ""
            client_id, _, secret = decoded.partition(":")
        if client_id != str(self.emu.application_id) or secret != self.client_secret:
            raise _oauth_error(401, "invalid_client", None,
                               violation="POST /oauth2/token: wrong or missing client "
                               f"credentials (client_id {client_id!r})")  # fmt: skip

    def _redeem(self, store: dict[str, Grant], body: FormBody, field_: str) -> Grant:
        """Take a single-use code or refresh token out of ``store``."""
        value = body.get(field_)
        if not value:
            raise _oauth_error(400, "invalid_request", f'Missing "{field_}" in request.',
                               violation=f"POST /oauth2/token: no {field_}")  # fmt: skip
        grant = store.pop(value, None)
        if grant is None or grant.expires <= self.emu.now():
            # a forged, reused or expired code is the member's doing, not the app's
            raise _oauth_error(400, "invalid_grant", f'Invalid "{field_}" in request.')
        return grant


def user_for_bearer(grant: Grant) -> dict[str, Any]:
    """``GET /users/@me`` with a Bearer token: the user, with an email only under the
    ``email`` scope ("identify: /users/@me without email")."""
    user = grant.user
    data = user.to_dict() | {"mfa_enabled": False, "locale": user.locale, "premium_type": 0}
    if "email" in grant.scopes:
        data |= {"email": f"{user.name}@example.com", "verified": True}
    return data


def _oauth_error(
    status: int, error: str, description: str | None, *, violation: str | None = None
) -> ApiError:
    body = {"error": error}
    if description is not None:
        body["error_description"] = description
    return ApiError(status, 0, error, violation=violation, payload=body)


class OAuthActions:
    """Mixin of DiscordEmulator: what a member's client does when the Activity's SDK
    calls ``commands.authorize``."""

    oauth: OAuth

    def authorize(
        self, user: EmuUser, scopes: Iterable[str] = ("identify",), *,
        redirect_uri: str | None = None,
    ) -> str:  # fmt: skip
        """The code the client hands the SDK (single use, 10 minutes), to be exchanged
        at ``POST /oauth2/token``."""
        return self.oauth.authorize(user, tuple(scopes), redirect_uri)
