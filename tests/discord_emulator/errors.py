"""Discord-shaped API errors."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """Turned into an HTTP response {"code": code, "message": message}; optionally a violation."""

    def __init__(
        self,
        status: int,
        code: int,
        message: str,
        *,
        violation: str | None = None,
        errors: dict[str, Any] | None = None,
        payload: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.violation = violation
        self.errors = errors
        self.payload = payload
        """A body of another shape, sent instead (OAuth2's ``{"error": ...}``)."""

    def to_json(self) -> dict[str, Any]:
        if self.payload is not None:
            return dict(self.payload)
        data: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.errors:
            data["errors"] = self.errors
        return data


def unknown_message() -> ApiError:
    return ApiError(404, 10008, "Unknown Message")


def unknown_webhook() -> ApiError:
    return ApiError(404, 10015, "Unknown Webhook")


def unknown_channel() -> ApiError:
    return ApiError(404, 10003, "Unknown Channel")


def missing_access() -> ApiError:
    """What Discord answers a bot on a channel or server it is not in (a DM between
    users, a server that reaches the app only through a member's own install)."""
    return ApiError(403, 50001, "Missing Access")


def missing_permissions() -> ApiError:
    """The bot lacks a permission the action needs in that channel."""
    return ApiError(403, 50013, "Missing Permissions")


def cannot_message_user() -> ApiError:
    """What Discord answers a message the bot posts in its DM with a user it cannot reach:
    no server shared, DMs from the server's members closed, or the bot blocked."""
    return ApiError(403, 50007, "Cannot send messages to this user")
