"""The process's log: plain lines (coloured only on a terminal) or JSON lines.

discord.py's own ``setup_logging`` colours its output whenever it guesses Docker, which
fills log files with escape codes; this one asks the stream itself.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import TextIO

PLAIN = "%(asctime)s %(levelname)-8s %(name)s: %(message)s"
COLOURS = {"DEBUG": "\x1b[40;1m", "INFO": "\x1b[34;1m", "WARNING": "\x1b[33;1m",
           "ERROR": "\x1b[31m", "CRITICAL": "\x1b[41m"}  # fmt: skip
RESET = "\x1b[0m"


class _Colours(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        colour = COLOURS.get(record.levelname, "")
        return line.replace(record.levelname, f"{colour}{record.levelname}{RESET}", 1)


class JsonLines(logging.Formatter):
    """One JSON object a record: time (ISO 8601, UTC), level, logger, message, and the
    traceback when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


class _QuietLogin(logging.Filter):
    """Drops discord.py's 'logging in using static token': a rejected token must end the
    start with our one line, not a library line before it; a good one is announced by
    our own 'signed in as' line."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (
            record.name == "discord.client" and record.msg == "logging in using static token"
        )


def setup(level: str = "INFO", fmt: str = "text", stream: TextIO | None = None) -> None:
    """Send every log record at ``level`` and above to ``stream`` (stderr)."""
    stream = stream or sys.stderr
    handler = logging.StreamHandler(stream)
    if fmt == "json":
        handler.setFormatter(JsonLines())
    elif stream.isatty():
        handler.setFormatter(_Colours(PLAIN, "%Y-%m-%d %H:%M:%S"))
    else:
        handler.setFormatter(logging.Formatter(PLAIN, "%Y-%m-%d %H:%M:%S"))
    handler.addFilter(_QuietLogin())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(getattr(logging, level, logging.INFO))
