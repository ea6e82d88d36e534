"""What ``/ttt help`` says: the rules of the server it is asked in, then where each
command works, in messages of at most 2,000 characters each."""

from __future__ import annotations

from bot.core.policy import ServerPolicy
from bot.i18n import text


def help_messages(rules: ServerPolicy, locale: object, *, dm: bool, guest: bool) -> list[str]:
    """The help's messages in order: the first (the answer), then the follow-ups."""
    default = text(f"choice.difficulty.{rules.default_difficulty}", locale)
    timeouts = {"challenge": int(rules.challenge_timeout), "turn": int(rules.turn_timeout)}
    message = text("help", locale, default=default, **timeouts)
    more = [] if dm else ["help.open"]
    more += ["help.hint"] if rules.hints else []
    # what works here, then where each command works
    more += ["help.dm"] if dm else ["help.guest"] if guest else ["help.moderation"]
    more += ["help.where"]
    message += "".join("\n\n" + text(key, locale) for key in more)
    # more messages (one holds 2,000 characters): ultimate and tournaments, puzzles
    second = ["help.ultimate"] if dm or guest else ["help.ultimate", "help.tournament"]
    rest = [second, ["help.puzzle"]] if rules.puzzles else [second]
    return [message, *("\n\n".join(text(key, locale) for key in keys) for keys in rest)]
