"""pytest fixtures: `emulator` (started, violation check at teardown) and `openapi_spec_path`."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from .server import DiscordEmulator
from .validation import default_spec_path, spec_missing_notice, warn_spec_missing

_spec_missing: list[Path] = []


def _ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(scope="session")
def openapi_spec_path() -> Path | None:
    """Path of Discord's OpenAPI spec, or None (validation skipped, visibly) if absent.

    With CI=true an absent spec is an error.
    """
    path = default_spec_path()
    if path.is_file():
        return path
    if _ci():
        raise RuntimeError(spec_missing_notice(path) + " - refusing to run without it on CI")
    if path not in _spec_missing:
        _spec_missing.append(path)
    warn_spec_missing(path)
    return None


@pytest.fixture
async def emulator(openapi_spec_path: Path | None) -> AsyncIterator[DiscordEmulator]:
    """A started DiscordEmulator; teardown fails the test if violations were recorded."""
    emu = DiscordEmulator(spec_path=openapi_spec_path, validate=openapi_spec_path is not None)
    await emu.start()
    try:
        yield emu
    finally:
        await emu.stop()
    if emu.violations:
        lines = "\n".join(f"  - {v}" for v in emu.violations)
        pytest.fail(
            f"Discord emulator recorded {len(emu.violations)} violation(s):\n{lines}\n"
            "(if a test provokes one on purpose, assert it and then call emu.violations.clear())",
            pytrace=False,
        )


@pytest.fixture(params=["gateway", "http"])
def transport(request: pytest.FixtureRequest, emulator: DiscordEmulator) -> str:
    """A test that takes this runs twice: interactions over the gateway, then POSTed to
    the bot's endpoint (``running_bot`` starts it with TTT_GATEWAY=off and a public key)."""
    emulator.transport = request.param
    return str(request.param)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: Any) -> None:
    path = default_spec_path()
    if _spec_missing or not path.is_file():
        terminalreporter.write_sep("=", "discord emulator", yellow=True)
        terminalreporter.write_line(spec_missing_notice(path), yellow=True)
