"""Real X servers for capture tests: Xvfb, openbox, RandR monitors, Tk windows.

A test module loads these fixtures with ``pytest_plugins = ["tests.xserver"]``
(pytest then shares each session-scoped server across modules). Every process
started here is stopped by its own pid, at teardown and when a start fails.

Fixtures:

- ``desktop``: a 2560x1600 screen with openbox, the ordinary case.
- ``two_monitors``: a 4480x1440 screen cut into two RandR monitors, "LEFT"
  2560x1440 (primary) and "RIGHT" 1920x1080 beside it, with openbox.
- ``desktop_without_wm``: a 1280x800 screen and no window manager.
- ``desktop_with_auth``: a 1024x768 screen that admits only clients holding
  its MIT-MAGIC-COOKIE-1 (``XServer.xauthority`` names a file that has it).
- ``open_window``: a factory for real Tk windows on one of those servers,
  closed at the end of the test.
"""

from __future__ import annotations

import json
import os
import secrets
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.parts import require
from tests.processes import START_TIMEOUT, read_line, stop, terminated_unwinds

if TYPE_CHECKING:
    from noru.capture import Capturer

__all__ = [
    "Monitor",
    "TkWindow",
    "XServer",
    "capturer",
    "desktop",
    "desktop_with_auth",
    "desktop_without_wm",
    "open_window",
    "running_xserver",
    "two_monitors",
]

# START_TIMEOUT (tests/processes.py) is generous: a loaded CI machine can take
# seconds to start Xvfb or map a window. It bounds waits for readiness; no
# test asserts on how long anything takes.


@dataclass(frozen=True)
class Monitor:
    """A RandR monitor to define with ``xrandr --setmonitor``."""

    name: str
    x: int
    y: int
    width: int
    height: int
    primary: bool = False


@dataclass
class TkWindow:
    """A real Tk window in a child process. ``x, y, width, height`` are its client
    area in root coordinates as Tk reports them once the window is visible."""

    title: str
    x: int
    y: int
    width: int
    height: int
    background: str
    process: subprocess.Popen[str]
    window_id: str
    server: XServer

    @property
    def centre(self) -> tuple[int, int]:
        return (self.x + self.width // 2, self.y + self.height // 2)

    def activate(self) -> None:
        """Give it the focus through the window manager and wait until it has it."""
        self.server.run("xdotool", "windowactivate", "--sync", self.window_id)

    def bring_under_pointer(self) -> None:
        """Make it the active window with the pointer on it, as a person about to capture."""
        self.activate()
        self.server.move_pointer(*self.centre)

    def close(self) -> None:
        stop(self.process)


_TK_SCRIPT = """
import json, sys, tkinter as tk
p = json.loads(sys.argv[1])
root = tk.Tk(className=p["class_name"])
root.title(p["title"])
root.geometry("{width}x{height}+{x}+{y}".format(**p))
root.configure(background=p["background"])
tk.Label(
    root, text=p["text"], font=("DejaVu Sans", 48, "bold"),
    foreground=p["foreground"], background=p["background"],
).place(relx=0.5, rely=0.5, anchor="center")
root.wait_visibility()
root.update()
print("ready", root.winfo_rootx(), root.winfo_rooty(),
      root.winfo_width(), root.winfo_height(), flush=True)
root.mainloop()
"""


def _title_pattern(title: str) -> str:
    """An xdotool (POSIX extended) regex matching exactly ``title``.

    ASCII punctuation is bracketed so it is literal; a run of non-ASCII becomes
    ``.*`` because xdotool may match bytes, not characters.
    """
    out: list[str] = ["^"]
    for char in title:
        if char.isascii() and (char.isalnum() or char == " "):
            out.append(char)
        elif char.isascii():
            out.append("." if char in "\\^]" else f"[{char}]")
        elif out[-1] != ".*":
            out.append(".*")
    return "".join(out) + "$"


@dataclass
class XServer:
    """A running Xvfb (and maybe openbox). ``env`` is what an X client needs."""

    display: str
    width: int
    height: int
    env: dict[str, str]
    xauthority: Path
    window_manager: bool
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def run(self, *args: str) -> str:
        """Run an X client tool (xdotool, xrandr) against this server."""
        result = subprocess.run(
            args, env=self.env, capture_output=True, text=True, timeout=START_TIMEOUT
        )
        if result.returncode != 0:
            raise RuntimeError(f"{args[0]} failed: {result.stderr.strip()}")
        return result.stdout

    def pointer(self) -> tuple[int, int]:
        shell = dict(
            line.split("=", 1)
            for line in self.run("xdotool", "getmouselocation", "--shell").split()
        )
        return int(shell["X"]), int(shell["Y"])

    def move_pointer(self, x: int, y: int) -> None:
        # Not `mousemove --sync`: it waits for motion, so it hangs (for ~15 s)
        # when the pointer is already there. Poll for the position instead.
        self.run("xdotool", "mousemove", str(x), str(y))
        deadline = time.monotonic() + START_TIMEOUT
        while self.pointer() != (x, y):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the pointer did not reach {x},{y}")
            time.sleep(0.01)

    def open_window(
        self,
        title: str,
        *,
        x: int,
        y: int,
        width: int,
        height: int,
        background: str = "#3366cc",
        foreground: str = "#ffffff",
        text: str = "Noru sees this",
        class_name: str = "Noru-test",
    ) -> TkWindow:
        params = {
            "title": title,
            "x": x,
            "y": y,
            "width": width,
            "height": height,
            "background": background,
            "foreground": foreground,
            "text": text,
            "class_name": class_name,
        }
        process = subprocess.Popen(
            [sys.executable, "-c", _TK_SCRIPT, json.dumps(params)],
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        try:
            assert process.stdout is not None
            line = read_line(process, process.stdout, f"Tk window {title!r}")
            _, rx, ry, rw, rh = line.split()
            # The client window as X names it (Tk's wrapper, which carries WM_CLASS).
            found = self.run("xdotool", "search", "--sync", "--name", _title_pattern(title))
            window_id = found.split()[-1]
        except BaseException:
            stop(process)
            raise
        return TkWindow(
            title, int(rx), int(ry), int(rw), int(rh), background, process, window_id, self
        )


def _start_xvfb(
    tmp: Path, *, width: int, height: int, auth_file: Path | None, dpi: int | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    read_fd, write_fd = os.pipe()
    log = (tmp / "xvfb.log").open("wb")
    args = [
        "Xvfb",
        "-displayfd",
        str(write_fd),
        "-screen",
        "0",
        f"{width}x{height}x24",
        "-nolisten",
        "tcp",
        # Without it the server resets when its last client leaves, which drops
        # RandR monitors defined by an xrandr that has already exited.
        "-noreset",
        "+extension",
        "RANDR",
    ]
    if auth_file is not None:
        args += ["-auth", str(auth_file)]
    if dpi is not None:
        args += ["-dpi", str(dpi)]
    try:
        process = subprocess.Popen(args, pass_fds=(write_fd,), stdout=log, stderr=log)
    finally:
        os.close(write_fd)
        log.close()
    try:
        number = b""
        deadline = time.monotonic() + START_TIMEOUT
        while not number.endswith(b"\n"):
            ready, _, _ = select.select([read_fd], [], [], 0.2)
            if ready:
                chunk = os.read(read_fd, 32)
                if not chunk:
                    break
                number += chunk
            elif process.poll() is not None or time.monotonic() > deadline:
                break
        if not number.strip().isdigit():
            log_text = (tmp / "xvfb.log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"Xvfb did not start:\n{log_text}")
    except BaseException:
        stop(process)
        raise
    finally:
        os.close(read_fd)
    return process, f":{number.decode().strip()}"


def _wait_for_wm(server: XServer, openbox: subprocess.Popen[bytes]) -> None:
    """Until openbox has claimed the screen (EWMH supporting-WM check is set)."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if openbox.poll() is not None:
            raise RuntimeError(f"openbox exited with status {openbox.returncode}")
        out = server.run("xprop", "-root", "_NET_SUPPORTING_WM_CHECK")
        if "window id" in out:
            return
        time.sleep(0.05)
    raise RuntimeError("openbox did not become ready")


def _define_monitors(server: XServer, monitors: list[Monitor]) -> None:
    # Xvfb has one RandR output, "screen". Giving it to the first monitor
    # replaces the automatic whole-screen monitor; the others take no output.
    for position, m in enumerate(monitors):
        name = f"*{m.name}" if m.primary else m.name
        # RandR wants physical sizes too; 96 dpi keeps them plausible.
        geometry = f"{m.width}/{m.width * 254 // 960}x{m.height}/{m.height * 254 // 960}"
        output = "screen" if position == 0 else "none"
        server.run("xrandr", "--setmonitor", name, f"{geometry}+{m.x}+{m.y}", output)
    listed = server.run("xrandr", "--listmonitors").splitlines()[0]
    if listed != f"Monitors: {len(monitors)}":
        raise RuntimeError(f"RandR did not take the monitor layout: {listed!r}")


@contextmanager
def running_xserver(
    tmp: Path,
    *,
    width: int,
    height: int,
    window_manager: bool = True,
    monitors: list[Monitor] | None = None,
    with_auth: bool = False,
    dpi: int | None = None,
) -> Iterator[XServer]:
    """Start Xvfb (+ openbox) and stop everything by pid on the way out, on
    a SIGTERM to this process too (``terminated_unwinds``).
    ``dpi``: the resolution the screen reports (Xvfb's own is 100; a
    desktop's is usually 96), which programs that size text in points read."""
    require(shutil.which("Xvfb") is not None, "Xvfb is not installed (apt: xvfb)")
    require(shutil.which("xdotool") is not None, "xdotool is not installed")
    require(shutil.which("xprop") is not None, "xprop is not installed (apt: x11-utils)")
    if window_manager:
        require(shutil.which("openbox") is not None, "openbox is not installed")
    if monitors:
        require(shutil.which("xrandr") is not None, "xrandr is not installed")
    if with_auth:
        require(shutil.which("xauth") is not None, "xauth is not installed")

    xauthority = tmp / "client.xauth"
    cookie = secrets.token_hex(16)
    auth_file: Path | None = None
    if with_auth:
        auth_file = tmp / "server.xauth"
        # The server loads every cookie in its -auth file whatever display the
        # entry names, so ":0" is fine before we know our display number.
        subprocess.run(
            ["xauth", "-f", str(auth_file), "add", ":0", "MIT-MAGIC-COOKIE-1", cookie],
            check=True,
            capture_output=True,
        )

    with ExitStack() as stack:
        # Killed (a benchmark's ``timeout``), it still stops what it started.
        stack.enter_context(terminated_unwinds())
        xvfb, display = _start_xvfb(tmp, width=width, height=height, auth_file=auth_file, dpi=dpi)
        stack.callback(stop, xvfb)
        if with_auth:
            subprocess.run(
                ["xauth", "-f", str(xauthority), "add", display, "MIT-MAGIC-COOKIE-1", cookie],
                check=True,
                capture_output=True,
            )
        env = {
            **os.environ,
            "DISPLAY": display,
            # Our own (possibly absent) file: never a cookie from the person's session.
            "XAUTHORITY": str(xauthority),
        }
        env.pop("WAYLAND_DISPLAY", None)
        # Nor the person's session bus: the test's clients and apps use a private
        # one when they need it (tests/session_bus.py), never the desktop's.
        env.pop("DBUS_SESSION_BUS_ADDRESS", None)
        server = XServer(display, width, height, env, xauthority, window_manager, [xvfb])
        if monitors:
            _define_monitors(server, monitors)
        if window_manager:
            log = (tmp / "openbox.log").open("wb")
            stack.callback(log.close)
            openbox = subprocess.Popen(["openbox", "--sm-disable"], env=env, stdout=log, stderr=log)
            # Stopped before Xvfb: callbacks run last-in, first-out.
            stack.callback(stop, openbox)
            server.processes.append(openbox)
            _wait_for_wm(server, openbox)
        yield server


@pytest.fixture(scope="session")
def desktop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[XServer]:
    with running_xserver(tmp_path_factory.mktemp("desktop"), width=2560, height=1600) as s:
        yield s


@pytest.fixture(scope="module")
def capturer(desktop: XServer) -> Iterator[Capturer]:
    """Noru's capturer on the session's desktop, one a module (a module that
    captures otherwise, or another display, defines its own)."""
    from noru.capture import Capturer

    with Capturer(display=desktop.display) as found:
        yield found


TWO_MONITORS = [
    Monitor("LEFT", 0, 0, 2560, 1440, primary=True),
    Monitor("RIGHT", 2560, 0, 1920, 1080),
]


@pytest.fixture(scope="session")
def two_monitors(tmp_path_factory: pytest.TempPathFactory) -> Iterator[XServer]:
    with running_xserver(
        tmp_path_factory.mktemp("two-monitors"), width=4480, height=1440, monitors=TWO_MONITORS
    ) as s:
        yield s


@pytest.fixture(scope="session")
def desktop_without_wm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[XServer]:
    with running_xserver(
        tmp_path_factory.mktemp("no-wm"), width=1280, height=800, window_manager=False
    ) as s:
        yield s


@pytest.fixture(scope="session")
def desktop_with_auth(tmp_path_factory: pytest.TempPathFactory) -> Iterator[XServer]:
    with running_xserver(
        tmp_path_factory.mktemp("auth"),
        width=1024,
        height=768,
        window_manager=False,
        with_auth=True,
    ) as s:
        yield s


@pytest.fixture
def open_window() -> Iterator[Callable[..., TkWindow]]:
    """``open_window(server, title, x=, y=, width=, height=, ...)``; closed after the test."""
    opened: list[TkWindow] = []

    def factory(server: XServer, title: str, **kwargs: object) -> TkWindow:
        window = server.open_window(title, **kwargs)  # type: ignore[arg-type]
        opened.append(window)
        return window

    try:
        yield factory
    finally:
        for window in reversed(opened):
            window.close()
