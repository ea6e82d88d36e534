"""The regression check of what a click costs: ttt's CPU per interaction against a minimal
discord.py bot's (bench/minimal_bot.py: the same game from memory, one UPDATE_MESSAGE a
click), both as processes of their own under the same load in the same run. A ratio, not
a time: the machine's speed cancels out. ``bench/bot_latency.py`` prints the figures."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from bot_latency import measure

LIMIT = 2.0
"""Fail above this many times the minimal bot's CPU per interaction (measured: 1.04-1.10
with bench/bot_latency.py's 50 games, 2026-11-26)."""


async def test_a_click_costs_at_most_twice_what_a_minimal_discord_py_bot_pays() -> None:
    load = {"games": 10, "moves": 1000, "seed": 3, "validate": False, "think": 0.0,
            "duration": 2.5}  # fmt: skip
    minimal = await measure("minimal", **load)
    ttt = await measure("ttt", **load)
    for run in (minimal, ttt):
        assert run.interactions > 150, f"{run.bot}: only {run.interactions} interactions"
        assert run.tally.unanswered == 0 and not run.tally.problems, run.tally.problems
        assert run.tally.finished_games > 15  # whole games, moves by both sides
    ratio = ttt.cpu_ms() / minimal.cpu_ms()
    assert ratio <= LIMIT, (
        f"ttt used {ttt.cpu_ms():.3f} ms of CPU per interaction, {ratio:.2f}× the minimal "
        f"bot's {minimal.cpu_ms():.3f} ms (limit {LIMIT}×)"
    )
