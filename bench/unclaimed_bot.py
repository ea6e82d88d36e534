"""ttt with no claim of the interactions it gets over HTTP: the yardstick bot_latency.py
measures the claim's cost per click against (``--bots ttt-http,ttt-http-unclaimed``).

    python bench/unclaimed_bot.py   # the settings of ``python -m bot``

Never to be deployed: a copy of a request Discord signed, sent again within its five
minutes, would be answered again (see bot/web/replays.py). Everything else is ttt's.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.__main__ import main
from bot.web.replays import Replays


async def _always_first(self: Replays, interaction_id: int) -> bool:
    return True  # no claim: no database statement


Replays.first = _always_first  # type: ignore[method-assign]

if __name__ == "__main__":
    sys.exit(main())
