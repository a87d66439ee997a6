"""The desktop portal on a headless sway, for the portal backend's tests.

``running_portal(tmp, sway)`` starts, for one test, a private session bus
and on it the real portal stack a wlroots desktop runs:

- ``pipewire`` (``xdg-desktop-portal-wlr`` will not start without it);
- ``xdg-permission-store`` (the portal's permission store);
- ``xdg-desktop-portal-wlr``: the Screenshot backend, which runs
  ``grim -- /tmp/out.png`` on the sway it is given (``WAYLAND_DISPLAY``);
- ``xdg-desktop-portal-gtk``: an Access backend. xdg-desktop-portal 1.16
  exports ``org.freedesktop.portal.Screenshot`` only when its portals
  folder describes one (without: "No such interface"; ``access=False``
  neither describes nor starts it, to see that). It never shows a dialog
  here: the wlroots backend's Screenshot interface is version 1, and the
  portal asks for access only of version 2 and later, so a non-interactive
  screenshot is taken without a question;
- ``xdg-desktop-portal`` itself, last, once the others own their names.

Every one is our child, started in order and stopped by its own pid in
reverse order. The bus has a configuration of our own with no service
folder, so nothing is started by D-Bus activation (the system's services
would start ``xdg-document-portal``, which mounts a FUSE file system in the
runtime folder, and the accessibility bus); each process carries a token
(``NORU_TEST_PORTAL``) in its environment, and one still carrying it after
the stop fails the run (a ``grim`` orphaned by a killed backend, say).

The session's folders are its own: ``HOME``, the XDG folders, and a runtime
folder (``XDG_RUNTIME_DIR``, where PipeWire makes its socket) that is not
sway's, with ``WAYLAND_DISPLAY`` the absolute path of sway's socket. So the
process under test, given ``Portal.env``, is in a Wayland session whose
compositor's IPC socket it cannot find: the facade takes the portal, as on
GNOME or KDE. ``XDG_CURRENT_DESKTOP=sway`` and a portals folder holding
only the wlr and gtk descriptions (``XDG_DESKTOP_PORTAL_DIR``) make the
portal's choice of backends the same on every machine.

The fixed path: ``xdg-desktop-portal-wlr`` writes every screenshot to
``/tmp/out.png``, for any caller. Two test runs on one machine (two
checkouts, CI beside a developer) would read each other's screens. A mount
namespace for the backend does not help: the path it names is then one the
reader cannot see. So every portal session holds an exclusive lock
(``/tmp/noru-test-portal.lock``, ``flock``) from its start to its end: the
tests of all runs on the machine take their turns, and each test's portal
is the only one writing the file while it runs. The simplest thing that
is reliable; the sessions are short (about 0.2 s to start).

``read_only_tmp=True`` runs the backend in a mount namespace of its own in
which ``/tmp`` is a read-only bind of itself (``unshare --mount``; as an
ordinary user in a user namespace too): sway's socket is still reached, but
grim cannot write ``/tmp/out.png``, which is how the portal's answer to a
backend that cannot write is seen, nothing outside touched.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import os
import secrets
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import pytest
from dbus_fast import Message
from dbus_fast.aio import MessageBus

from tests import processes
from tests.parts import require
from tests.processes import START_TIMEOUT, read_line, stop, stop_detached
from tests.sway import Sway, enter_session

__all__ = [
    "LOCK",
    "OUT",
    "PORTAL_SESSION_DROPS",
    "Portal",
    "carrying",
    "missing",
    "private_bus",
    "running_portal",
]

_TOKEN = "NORU_TEST_PORTAL"
LIBEXEC = Path("/usr/libexec")
PORTALS = Path("/usr/share/xdg-desktop-portal/portals")
OUT = Path("/tmp/out.png")  # xdg-desktop-portal-wlr's fixed path
LOCK = Path("/tmp/noru-test-portal.lock")
LOCK_WAIT = 120.0

_PARTS = {
    "xdg-desktop-portal": (LIBEXEC / "xdg-desktop-portal", "xdg-desktop-portal"),
    "xdg-permission-store": (LIBEXEC / "xdg-permission-store", "xdg-desktop-portal"),
    "xdg-desktop-portal-wlr": (LIBEXEC / "xdg-desktop-portal-wlr", "xdg-desktop-portal-wlr"),
    "xdg-desktop-portal-gtk": (LIBEXEC / "xdg-desktop-portal-gtk", "xdg-desktop-portal-gtk"),
}

_BUS_CONFIG = """\
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir={sockets}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""

# /tmp read-only for the backend alone: a bind of itself, remounted read-only.
_READ_ONLY_TMP = 'mount --bind /tmp /tmp && mount -o remount,bind,ro /tmp && exec "$0" "$@"'


def missing() -> str | None:
    """What keeps the portal stack from running here, or None."""
    if shutil.which("dbus-daemon") is None:
        return "dbus-daemon is not installed (apt: dbus-daemon)"
    if shutil.which("pipewire") is None:
        return "pipewire is not installed (apt: pipewire)"
    for name, (path, package) in _PARTS.items():
        if not path.exists():
            return f"{name} is not installed (apt: {package})"
    for name in ("wlr.portal", "gtk.portal"):
        if not (PORTALS / name).exists():
            return f"{PORTALS / name} is missing (apt: xdg-desktop-portal-{name[:3]})"
    return None


def _namespace_problem() -> str | None:
    """Why the backend cannot get a read-only /tmp of its own here, or None."""
    probe = [*_unshare(), "sh", "-c", _READ_ONLY_TMP, "true"]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=START_TIMEOUT)
    except FileNotFoundError:
        return "unshare is not installed (apt: util-linux)"
    if done.returncode == 0:
        return None
    return (
        "a mount namespace cannot be made here, so /tmp cannot be made read-only for "
        f"the portal's backend alone: `{' '.join(probe)}` failed "
        f"({done.stderr.strip() or f'status {done.returncode}'}). Allow unprivileged "
        "user namespaces (sysctl user.max_user_namespaces > 0, "
        "kernel.unprivileged_userns_clone=1) or run the tests as root."
    )


# What the process under test drops to be in a portal stack's session (with
# tests/sway.enter_session): no X, no sway socket, no other session bus.
PORTAL_SESSION_DROPS = ("DISPLAY", "SWAYSOCK", "I3SOCK", "DBUS_SESSION_BUS_ADDRESS")


def enter_portal_session(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    """This process in a portal stack's session: Wayland, its bus, no X, no sway."""
    enter_session(monkeypatch, env, drop=PORTAL_SESSION_DROPS)


def _unshare() -> list[str]:
    if os.geteuid() == 0:
        return ["unshare", "--mount", "--propagation", "private"]
    # An ordinary user may mount only in a user namespace of its own.
    return ["unshare", "--user", "--map-root-user", "--mount", "--propagation", "private"]


def carrying(token: str) -> list[int]:
    """The pids of the live processes whose environment carries ``token``."""
    return processes.carrying(_TOKEN, token)


@contextmanager
def _machine_lock() -> Iterator[None]:
    """The machine-wide turn at ``/tmp/out.png`` (see the module's docstring)."""
    try:
        fd = os.open(LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    except PermissionError:
        fd = os.open(LOCK, os.O_RDONLY | os.O_CLOEXEC)  # another user's: flock still works
    try:
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"another test run held {LOCK} (the portal's /tmp/out.png) for "
                        f"{LOCK_WAIT:.0f} s"
                    ) from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # releases the lock


async def _wait_names(address: str, names: list[str], processes: list[Child]) -> None:
    bus = await MessageBus(bus_address=address).connect()
    try:
        deadline = time.monotonic() + START_TIMEOUT
        for name in names:
            while True:
                reply = await bus.call(
                    Message(
                        destination="org.freedesktop.DBus",
                        path="/org/freedesktop/DBus",
                        interface="org.freedesktop.DBus",
                        member="NameHasOwner",
                        signature="s",
                        body=[name],
                    )
                )
                if reply.body == [True]:
                    break
                dead = [c.name for c in processes if c.process.poll() is not None]
                if dead or time.monotonic() > deadline:
                    raise RuntimeError(f"{name} did not appear on the bus (exited: {dead})")
                await asyncio.sleep(0.02)
    finally:
        bus.disconnect()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(bus.wait_for_disconnect(), 1.0)  # type: ignore[no-untyped-call]


@dataclass
class Child:
    name: str
    process: subprocess.Popen[Any]

    @property
    def pid(self) -> int:
        return self.process.pid


@dataclass
class Starter:
    """Starts a stack's programs on its bus (``start``; each a ``Child``,
    stopped by pid at the end) and waits for the names they take there
    (``ready``, failing with the stack's log)."""

    env: dict[str, str]
    out: IO[bytes]
    log: Path
    address: str
    children: list[Child]

    def start(self, name: str, args: list[str], extra: dict[str, str] | None = None) -> Child:
        process = subprocess.Popen(
            args, env={**self.env, **(extra or {})}, stdout=self.out, stderr=self.out,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        child = Child(name, process)
        self.children.append(child)
        return child

    def ready(self, *names: str) -> None:
        try:
            asyncio.run(_wait_names(self.address, list(names), self.children))
        except RuntimeError as exc:
            raise RuntimeError(f"{exc}\n{self.log.read_text(errors='replace')[-3000:]}") from exc


@dataclass
class Portal:
    """A running portal stack. ``env`` is what the process under test sets
    (``DBUS_SESSION_BUS_ADDRESS``, ``WAYLAND_DISPLAY``, ``XDG_RUNTIME_DIR``);
    ``children`` each part by its name, for a test that stops one."""

    address: str
    env: dict[str, str]
    token: str
    log: Path
    children: dict[str, Child] = field(default_factory=dict)

    def log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-3000:]
        except OSError:
            return ""


@dataclass
class _Bus:
    address: str
    env: dict[str, str]
    child: Child


@contextmanager
def private_bus(tmp: Path, env: dict[str, str], log: Path) -> Iterator[_Bus]:
    """A session bus of our own configuration: no service folder, so no
    activation. Yields its address; the daemon stopped by pid at the end."""
    sockets = tmp / "bus"
    sockets.mkdir(mode=0o700, parents=True, exist_ok=True)
    config = tmp / "bus.conf"
    config.write_text(_BUS_CONFIG.format(sockets=sockets))
    with log.open("ab") as out:
        daemon = subprocess.Popen(
            ["dbus-daemon", f"--config-file={config}", "--nofork", "--nopidfile",
             "--print-address=1"],
            env=env, stdout=subprocess.PIPE, stderr=out, stdin=subprocess.DEVNULL, text=True,
        )  # fmt: skip
    try:
        assert daemon.stdout is not None
        address = read_line(daemon, daemon.stdout, "dbus-daemon").strip()
        yield _Bus(address, {**env, "DBUS_SESSION_BUS_ADDRESS": address}, Child("dbus", daemon))
    finally:
        stop(daemon)


def _session_env(
    tmp: Path, sway: Sway, token: str, runtime: Path, *, access: bool
) -> dict[str, str]:
    home = tmp / "portal-home"
    portals = tmp / "portals"
    for folder in (home, portals):
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    for name in ("wlr.portal", "gtk.portal") if access else ("wlr.portal",):
        shutil.copyfile(PORTALS / name, portals / name)
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_RUNTIME_DIR": str(runtime),
        # Absolute: the compositor's socket, not its runtime folder.
        "WAYLAND_DISPLAY": str(sway.runtime_dir / sway.wayland_display),
        "XDG_CURRENT_DESKTOP": "sway",
        "XDG_SESSION_TYPE": "wayland",
        "XDG_DESKTOP_PORTAL_DIR": str(portals),
        "GDK_BACKEND": "wayland",
        "GSETTINGS_BACKEND": "memory",
        "NO_AT_BRIDGE": "1",  # GTK would ask the session for an accessibility bus
        "GTK_A11Y": "none",
        _TOKEN: token,
    }


def _stop_children(children: list[Child]) -> None:
    """Every part by its pid, newest first (the bus after them)."""
    for child in reversed(children):
        stop(child.process)


def _leftovers(token: str) -> None:
    """What still carries the session's token, once all is stopped, fails the run."""
    deadline = time.monotonic() + START_TIMEOUT
    while (left := carrying(token)) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in left:
        stop_detached(pid)
    if left:
        raise RuntimeError(f"processes of the test's portal outlived it: {left}")


@contextmanager
def running_portal(
    tmp: Path,
    sway: Sway,
    *,
    access: bool = True,
    read_only_tmp: bool = False,
) -> Iterator[Portal]:
    """The portal stack on ``sway`` (see the module's docstring)."""
    problem = missing()
    require(problem is None, problem or "")
    if read_only_tmp:
        problem = _namespace_problem()
        require(problem is None, problem or "")
    token = secrets.token_hex(8)
    log = tmp / "portal.log"
    with ExitStack() as stack:
        stack.enter_context(_machine_lock())
        runtime = Path(tempfile.mkdtemp(prefix="noru-portal-"))  # 0700, short
        stack.callback(shutil.rmtree, runtime, ignore_errors=True)
        env = _session_env(tmp, sway, token, runtime, access=access)
        stack.callback(_leftovers, token)
        bus = stack.enter_context(private_bus(tmp, env, log))
        env = bus.env
        children: list[Child] = []
        stack.callback(_stop_children, children)
        out = stack.enter_context(log.open("ab"))
        starter = Starter(env, out, log, bus.address, children)

        pipewire = starter.start("pipewire", ["pipewire"])
        # xdg-desktop-portal-wlr connects to pipewire once, at its start: a
        # pipewire still starting makes it fail ("couldn't connect to context").
        deadline = time.monotonic() + 30
        while not (runtime / "pipewire-0").exists():
            if pipewire.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    "pipewire did not open its socket\n" + log.read_text(errors="replace")[-3000:]
                )
            time.sleep(0.02)
        starter.start("xdg-permission-store", [str(_PARTS["xdg-permission-store"][0])])
        wlr = [str(_PARTS["xdg-desktop-portal-wlr"][0])]
        if read_only_tmp:
            wlr = [*_unshare(), "sh", "-c", _READ_ONLY_TMP, *wlr]
        starter.start("xdg-desktop-portal-wlr", wlr)
        names = [
            "org.freedesktop.impl.portal.PermissionStore",
            "org.freedesktop.impl.portal.desktop.wlr",
        ]
        if access:
            starter.start("xdg-desktop-portal-gtk", [str(_PARTS["xdg-desktop-portal-gtk"][0])])
            names.append("org.freedesktop.impl.portal.desktop.gtk")
        starter.ready(*names)
        starter.start("xdg-desktop-portal", [str(_PARTS["xdg-desktop-portal"][0])])
        starter.ready("org.freedesktop.portal.Desktop")
        client = {
            "DBUS_SESSION_BUS_ADDRESS": bus.address,
            "WAYLAND_DISPLAY": env["WAYLAND_DISPLAY"],
            "XDG_RUNTIME_DIR": str(runtime),
        }
        portal = Portal(bus.address, client, token, log, {c.name: c for c in children})
        yield portal
