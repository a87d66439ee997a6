"""Fixtures with real parts: every test gets its own NORU_HOME."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.wire import MemoryClient, StdioProcess

# Real X servers (Xvfb + openbox) and Tk windows, shared by the capture and app tests.
pytest_plugins = ["tests.xserver"]

IN_CI = os.environ.get("CI") == "true"


# Figures tests measure (inputs fuzzed, kills survived, concurrent clients),
# printed at the end of the run so CI's log carries them.
FIGURES: list[str] = []


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if FIGURES:
        terminalreporter.section("Noru figures")
        for line in FIGURES:
            terminalreporter.write_line(line)


def require(condition: bool, why: str) -> None:
    """Skip when a real part is missing on a developer machine; fail under CI."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"missing real part under CI=true: {why}")
    pytest.skip(why)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "noru-home"
    path.mkdir(mode=0o700)
    monkeypatch.setenv("NORU_HOME", str(path))
    return path


@pytest.fixture
def client(home: Path) -> Iterator[MemoryClient]:
    c = MemoryClient(home)
    try:
        yield c
    finally:
        c.close()


@pytest.fixture
def session(client: MemoryClient) -> MemoryClient:
    """An in-memory client already initialized at the newest revision."""
    client.initialize("2025-06-18")
    return client


@pytest.fixture
def stdio(home: Path, tmp_path: Path) -> Iterator[StdioProcess]:
    proc = StdioProcess(home, stderr_path=tmp_path / "mcp.stderr")
    try:
        yield proc
    finally:
        proc.close()
