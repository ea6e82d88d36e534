"""The image and the compose stack, run for real (``pytest -m docker``): see
``bench/docker_stack.py``. Skipped, saying why, where no Docker daemon answers; not part
of the default run (it builds an image and starts five containers: about a minute)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from docker_stack import GRACE, docker_missing, run_stack

pytestmark = [pytest.mark.docker, pytest.mark.postgres]


async def test_the_compose_stack_plays_heals_and_stops_cleanly() -> None:
    missing = docker_missing()
    if missing:
        pytest.skip(f"the compose stack needs Docker: {missing}")
    report = await run_stack()
    assert report.games_played == 4  # one against the bot per shard, one duel timed out
    assert set(report.health.values()) == {"healthy"} and len(report.health) == 4
    assert report.stop_exit_code == 0 and report.stop_seconds < GRACE
    assert report.compiled_search  # the build stage compiled ultimate's search
