"""``python -m bot`` / ``ttt-bot``: read settings, open the database, run the bot.

``--help`` (or ``-h``) prints what the bot needs and every setting, from the settings
table, and exits: it reads no .env and no token. Start-up problems, an unknown option
among them, end the process with one line on stderr and status 2 (or another non-zero
one). The settings are read before anything heavy is imported (:mod:`bot.runner` does
the rest), so a wrong one is told at once.
"""

from __future__ import annotations

import sys

from dotenv import find_dotenv, load_dotenv

from bot.settings import Settings, SettingsError

HELP = ("-h", "--help")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    for arg in args:
        if arg not in HELP:
            what = "option" if arg.startswith("-") else "argument"
            print(f"ttt-bot: unknown {what} {arg} (try --help)", file=sys.stderr)
            return 2
    # the .env of the directory the bot is started from (and its parents), not of the
    # directory bot/ was installed in
    dotenv = find_dotenv(usecwd=True)
    if args:
        from bot.settings.doc import help_text  # only when asked

        print(help_text(dotenv or None), end="")
        return 0
    load_dotenv(dotenv)
    try:
        settings = Settings.from_env()
    except SettingsError as exc:
        print(f"ttt-bot: {exc}", file=sys.stderr)
        return 2
    source = f"the environment and {dotenv}" if dotenv else "the environment (no .env file)"
    from bot.runner import serve  # discord.py and the bot: only once the settings hold

    return serve(settings, source)


if __name__ == "__main__":
    sys.exit(main())
