"""The import contract: each layer imports only what it may, read from the source.

engine/            nothing of bot, no Discord, no database driver
bot/core/          no Discord, no HTTP client, no database driver, no storage or UI
bot/storage/       no Discord, no UI
bot/discord_ui/    never storage, no database driver
bot/i18n/          no core, storage or UI
bot/pictures/      draws from plain values: nothing else of the bot, no Discord, no database
SQL                only under bot/storage/ (imports of a driver, and SQL text)
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DRIVERS = ("sqlite3", "asyncpg", "psycopg", "psycopg2", "aiosqlite")
DISCORD = ("discord", "aiohttp")
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "engine": ("bot", *DISCORD, *DRIVERS),
    "bot/core": (*DISCORD, *DRIVERS, "bot.storage", "bot.discord_ui", "bot.app", "bot.i18n",
                 "bot.settings"),
    "bot/storage": (*DISCORD, "bot.discord_ui", "bot.app", "bot.i18n"),
    "bot/discord_ui": (*DRIVERS, "bot.storage", "bot.app"),
    "bot/i18n": (*DRIVERS, "bot.core", "bot.storage", "bot.discord_ui", "bot.app"),
    "bot/pictures": (*DISCORD, *DRIVERS, "bot.core", "bot.storage", "bot.discord_ui", "bot.app",
                     "bot.i18n"),
}  # fmt: skip
SQL = re.compile(r"\b(SELECT\s.+\sFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|"
                 r"CREATE\s+(TABLE|INDEX))\b", re.IGNORECASE | re.DOTALL)  # fmt: skip


def imported_modules(source: str, module: str) -> set[str]:
    """Every module ``source`` imports (relative imports resolved against ``module``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = module.split(".")[: -node.level]
                base = ".".join([*parent, base] if base else parent)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def leaks(source: str, module: str, forbidden: tuple[str, ...]) -> list[str]:
    return sorted(
        name
        for name in imported_modules(source, module)
        if any(name == f or name.startswith(f + ".") for f in forbidden)
    )


def sql_strings(source: str) -> list[str]:
    return [
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.search(node.value)
    ]


def modules() -> list[tuple[str, Path]]:
    return [
        (".".join(path.relative_to(ROOT).with_suffix("").parts), path)
        for folder in ("engine", "bot")
        for path in sorted((ROOT / folder).rglob("*.py"))
    ]


@pytest.mark.parametrize(("module", "path"), modules(), ids=[m for m, _ in modules()])
def test_the_layers_hold(module: str, path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    folder = path.relative_to(ROOT).parent.as_posix()
    for layer, forbidden in FORBIDDEN.items():
        if folder == layer or folder.startswith(layer + "/"):
            assert leaks(source, module, forbidden) == [], f"{module} imports across its layer"
    if not folder.startswith("bot/storage"):
        assert leaks(source, module, DRIVERS) == [], f"{module} uses a database driver"
        assert sql_strings(source) == [], f"{module} holds SQL"


def test_the_checker_sees_a_leak() -> None:
    """The contract test itself can fail: a core module importing discord, a relative
    import of storage, and SQL in a string are all caught."""
    leaky = "import discord\nfrom ..storage import sqlite\nQ = 'SELECT id FROM games'\n"
    assert leaks(leaky, "bot.core.service", FORBIDDEN["bot/core"]) == [
        "bot.storage", "bot.storage.sqlite", "discord",
    ]  # fmt: skip
    assert sql_strings(leaky) == ["SELECT id FROM games"]
    assert leaks("from bot.core import models\n", "bot.core.x", FORBIDDEN["bot/core"]) == []
