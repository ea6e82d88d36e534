"""A request the service will not honour, for a reason the member should read."""

from __future__ import annotations


class Refusal(Exception):
    """Refused; nothing was changed. ``key`` names the text in the catalog, ``params``
    fill it in (a blocking game or challenge travels as ``game`` / ``challenge``, for the
    interface to link to)."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params = params
