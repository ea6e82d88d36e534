"""The import contract: each layer imports only what it may, read from the source.

engine/            nothing of bot, no Discord, no database driver
bot/core/          no Discord, no HTTP client, no database driver, no storage or UI
bot/storage/       no Discord, no UI
bot/discord_ui/    never storage, no database driver
bot/web/           the Activity's web service: never storage, Discord's client or the chat UI
bot/i18n/          no core, storage or UI
bot/pictures/      draws from plain values: nothing else of the bot, no Discord, no database
SQL                only under bot/storage/ (imports of a driver, and SQL text)

and within engine/, no module imports itself through others: the search never reaches
the opening book or the tables, which are built by it.
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
    "bot/discord_ui": (*DRIVERS, "bot.storage", "bot.app", "bot.web"),
    "bot/web": ("discord", *DRIVERS, "bot.storage", "bot.discord_ui", "bot.app"),
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


def type_checking_only(node: ast.AST) -> bool:
    """``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``): imports for the type checker
    alone, never run."""
    return isinstance(node, ast.If) and ast.unparse(node.test) in (
        "TYPE_CHECKING", "typing.TYPE_CHECKING",
    )  # fmt: skip


def run_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement that can run: at the top, under ``try``/``if``, or inside a
    function (an import put there to dodge a circle still closes it), but not under
    ``if TYPE_CHECKING:``."""
    found: list[ast.Import | ast.ImportFrom] = []
    todo = [tree]
    while todo:
        for node in ast.iter_child_nodes(todo.pop()):
            if isinstance(node, ast.Import | ast.ImportFrom):
                found.append(node)
            elif not type_checking_only(node):
                todo.append(node)
    return found


def import_targets(source: str, module: str, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``source`` (module ``module``) imports, at the top or
    inside a function: ``from engine import book`` imports ``engine.book``, ``from engine
    import Board`` the package ``engine`` itself."""
    found: set[str] = set()
    for node in run_imports(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
            continue
        base = node.module or ""
        if node.level:
            parent = module.split(".")[: -node.level]
            base = ".".join([*parent, base] if base else parent)
        for alias in node.names:
            name = f"{base}.{alias.name}"
            if name in known:
                found.add(name)
            elif base in known:
                found.add(base)
    return found - {module}


def import_graph(*roots: str) -> dict[str, set[str]]:
    """Each module under ``roots`` (``engine``, ``bot``) and the modules of those roots
    it imports."""
    paths = {
        module.removesuffix(".__init__"): path
        for module, path in modules()
        if module.split(".")[0] in roots
    }
    # a package's own name is where its relative imports start: engine.__init__ is engine.x
    return {
        module: import_targets(
            path.read_text(encoding="utf-8"),
            f"{module}.x" if path.name == "__init__.py" else module,
            set(paths),
        )
        for module, path in paths.items()
    }


def engine_graph() -> dict[str, set[str]]:
    """Each engine module and the engine modules it imports."""
    return import_graph("engine")


def import_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of ``graph`` as the modules along it (the first repeated at the end), or
    [] when there is none."""
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> list[str]:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return []
        path.append(module)
        for target in sorted(graph.get(module, ())):
            cycle = visit(target)
            if cycle:
                return cycle
        path.pop()
        done.add(module)
        return []

    for module in sorted(graph):
        cycle = visit(module)
        if cycle:
            return cycle
    return []


def test_the_engine_imports_in_one_direction() -> None:
    """No engine module reaches itself through its imports, those inside functions
    included: the search is used by the book and the tables, never the reverse."""
    cycle = import_cycle(engine_graph())
    assert cycle == [], "engine import cycle: " + " -> ".join(cycle)


def test_no_module_imports_itself_through_others() -> None:
    """No module of bot/ or engine/ reaches itself through the imports that run, those
    inside functions included: an import moved into a function to dodge a circle still
    closes it. Only imports under ``if TYPE_CHECKING:`` are left out; the lazy imports of
    optional dependencies (asyncpg, prometheus_client) and of slow ones (discord.py after
    the settings, numpy) count too, and close no circle."""
    cycle = import_cycle(import_graph("bot", "engine"))
    assert cycle == [], "import cycle: " + " -> ".join(cycle)


SEARCH = ("engine.search", "engine.expectimax", "engine.exact")
TABLES = ("engine.book", "engine.sparse", "engine.known")


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module ``start`` imports, directly or through others."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for target in graph.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


@pytest.mark.parametrize("module", SEARCH)
def test_the_search_never_reaches_the_tables(module: str) -> None:
    """The direction the cycle test leaves open: the book is built by the search
    (expectimax ranks its moves), so the search may not consult the book or the tables;
    :mod:`engine.solver` chooses between them, above both."""
    reached = sorted(reachable(engine_graph(), module) & set(TABLES))
    assert reached == [], f"{module} imports {', '.join(reached)}"


def test_the_checker_sees_an_import_cycle() -> None:
    """The cycle test itself can fail: an import inside a function counts, a name that is
    no module counts as the package, one for the type checker alone does not, and a cycle
    through three modules is found."""
    engine = {"engine", "engine.book", "engine.search", "engine.board"}
    inside = "def f():\n    from engine import book, Board\n    import engine.board\n"
    assert import_targets(inside, "engine.search", engine) == {
        "engine", "engine.book", "engine.board",
    }  # fmt: skip
    typing_only = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import engine.book\n"
    assert import_targets(typing_only, "engine.search", engine) == set()
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert import_cycle(graph) == ["a", "b", "c", "a"]
    assert import_cycle({**graph, "c": {"d"}}) == []
    assert reachable(graph, "b") == {"a", "b", "c", "d"}
