"""Checks of the discord.py internals the bot leans on (update_answer.py, http_answers.py):
each is looked up and its parameters compared with what the bot passes, at start-up, so
a discord.py that changed one says so in a line instead of failing every click."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any

Used = tuple[str, Callable[[], Any], frozenset[str]]
"""A callable's name for the log, how to find it, and the parameters it is passed (by
name: a keyword-only or positional-or-keyword parameter of that name, or ``**kwargs``,
must take each)."""


def problems(used: Iterable[Used], slots: Iterable[tuple[type, str]] = ()) -> list[str]:
    """What this discord.py lacks of ``used`` and of the ``slots`` (a class and the name
    of one of its ``__slots__``): one line each, empty when all is there."""
    found = []
    for name, get, params in used:
        try:
            signature = inspect.signature(get())
        except Exception as exc:  # missing, or no longer a callable
            found.append(f"{name}: {type(exc).__name__}: {exc}")
            continue
        taken = signature.parameters
        kinds = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        # ``**kwargs`` takes any other keyword (Route's path parameters, webhook_id and
        # webhook_token, are passed so)
        anything = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in taken.values())
        lacking = sorted(
            p for p in params
            if not (p in taken and taken[p].kind in kinds) and not (anything and p not in taken)
        )  # fmt: skip
        if lacking:
            found.append(f"{name} takes no {', '.join(lacking)}")
    found += [
        f"{cls.__name__}.{slot} is gone"
        for cls, slot in slots
        if slot not in getattr(cls, "__slots__", ())
    ]
    return found
