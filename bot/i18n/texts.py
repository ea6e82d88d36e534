"""Every user-facing string, from one catalog per language (``bot/locales/*.json``).

Discord tells each interaction the member's language (``interaction.locale``) and the
server's (``guild_locale``). ``text`` picks the catalog for that locale, falls back from
a regional locale to its language (es-ES → es) and then to English.
"""

from __future__ import annotations

import json
import re
import string
from functools import cache, lru_cache
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
    return _language(str(getattr(locale, "value", locale) or FALLBACK))


@lru_cache(maxsize=64)  # a few locales, asked for by every text of every answer
def _language(code: str) -> str:
    known = catalogs()
    if code in known:
        return code
    base = code.split("-")[0]
    return base if base in known else FALLBACK


PLURAL = re.compile(r"\{(\w+), plural, one \{([^{}]*)\} other \{([^{}]*)\}\}")
"""``{count, plural, one {# game} other {# games}}``: ICU's plural form, the two
categories these languages use; ``#`` is the number."""
ZERO_IS_ONE = ("fr", "pt-BR")
"""Languages where 0 takes the singular (CLDR: fr and pt, ``i = 0,1``)."""


def plural_category(language: str, count: int) -> str:
    if count == 1 or (count == 0 and language in ZERO_IS_ONE):
        return "one"
    return "other"


def placeholders(template: str) -> set[str]:
    """The parameter names a template uses, plural blocks included."""
    names = {match[0] for match in PLURAL.findall(template)}
    plain = PLURAL.sub("", template)
    return names | {name for _, name, _, _ in string.Formatter().parse(plain) if name}


def with_keys(params: dict[str, object], locale: object) -> dict[str, object]:
    """``params`` with each ``<name>_key`` (a catalog key travelling in a refusal) turned
    into ``<name>``, its text in ``locale``'s language."""
    return {
        name.removesuffix("_key"): text(str(value), locale) if name.endswith("_key") else value
        for name, value in params.items()
    }


def text(key: str, locale: object = None, **params: object) -> str:
    """The text for ``key`` in ``locale``'s language with ``params`` filled in.

    Raises:
        KeyError: an unknown key (a bug: every key lives in the English catalog).
    """
    language = language_of(locale)
    every = catalogs()
    template = every[language].get(key)
    if template is None:
        template, language = every[FALLBACK][key], FALLBACK
    if ", plural, " in template:  # few do: the others need no search for one
        template = PLURAL.sub(lambda match: _plural(match, language, params), template)
    return template.format(**params)


def _plural(match: re.Match[str], language: str, params: dict[str, object]) -> str:
    count = int(str(params[match[1]]))
    one, other = match[2], match[3]
    return (one if plural_category(language, count) == "one" else other).replace("#", str(count))
