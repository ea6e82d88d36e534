"""``python -m bot`` / ``ttt-bot``: read settings, open the database, run the bot.

Start-up problems end the process with one line on stderr and a non-zero status. The
settings are read before anything heavy is imported (:mod:`bot.runner` does the rest),
so a wrong one is told at once.
"""

from __future__ import annotations

import sys

from dotenv import find_dotenv, load_dotenv

from bot.settings import Settings, SettingsError


def main() -> int:
    # the .env of the directory the bot is started from (and its parents), not of the
    # directory bot/ was installed in
    dotenv = find_dotenv(usecwd=True)
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
