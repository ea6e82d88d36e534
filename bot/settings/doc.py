"""The settings table written out: ``ttt-bot --help``, and the table of the docs'
settings page (``python -m bot.settings.doc`` writes it into docs/run/settings.md between
its two marker comments; ``--check`` only says whether the page is up to date).

Neither ever shows a setting's current value: only defaults, and a secret has none.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from bot.settings import default_of
from bot.settings.table import SECTIONS, Setting

PAGE = Path(__file__).resolve().parents[2] / "docs" / "run" / "settings.md"
BEGIN = ("<!-- settings table: written by `python -m bot.settings.doc` from "
         "bot/settings/table.py; edit the table, not this -->")  # fmt: skip
END = "<!-- end of the settings table -->"
WIDTH = 88


def shown_default(setting: Setting) -> str:
    """The default as a value (``300``), a text (``off``), or empty for none."""
    if isinstance(setting.shown, str):
        return setting.shown
    return setting.shown(default_of(setting))


def _is_value(setting: Setting) -> bool:
    return not isinstance(setting.shown, str)


def markdown() -> str:
    """The settings page's table: a heading and a table per section."""
    out: list[str] = []
    for section in SECTIONS:
        out += [f"## {section.title}", ""]
        if section.note:
            out += [section.note, ""]
        out += ["| setting | default | meaning |", "|---|---|---|"]
        for setting in section.settings:
            name = f"`{setting.name}`" + (" (secret)" if setting.secret else "")
            default = shown_default(setting)
            default = f"`{default}`" if default and _is_value(setting) else default or "—"
            out.append(f"| {name} | {default} | {setting.meaning} |")
        out.append("")
    return "\n".join(out)


def with_table(page: str) -> str:
    """``page`` with the table between its markers written afresh.

    Raises:
        ValueError: the page lacks a marker.
    """
    head, begin, rest = page.partition(BEGIN)
    _, end, tail = rest.partition(END)
    if not begin or not end:
        raise ValueError(f"the page has no {BEGIN!r} ... {END!r} markers")
    return f"{head}{BEGIN}\n\n{markdown()}\n{END}{tail}"


def _plain(text: str) -> str:
    return text.replace("`", "")


def help_text(dotenv: str | None) -> str:
    """What ``ttt-bot --help`` prints; ``dotenv`` is the .env file it would read."""
    found = f"the environment and {dotenv}" if dotenv else "the environment (no .env file)"
    intro = (
        "Runs ttt, a tic-tac-toe bot for Discord, until it is stopped (Ctrl-C or SIGTERM). "
        "It needs the bot's token, DISCORD_TOKEN (Developer Portal, Bot → Reset Token); "
        "every other setting has a default. Each setting is an environment variable or a "
        "line NAME=value in a .env file, in the folder the bot starts in or a parent "
        "(.env.example lists them all); an empty value means the default."
    )
    out = ["usage: ttt-bot [--help]", "", textwrap.fill(intro, WIDTH), "",
           f"Here the settings would come from {found}."]  # fmt: skip
    for section in SECTIONS:
        out += ["", f"{section.title}:"]
        if section.note:
            out.append(textwrap.fill(_plain(section.note), WIDTH, initial_indent="  ",
                                     subsequent_indent="  "))  # fmt: skip
        for setting in section.settings:
            default = shown_default(setting)
            label = ("required" if setting.required else
                     f"default {default}" if default else "unset by default")  # fmt: skip
            label += "; secret" if setting.secret else ""
            out.append(f"  {setting.name} ({label})")
            out.append(textwrap.fill(_plain(setting.meaning), WIDTH, initial_indent="      ",
                                     subsequent_indent="      "))  # fmt: skip
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    """Write the table into the page; with ``--check``, only say if it is out of date."""
    page = PAGE.read_text(encoding="utf-8")
    fresh = with_table(page)
    if argv == ["--check"]:
        if fresh != page:
            print(f"{PAGE} is out of date: run python -m bot.settings.doc", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
