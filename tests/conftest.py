"""Every test carries the marker of the layer it exercises, so a maintainer can run what a
change needs:

- ``core``: the engine, the core and storage without Discord (milliseconds each;
  PostgreSQL ones also carry ``postgres``);
- ``emulator``: the bot's real discord.py client against the local Discord emulator;
- ``browser``: the Activity's page in headless Chromium, framed by the test Discord
  client (``tests/activity_frame/``); a module marks itself, and each of its tests is
  also ``slow`` (a browser per test), so neither quick tier runs them;
- ``slow``: tests that start processes (bots, engine workers, several shards), play
  hundreds of games, check the engine against an independent solver, or wait for a
  timer (a turn timeout, an expiry): seconds each. Whole modules are listed below;
  single tests carry ``@pytest.mark.slow`` with the reason.

``pytest -m core`` after a rule or query change, ``pytest -m "not slow"`` before a
commit, ``pytest`` (all of them, as CI does) before a merge.
"""

from __future__ import annotations

import pytest

pytest_plugins = [
    "discord_emulator.fixtures", "core_harness", "pg_server", "activity_frame.fixtures",
    "activity_stub",
]  # fmt: skip

SLOW_MODULES = frozenset({
    "test_agents",  # the levels play hundreds of games against each other
    "test_async_and_cli",  # the engine's command line, in a process
    "test_big_boards",  # hundreds of 4×4 and 5×5 games
    "test_bot_restart",  # bots started, killed and started again
    "test_bot_click_cost",  # ttt and a minimal bot, each a process under load
    "test_bot_faketime",  # bot processes whose clock libfaketime moves, restarted
    "test_bot_database_outage",  # PostgreSQL out of reach for seconds
    "test_bot_startup",  # a bot process per start-up error
    "test_census",  # every 3×3 position against the reference
    "test_cluster",  # three bot processes sharing PostgreSQL
    "test_docker_stack",  # the image built, five containers (only with -m docker)
    "test_engine_pool",  # engine worker processes killed
    "test_exact_agents",  # 5×5 games against the exact adversary
    "test_exact_reference",  # 5×5 positions against the independent solver
    "test_exact_sparse",  # the sparse table against its children and the solver
    "test_flood",  # 48 channels clicking at once
    "test_resilience",  # killed workers, dropped gateways, Discord's 5xx retried
    "test_fuzz",  # hostile interactions for half a minute
    "test_storage_races",  # several processes racing on one database
    "test_bot_ultimate_processes",  # a bot process killed mid-game, another started
})  # fmt: skip
EMULATOR_PREFIXES = ("test_bot_", "test_emulator", "test_cluster", "test_flood", "test_fuzz",
                     "test_health", "test_resilience", "test_docker", "test_web",
                     "test_activity")  # fmt: skip


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    asked = config.getoption("-m") or ""
    for item in items:
        if item.get_closest_marker("docker") and "docker" not in asked:
            item.add_marker(
                pytest.mark.skip(reason="builds images and containers: pytest -m docker")
            )
        if item.get_closest_marker("exhaustive") and "exhaustive" not in asked:
            item.add_marker(pytest.mark.skip(reason="minutes of CPU: pytest -m exhaustive"))
        module = item.module.__name__.rsplit(".", 1)[-1] if item.module else ""
        if item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.slow)
            continue
        layer = "emulator" if module.startswith(EMULATOR_PREFIXES) else "core"
        item.add_marker(getattr(pytest.mark, layer))
        if module in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
