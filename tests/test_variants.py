"""A variant is a game, not a branch (STYLE.md rule 15): each layer keeps one registry of
the games the bot plays, every registry covers the same games, and no module outside a
variant's own modules asks which game it runs (a test of the variant's name, or of the
board's or hint's type). A game of each variant, played to its end, is drawn by the chat
and the page through their registries alone: a new variant gets these checks for free.
"""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path
from typing import get_args

import pytest

from bot.core import rules
from bot.core.models import VARIANTS, GameUpdate, Variant
from bot.core.variants import GAME_VARIANTS, variant_of
from bot.discord_ui import custom_ids, render_game
from bot.discord_ui.renderers import RENDERERS
from bot.web.boards import BOARDS
from bot.web.game_json import game_json

ROOT = Path(__file__).resolve().parents[1]
VARIANT_MODULES = {
    "bot/core/variants/__init__.py", "bot/core/variants/protocol.py",
    "bot/core/variants/classic.py", "bot/core/variants/ultimate.py",
    "bot/discord_ui/renderers.py", "bot/discord_ui/render_classic.py",
    "bot/discord_ui/render_ultimate.py",
    "bot/web/boards.py", "bot/web/classic_json.py", "bot/web/ultimate_json.py",
}  # fmt: skip
"""The registries and each variant's own modules: the only places that know a game by
its name or its board's type."""
BRANCHES = re.compile(
    r"""variant\s*[!=]=\s*["']"""  # variant == "ultimate", setup.variant != "classic"
    r"""|["'](?:classic|ultimate)["']\s*[!=]=\s*\w*\.?variant"""  # "ultimate" == variant
    r"""|isinstance\([^)]*\b(?:UltimateBoard|Board|EngineHint|Hint)\b"""  # a type as variant
)


def branches(root: Path) -> list[str]:
    """``file:line: text`` of every test of a game's variant outside the variant modules."""
    found = []
    for path in sorted((root / "bot").rglob("*.py")):
        name = path.relative_to(root).as_posix()
        if name in VARIANT_MODULES:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if BRANCHES.search(line):
                found.append(f"{name}:{number}: {line.strip()}")
    return found


def test_every_layer_registers_exactly_the_games_the_core_plays() -> None:
    assert set(VARIANTS) == set(get_args(Variant)) == {"classic", "ultimate"}
    assert set(GAME_VARIANTS) == set(VARIANTS)
    assert set(RENDERERS) == set(VARIANTS)
    assert set(BOARDS) == set(VARIANTS)
    for name, variant in GAME_VARIANTS.items():
        assert variant.name == name


def test_no_module_outside_the_variants_asks_which_game_it_runs() -> None:
    assert branches(ROOT) == []


def test_the_branch_search_finds_a_branch(tmp_path: Path) -> None:
    """The search above is not blind: each way the bot used to ask is found."""
    module = tmp_path / "bot" / "core" / "somewhere.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        'if game.variant == "ultimate":\n'
        "    pass\n"
        "size_ok = setup.variant != 'classic'\n"
        "if isinstance(game.board, UltimateBoard):\n"
        "    pass\n"
        "if isinstance(hint, EngineHint):\n"
        "    pass\n"
        "green = won and isinstance(board, Board)\n"
        'board = "size" if variant in VARIANTS else None\n'
    )
    assert [line.split(":")[1] for line in branches(tmp_path)] == ["1", "3", "4", "6", "8"]


def imports_of(module: str) -> set[str]:
    tree = ast.parse((ROOT / module).read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize("module", ["render_classic", "render_ultimate", "render_common"])
def test_no_renderer_imports_another_or_the_dispatch(module: str) -> None:
    """The chat renderers build on :mod:`render_common` alone: no import circle."""
    imported = imports_of(f"bot/discord_ui/{module}.py")
    others = {"render_classic", "render_ultimate", "render_game", "renderers"} - {module}
    assert not {f"bot.discord_ui.{other}" for other in others} & imported


def played_to_the_end(variant: Variant, seed: int) -> list[GameUpdate]:
    """A game between members with random legal moves, as an update at every position."""
    rng = random.Random(seed)
    game = rules.new_game(guild_id=1, channel_id=2, size=3, player_x=10, player_o=20, now=0.0,
                          variant=variant).with_changes(id=7)  # fmt: skip
    updates = [GameUpdate(game)]
    while game.running:
        game = rules.advance(game, rng.choice(game.board.legal_moves()), 1.0, 60.0)
        updates.append(GameUpdate(game))
    return updates


@pytest.mark.parametrize("variant", VARIANTS)
async def test_a_game_of_each_variant_is_drawn_by_its_registered_renderers(
    variant: Variant,
) -> None:
    async def names(member: int) -> tuple[str, str | None]:
        return f"member {member}", None

    for update in played_to_the_end(variant, seed=len(variant)):
        game = update.game
        content, view = render_game.game_message(update, "en")
        shown = content if content is not None else str(view.to_components())
        assert render_game.grid(game).split("\n")[0] in shown
        ids = re.findall(r"ttt:[^'\"]+", str(view.to_components()))
        assert ids and all(len(i) < 100 for i in ids)
        if game.running and variant_of(variant).board_choice(game.board) is None:
            playable = {custom_ids.cell(game.id, game.ply, c) for c in game.board.legal_moves()}
            assert playable & set(ids)  # a square the mover may play is a button
        page = await game_json(update, viewer=10, locale="en", names=names)
        assert page["variant"] == variant
        assert len(page["cells"]) == game.board.cell_count
        legal = {i for i, cell in enumerate(page["cells"]) if cell["legal"]}
        assert legal == (set(game.board.legal_moves()) if game.running else set())
