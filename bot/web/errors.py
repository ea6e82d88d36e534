"""A request the web service refuses: a 4xx with a code and a reason for people."""

from __future__ import annotations

from typing import Any


class WebRefusal(Exception):
    def __init__(self, status: int, code: str, reason: str, **extra: Any) -> None:
        super().__init__(reason)
        self.status = status
        self.code = code
        self.reason = reason
        self.extra = extra

    def body(self) -> dict[str, Any]:
        return {"error": self.code, "reason": self.reason, **self.extra}
