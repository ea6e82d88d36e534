"""Every user-facing string, from one catalog per language (``bot/locales/*.json``).

Discord tells each interaction the member's language (``interaction.locale``) and the
server's (``guild_locale``). ``text`` picks the catalog for that locale, falls back from
a regional locale to its language (es-ES → es) and then to English.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

LOCALES_DIR = Path(__file__).with_name("locales")
FALLBACK = "en"


@cache
def catalogs() -> dict[str, dict[str, str]]:
    """Every catalog by its file name (``en``, ``fr``, ``pt-BR``...)."""
    return {
        path.stem: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(LOCALES_DIR.glob("*.json"))
    }


def language_of(locale: object) -> str:
    """The catalog for a Discord locale (a ``discord.Locale`` or its string value)."""
    code = str(getattr(locale, "value", locale) or FALLBACK)
    known = catalogs()
    if code in known:
        return code
    base = code.split("-")[0]
    return base if base in known else FALLBACK


def text(key: str, locale: object = None, **params: object) -> str:
    """The text for ``key`` in ``locale``'s language with ``params`` filled in.

    Raises:
        KeyError: an unknown key (a bug: every key lives in the English catalog).
    """
    table = catalogs()[language_of(locale)]
    template = table.get(key) or catalogs()[FALLBACK][key]
    return template.format(**params)
