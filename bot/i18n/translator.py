"""Command names, descriptions and choices in each member's language, from the catalogs.

Every command string is a ``locale_str`` whose ``key`` names a catalog entry; Discord
gets the translations at sync time and shows each member their own language.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.i18n.texts import FALLBACK, catalogs, language_of


class CatalogTranslator(app_commands.Translator):
    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        catalog_key = string.extras.get("key")
        language = language_of(locale)
        if catalog_key is None or language == FALLBACK:
            return None  # English is what the command says already
        template = catalogs()[language].get(catalog_key)
        if template is None:
            return None
        return template.format(**string.extras.get("params", {}))
