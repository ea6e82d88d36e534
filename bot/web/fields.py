"""The fields of a request to the Activity's API, read strictly: each of the type it
must have (JSON's ``true``, ``3.0`` or ``"3"`` are no whole number) and among the values
it may take, or the request is refused with a 400 that names the field."""

from __future__ import annotations

import json
import re
from typing import Any

from aiohttp import web

from bot.web.errors import WebRefusal

WHOLE = range(2**31)
"""A ply or a cell: a whole number, none so large that the store could not hold it."""
CODE = re.compile(r"[!-~]{1,512}")
"""A sign-in code as Discord makes them (letters and digits): printable ASCII, short."""


async def json_object(request: web.Request) -> dict[str, Any]:
    """The JSON object sent.

    Raises:
        WebRefusal: 400 for anything but a JSON object; 413 past the size limit.
    """
    try:
        body = json.loads(await request.read() or b"{}")
    except web.HTTPRequestEntityTooLarge:
        raise WebRefusal(413, "too_large", "the body is too large") from None
    except (ValueError, UnicodeDecodeError):
        raise WebRefusal(400, "bad_json", "the body is not JSON") from None
    except RecursionError:  # the parser's own limit: some thousand nested [ or {
        raise WebRefusal(400, "bad_json", "the body is nested too deeply") from None
    if not isinstance(body, dict):
        raise WebRefusal(400, "bad_json", "the body is not a JSON object")
    return body


def is_id(raw: str) -> bool:
    """Digits that fit the store's 64-bit ids (a longer number is no id of ours)."""
    return raw.isascii() and raw.isdigit() and len(raw) < 20 and int(raw) < 2**63


def int_field(
    body: dict[str, Any], name: str, allowed: range | tuple[int, ...] = WHOLE,
    default: int | None = None,
) -> int:  # fmt: skip
    """``body[name]``, a whole number among ``allowed`` (``default`` when left out, if
    there is one). JSON has one kind of number, and Python reads ``true`` as 1 and keeps
    ``3.0 == 3``: only an int is one, never a bool, a float (``3.0``, ``1e400``) or a string.

    Raises:
        WebRefusal: 400, saying what the field must be.
    """
    value = body.get(name, default)
    if type(value) is not int or value not in allowed:
        raise WebRefusal(400, "bad_request", f"{name} is {_what(allowed)}")
    return value


def str_field(
    body: dict[str, Any], name: str, allowed: tuple[str, ...] | re.Pattern[str],
    default: str | None = None, *, reason: str | None = None,
) -> str:  # fmt: skip
    """``body[name]``, a string among ``allowed`` or matching it whole (``default`` when
    left out, if there is one).

    Raises:
        WebRefusal: 400, with ``reason`` or saying what the field must be.
    """
    value = body.get(name, default)
    if isinstance(value, str) and (
        value in allowed if isinstance(allowed, tuple) else allowed.fullmatch(value)
    ):
        return value
    raise WebRefusal(400, "bad_request", reason or f"{name} is {_what(allowed)}")


def _what(allowed: range | tuple[object, ...] | re.Pattern[str]) -> str:
    if isinstance(allowed, range):
        return f"a whole number from {allowed.start} to {allowed.stop - 1}"
    if isinstance(allowed, tuple):
        return f"one of {', '.join(map(str, allowed))}"
    return f"text of the form {allowed.pattern}"
