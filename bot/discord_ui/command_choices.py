"""The /ttt commands' choices and localized names: each a catalog key (see
``bot.i18n.translator``), so Discord shows each member the options in their language."""

from __future__ import annotations

from discord import app_commands
from discord.app_commands import locale_str

from bot.core.models import PACES, VARIANTS, Variant
from bot.core.policy import DIFFICULTIES, EMOJI_SETS, LANGUAGES, SIZES
from bot.core.reminders.models import MODES
from bot.core.tournaments.models import FORMATS
from bot.i18n import text


def L(catalog_key: str, **params: object) -> locale_str:
    """The English text of a catalog key, carrying the key for the translator."""
    return locale_str(text(catalog_key, **params), key=catalog_key, params=params)


def name(word: str) -> locale_str:
    return locale_str(word, key=f"name.{word}")


FIRST_CHOICES: list[app_commands.Choice[str]] = [
    app_commands.Choice(name=L(f"choice.first.{value}"), value=value)
    for value in ("random", "me", "opponent")
]
DIFFICULTY_CHOICES: list[app_commands.Choice[str]] = [
    app_commands.Choice(name=L(f"choice.difficulty.{level}"), value=level) for level in DIFFICULTIES
]
EMOJI_CHOICES: list[app_commands.Choice[str]] = [
    app_commands.Choice(name=L(f"choice.emoji.{style}"), value=style) for style in EMOJI_SETS
]
LANGUAGE_CHOICES: list[app_commands.Choice[str]] = [
    app_commands.Choice(name=L(f"choice.language.{code}"), value=code)
    for code in ("server", *LANGUAGES)
]
SIZE_CHOICES: list[app_commands.Choice[int]] = [
    app_commands.Choice(name=L(f"choice.size.{size}"), value=size) for size in SIZES
]
FORMAT_CHOICES: list[app_commands.Choice[str]] = [
    app_commands.Choice(name=L(f"choice.format.{f}"), value=f) for f in FORMATS
]
BEST_OF_CHOICES: list[app_commands.Choice[int]] = [
    app_commands.Choice(name=L(f"choice.best_of.{n}"), value=n) for n in (1, 3)
]
GAME_CHOICES: list[app_commands.Choice[str]] = [
    app_commands.Choice(name=L(f"choice.game.{variant}"), value=variant) for variant in VARIANTS
]
"""What a game or a tournament plays, or whose records: the classic boards or ultimate."""
PACE_CHOICES: list[app_commands.Choice[int]] = [
    app_commands.Choice(name=L("choice.pace.live"), value=0),
    *(app_commands.Choice(name=L(f"choice.pace.{days}"), value=days) for days in PACES),
]
"""A game's pace: live (0: the server's turn timeout), or days a move (correspondence)."""
NOTIFY_CHOICES: list[app_commands.Choice[str]] = [
    app_commands.Choice(name=L(f"choice.notify.{mode}"), value=mode) for mode in MODES
]
LEADERBOARD_CHOICES = [*GAME_CHOICES, app_commands.Choice(name=L("choice.game.puzzles"),
                                                          value="puzzles")]  # fmt: skip
"""A leaderboard's game: the games', or the puzzles' (one puzzle rating a member)."""
PUZZLE_MODES: list[app_commands.Choice[str]] = [
    app_commands.Choice(name=L(f"choice.puzzle_mode.{mode}"), value=mode)
    for mode in ("daily", "training", "own")
]
PUZZLE_BOARDS: list[app_commands.Choice[str]] = [
    app_commands.Choice(name=L(f"choice.puzzle_board.{kind}"), value=kind)
    for kind in ("3x3", "4x4", "5x5", "ultimate")
]


def chosen_variant(choice: app_commands.Choice[str] | None) -> Variant:
    """The game a ``game`` option chose (the classic boards when left out)."""
    return next((v for v in VARIANTS if choice is not None and choice.value == v), "classic")
