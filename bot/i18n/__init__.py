"""Every user-facing string: one JSON catalog per language, and the command translator."""

from __future__ import annotations

from bot.i18n.texts import FALLBACK, catalogs, language_of, text, with_keys

__all__ = ["FALLBACK", "catalogs", "language_of", "text", "with_keys"]
