"""A private D-Bus session bus for accessibility tests, and everything it starts.

``hung(bus)``: the bus's daemon stopped while a block runs, a bus that
takes every connection (the kernel queues them) and answers none.

``running_session_bus(tmp)`` starts ``dbus-daemon --session`` with a home,
runtime and config folder of its own under ``tmp`` and no display, and
yields a ``SessionBus``: its address and the environment a client needs to
use it. What the bus starts on demand (``at-spi-bus-launcher`` when a client
asks ``org.a11y.Bus`` for the accessibility bus, that bus's own
``dbus-daemon``, ``at-spi2-registryd``) is not our child: D-Bus activation
detaches it. Each inherits the daemon's environment, so each carries a
token of this bus (``NORU_TEST_BUS``); at the end every process carrying it
is stopped by its own pid, then the daemon, and a process still carrying it
afterwards fails the run.

The daemon has no ``DISPLAY``: the launcher then does not publish the
accessibility bus on the X root window (``AT_SPI_BUS``), where a later test's
applications on the same Xvfb would find a bus that is gone. GSettings is
kept in memory (``GSETTINGS_BACKEND=memory``), so switching accessibility on
for the session (``org.a11y.Status.IsEnabled``) writes nothing anywhere.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests import processes
from tests.parts import require
from tests.processes import START_TIMEOUT, alive, read_line, stop, stop_detached

__all__ = [
    "LAUNCHER",
    "REGISTRYD",
    "SessionBus",
    "accessibility_bus",
    "carrying",
    "hung",
    "missing",
    "running_session_bus",
]

LAUNCHER = Path("/usr/libexec/at-spi-bus-launcher")
REGISTRYD = Path("/usr/libexec/at-spi2-registryd")
_TOKEN = "NORU_TEST_BUS"


@dataclass(frozen=True)
class SessionBus:
    """``address`` of the bus; ``env`` what a client adds to its environment."""

    address: str
    token: str
    pid: int

    @property
    def env(self) -> dict[str, str]:
        return {"DBUS_SESSION_BUS_ADDRESS": self.address}


def missing() -> str | None:
    """What to install for a session bus with AT-SPI here, or None when it can run."""
    if shutil.which("dbus-daemon") is None:
        return "dbus-daemon is not installed (apt: dbus-daemon)"
    if not LAUNCHER.exists() or not REGISTRYD.exists():
        return "AT-SPI is not installed (apt: at-spi2-core)"
    return None


def carrying(token: str) -> list[int]:
    """The pids of the live processes whose environment carries ``token``."""
    return processes.carrying(_TOKEN, token)


def accessibility_bus(bus: SessionBus) -> int:
    """The pid of the accessibility bus's dbus-daemon that ``bus`` had started."""
    found = []
    for pid in carrying(bus.token):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"at-spi2/accessibility.conf" in command:
            found.append(pid)
    if len(found) != 1:
        raise RuntimeError(f"not one accessibility bus among the session's processes: {found}")
    return found[0]


@contextmanager
def running_session_bus(tmp: Path) -> Iterator[SessionBus]:
    problem = missing()
    require(problem is None, problem or "")
    token = secrets.token_hex(8)
    home, runtime, sockets = tmp / "home", tmp / "run", tmp / "bus"
    for folder in (home, runtime, sockets):
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_RUNTIME_DIR": str(runtime),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "GSETTINGS_BACKEND": "memory",
        _TOKEN: token,
    }
    with (tmp / "dbus-daemon.log").open("w") as log:
        daemon = subprocess.Popen(
            [
                "dbus-daemon",
                "--session",
                "--nofork",
                "--nopidfile",
                f"--address=unix:dir={sockets}",
                "--print-address=1",
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=log,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        try:
            assert daemon.stdout is not None
            address = read_line(daemon, daemon.stdout, "dbus-daemon").strip()
            yield SessionBus(address, token, daemon.pid)
        finally:
            for pid in carrying(token):
                if pid != daemon.pid:
                    stop_detached(pid)
            stop(daemon)
        deadline = time.monotonic() + START_TIMEOUT
        while (left := [p for p in carrying(token) if alive(p)]) and time.monotonic() < deadline:
            time.sleep(0.05)
        if left:
            raise RuntimeError(f"processes of the test's session bus outlived it: {left}")


@contextmanager
def hung(bus: SessionBus) -> Iterator[None]:
    """``bus``'s daemon stopped (SIGSTOP) while the block runs: it accepts
    connections and answers nothing; it goes on (SIGCONT) after the block."""
    os.kill(bus.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(bus.pid, signal.SIGCONT)
