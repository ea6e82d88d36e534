"""The page's texts as they travel: catalog texts without Discord's markdown, marks cut
apart from the words (the page draws them as its board does: an emoji would be an empty
box without a colour emoji font), and each text twice, as letters and in parts."""

from __future__ import annotations

from typing import Any

CUT = "\x00"
"""Around a name or a mark in a status line being cut into parts (no catalog text has it)."""


def plain(line: str) -> str:
    """A catalog text without Discord's markdown (the page styles it itself)."""
    return line.replace("**", "")


MARK_CUT = {mark: f"{CUT}m{mark}{CUT}" for mark in ("X", "O")}
"""The marks as a text is cut for :func:`parts_of` (passed as a catalog text's ``mark``)."""


def parts_of(line: str, names: dict[str, str] | None = None) -> list[dict[str, str]]:
    """A line with :data:`MARK_CUT` marks (and names as ``CUT n<mark> CUT``) in parts."""
    parts: list[dict[str, str]] = []
    for i, piece in enumerate(line.split(CUT)):
        if i % 2 == 0:
            if piece:
                parts.append({"text": piece})
        elif piece[0] == "n" and names is not None:
            parts.append({"name": names[piece[1]]})
        else:
            parts.append({"mark": piece[1]})
    return parts


def letters(line: str) -> str:
    """A line with :data:`MARK_CUT` marks as plain text: each mark its letter."""
    return "".join(piece[1:] if i % 2 else piece for i, piece in enumerate(line.split(CUT)))


def texts(lines: list[str]) -> dict[str, Any]:
    """Lines (with :data:`MARK_CUT` marks) as a coaching text: ``text`` with the marks as
    letters, ``parts`` with the marks apart."""
    line = plain("\n".join(lines))
    return {"text": letters(line), "parts": parts_of(line)}
