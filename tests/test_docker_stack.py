"""The image and the compose stacks, run for real (``pytest -m docker``): compose.yaml
(``bench/docker_stack.py``) and compose.http.yaml (``bench/docker_http_stack.py``).
Skipped, saying why, where no Docker daemon answers; not part of the default run (each
builds images and starts four or five containers: about a minute each)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from docker_http_stack import GRACE as HTTP_GRACE
from docker_http_stack import STOPPED, run_http_stack
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


async def test_the_http_compose_stack_answers_through_nginx_and_stops_cleanly() -> None:
    """compose.http.yaml: see ``bench/docker_http_stack.py``."""
    missing = docker_missing()
    if missing:
        pytest.skip(f"the HTTP compose stack needs Docker: {missing}")
    report = await run_http_stack()
    print("\n".join(report.lines()))
    # three games against the bot, the duel, one more game after the stop; each stored
    # finished, its board as the channel shows it (so each click applied once)
    assert report.games_played == report.games_stored == 5
    assert report.answered_before == {"ttt-http-1", "ttt-http-2", "ttt-http-3"}
    assert set(report.health.values()) == {"healthy"} and len(report.health) == 4
    assert set(report.ready.values()) == {"200"} and len(report.ready) == 3
    assert report.stop_exit_code == 0 and report.stop_seconds < HTTP_GRACE
    # after the stop: every click answered (200) by one of the two left, and nginx tried
    # the stopped one (refused) and passed the click on
    assert report.after_stop and {status for _, status in report.after_stop} == {"200"}
    assert all(addrs[-1] != STOPPED for addrs, _ in report.after_stop)
    assert any(STOPPED in addrs for addrs, _ in report.after_stop)
    assert report.worker_deaths == 0  # the engine's workers live under pid 1 too
    assert report.compiled_search
