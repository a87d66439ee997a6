"""Fixtures with real parts: every test gets its own NORU_HOME."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.history_data import Seeded, seed
from tests.parts import FIGURES, require
from tests.wire import OFFICIAL, MemoryClient, StdioProcess

if TYPE_CHECKING:
    from noru.ocr import Engine

# Real X servers (Xvfb + openbox) and Tk windows, shared by the capture and app tests;
# a real Wayland compositor (headless sway) and foot terminals.
pytest_plugins = ["tests.xserver", "tests.sway", "tests.http_process"]


# The modules of `make check-fast` (`pytest -m fast`): the protocol, the contract,
# the store, configuration, redaction's rules, the architecture and the docs,
# and the few real-process modules that stay quick. Chosen by their time in a
# run of the suite (docs/development.md); a module not named here is not fast.
FAST = frozenset(
    {
        "test_access_log",
        "test_access_mode",
        "test_agent_index",
        "test_architecture",
        "test_autostart",
        "test_caps",
        "test_cli_history",
        "test_config",
        "test_contract",
        "test_docs",
        "test_fit",
        "test_geometry",
        "test_history_both",
        "test_jsonrpc",
        "test_live",
        "test_memory",
        "test_negotiation",
        "test_ocr",
        "test_ocr_second",
        "test_processes",
        "test_redact",
        "test_redact_allow",
        "test_redact_at_rest",
        "test_redact_derived",
        "test_redact_formats",
        "test_redact_seams",
        "test_redact_wrap",
        "test_sessionbus",
        "test_shapes",
        "test_sources",
        "test_stdio",
        "test_store",
        "test_tools",
        "test_wire",
    }
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    modules = {path.stem for path in Path(__file__).parent.glob("test_*.py")}
    if FAST - modules:
        raise pytest.UsageError(f"tests/conftest.py FAST names no module: {sorted(FAST - modules)}")
    for item in items:
        if item.path.stem in FAST:
            item.add_marker(pytest.mark.fast)


def pytest_configure(config: pytest.Config) -> None:
    # Asked for the official schemas (NORU_MCP_SCHEMAS, or a shared/ beside the
    # checkout) but they are not all there: stop rather than quietly check less.
    if OFFICIAL.error is not None:
        raise pytest.UsageError(f"official MCP schemas: {OFFICIAL.error}")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if FIGURES:
        terminalreporter.section("Noru figures")
        for line in FIGURES:
            terminalreporter.write_line(line)
    # Which validation every response had, so that CI's log shows it.
    terminalreporter.section("Noru response validation")
    terminalreporter.write_line(OFFICIAL.summary())


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "noru-home"
    path.mkdir(mode=0o700)
    monkeypatch.setenv("NORU_HOME", str(path))
    return path


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    """Tesseract as the app reads with it (second opinion on), made once a
    module: making one loads its models. A module that reads with another
    engine (tests/test_ocr_rapid.py, tests/test_ocr_engines.py) defines its
    own ``engine``; one whose tests need a cold engine each
    (tests/terminal_reading.py: a row read once is not read again) too."""
    from tests.ocr_suite import made_engine

    yield from made_engine("tesseract")


@pytest.fixture
def seeded(home: Path) -> Seeded:
    """``home`` holding tests/history_data.py's three captures."""
    return seed(home)


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


@pytest.fixture
def held(home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A memory file system for the held folder (``paths.held_dir``): a
    private folder in /dev/shm as this test's $XDG_RUNTIME_DIR."""
    from noru.paths import file_system, held_dir

    shm = Path("/dev/shm")
    require(file_system(shm) == "tmpfs", "/dev/shm is not a tmpfs here")
    runtime = Path(tempfile.mkdtemp(dir=shm, prefix="noru-test-"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    where = held_dir(home)
    assert where is not None and where.parent == runtime
    try:
        yield where
    finally:
        shutil.rmtree(runtime, ignore_errors=True)
