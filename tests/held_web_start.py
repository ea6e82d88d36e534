"""``python -m bot`` whose web service, once listening, holds its start until the process
is stopped: for tests/test_bot_stops.py, which sends SIGTERM while the web service starts.

Its start makes no request to Discord the emulator could hold (it binds a port and
registers a listener), so the hold is here, in the test's process image rather than in
the bot: the real start runs, says so on stderr, then waits for an event nothing sets
(never a sleep), as a start slowed by a busy database would.
"""

from __future__ import annotations

import asyncio
import sys

from bot import __main__
from bot.web import service

HELD = "held-web-start: the web service listens; its start is held"


def hold_the_web_start() -> None:
    """From now on the web service's start, once listening, holds until cancelled."""
    start = service.WebService.start

    async def held_start(self: service.WebService) -> None:
        await start(self)
        print(HELD, file=sys.stderr, flush=True)
        await asyncio.Event().wait()  # until the stop cancels the start

    service.WebService.start = held_start  # type: ignore[method-assign]


if __name__ == "__main__":  # only in the child: the tests' own process imports HELD
    hold_the_web_start()
    sys.exit(__main__.main())
