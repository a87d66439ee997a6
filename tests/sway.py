"""A real Wayland compositor for capture tests: headless sway, foot terminals, grim.

A test module gets these fixtures as it gets tests/xserver.py's (conftest
loads both plugins). Every process started here is stopped by its own pid,
at teardown and when a start fails, and a process left over fails the run.

Fixtures (session-scoped, started on first use):

- ``sway``: one 2560x1600 output, ``HEADLESS-1``; no bar, no wallpaper, no
  XWayland.
- ``sway_two_outputs``: ``HEADLESS-1`` 2560x1600 at 0,0 and ``HEADLESS-2``,
  1920x1080 pixels at scale 2 (960x540 logical) at 2560,0. Its own
  compositor, because ``create_output`` changes the layout for every later
  test and sway 1.7 cannot remove an output again.
- ``sway_xwayland``: one 1280x800 output with XWayland running
  (``Sway.x_display``), for the rule that Noru never captures through it.

``running_sway(tmp, ...)`` starts one for a test of its own.

What works on this machine (Debian 12, sway 1.7, wlroots 0.15, root in a
VM without a GPU), and why each variable is set for sway:

- ``WLR_BACKENDS=headless``: outputs in memory, no DRM, no seat, no input.
  With ``libinput`` added sway fails ("Failed to start backend": libseat
  cannot take a VT).
- ``WLR_RENDERER=pixman``: software rendering. Without it wlroots looks for
  a DRM render node, finds none here and falls back to pixman anyway; set,
  a machine with a GPU renders the same way (no EGL, no driver in the way).
- ``WLR_LIBINPUT_NO_DEVICES=1``: not needed by the headless backend alone
  (measured), set so that a libinput backend would not abort for want of
  input devices.
- ``XDG_RUNTIME_DIR``: a private 0700 folder (short, under /tmp: a socket's
  path must fit in 108 bytes). Sway makes ``wayland-N`` and
  ``sway-ipc.UID.PID.sock`` in it; the names are not fixed, so they are
  found by glob.
- ``HOME``, ``XDG_CONFIG_HOME``: a folder of the compositor's own; the
  config is ours (``-c``), never a person's.
- Sway refuses to run as root. As root it runs under ``unshare --user
  --map-user=1000 --map-group=1000`` (util-linux >= 2.38): uid 1000 in a user
  namespace, still root outside it, so root's clients (grim, foot, swaymsg,
  the tests) connect to its sockets without more ado. No pid or mount
  namespace: the pids in its tree are ours.
- ``NORU_TEST_SWAY``: a token in the environment of sway and of every
  client started with ``Sway.env``, which is how processes left behind
  (XWayland is detached: not sway's child) are found and stopped by pid.

Clients get ``Sway.env``: this environment with ``WAYLAND_DISPLAY``,
``XDG_RUNTIME_DIR`` and ``SWAYSOCK`` for this compositor, and no
``DISPLAY`` (nor the person's session bus): a Wayland client that falls
back to X must fail here, not find some X server. ``Sway.xwayland_env``
adds XWayland's ``DISPLAY``.

``open_foot`` shows known lines in a real foot terminal. Windows keep sway's
default decorations (a title bar and 2-pixel borders), so a window's tree
``rect`` is not its content: ``Foot.rect`` is the content's rectangle in
layout coordinates (``rect`` plus ``window_rect`` of the tree), what a
window capture crops. Measured (tests/test_sway_fixture.py prints it):
``grim -t ppm -`` of 2560x1600, read whole through a pipe, takes about 40 ms
here (median of 20).
"""

from __future__ import annotations

import functools
import io
import itertools
import json
import os
import re
import secrets
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import pytest
from PIL import Image, ImageChops

from tests import processes
from tests.parts import require
from tests.processes import START_TIMEOUT, stop, stop_detached

__all__ = [
    "Foot",
    "Sway",
    "carrying",
    "enter_session",
    "missing",
    "running_sway",
    "same",
    "sway",
    "sway_two_outputs",
    "sway_xwayland",
]

Rect = tuple[int, int, int, int]

_TOKEN = "NORU_TEST_SWAY"
# Sway's own uid inside its user namespace, when we are root.
_NAMESPACE_ID = "1000"
_SAFE_APP_ID = re.compile(r"[A-Za-z0-9._-]+")
_serial = itertools.count(1)


def _userns_problem() -> str | None:
    """Why sway cannot be started as root here, or None when it can."""
    probe = [
        "unshare",
        "--user",
        f"--map-user={_NAMESPACE_ID}",
        f"--map-group={_NAMESPACE_ID}",
        "true",
    ]
    try:
        result = subprocess.run(probe, capture_output=True, text=True, timeout=START_TIMEOUT)
    except FileNotFoundError:
        return "unshare is not installed (apt: util-linux)"
    if result.returncode == 0:
        return None
    said = result.stderr.strip()
    if "unrecognized option" in said:
        return f"this unshare has no --map-user (util-linux >= 2.38 has): {said}"
    return (
        "user namespaces are unavailable on this machine, and sway refuses to run "
        f"as root, so the tests run it as uid {_NAMESPACE_ID} in one: "
        f"`{' '.join(probe)}` failed ({said or f'status {result.returncode}'}). "
        "Allow them (sysctl user.max_user_namespaces > 0, "
        "kernel.unprivileged_userns_clone=1, a container or seccomp profile that "
        "permits CLONE_NEWUSER), or run the tests as an ordinary user."
    )


@functools.cache
def missing() -> str | None:
    """What keeps a headless sway with foot and grim from running here, or None."""
    for program, package in (
        ("sway", "sway"),
        ("swaymsg", "sway"),
        ("grim", "grim"),
        ("foot", "foot"),
    ):
        if shutil.which(program) is None:
            return f"{program} is not installed (apt: {package})"
    if os.geteuid() == 0:
        return _userns_problem()
    return None


def carrying(token: str) -> list[int]:
    """The pids of the live processes whose environment carries ``token``."""
    return processes.carrying(_TOKEN, token)


def _image(ppm: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(ppm))
    image.load()
    return image


def _rect(node: dict[str, Any], key: str) -> Rect:
    r = node[key]
    return (r["x"], r["y"], r["width"], r["height"])


def _views(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every window in a tree (a node with a pid), tiled or floating."""
    if node.get("pid") is not None and node["type"] in ("con", "floating_con"):
        yield node
    for child in (*node.get("nodes", ()), *node.get("floating_nodes", ())):
        yield from _views(child)


def _log_tail(path: Path) -> str:
    try:
        return path.read_text(errors="replace")[-1500:]
    except OSError:
        return ""


@dataclass
class Foot:
    """A real foot terminal showing ``lines``, its cursor hidden.

    ``rect`` is its content (no title bar, no border) in layout coordinates,
    what a window capture crops; ``node`` is its tree node as sway gave it once
    drawn (``rect``, ``window_rect``, ``deco_rect``, ``pid``, ``id``...).
    """

    title: str
    app_id: str
    lines: tuple[str, ...]
    rect: Rect
    node: dict[str, Any]
    process: subprocess.Popen[str]
    sway: Sway
    folder: Path
    _closed: bool = field(default=False, repr=False)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def con_id(self) -> int:
        return int(self.node["id"])

    @property
    def centre(self) -> tuple[int, int]:
        x, y, w, h = self.rect
        return (x + w // 2, y + h // 2)

    def current(self) -> dict[str, Any]:
        """Its tree node now."""
        for view in _views(self.sway.tree()):
            if view["id"] == self.con_id:
                return view
        raise RuntimeError(f"window {self.title!r} is not in the tree")

    def focus(self) -> None:
        """Give it the keyboard focus and wait until the tree says it has it."""
        self.sway.command(f"[con_id={self.con_id}] focus")
        deadline = time.monotonic() + START_TIMEOUT
        while not self.current()["focused"]:
            if time.monotonic() > deadline:
                raise RuntimeError(f"window {self.title!r} did not take the focus")
            time.sleep(0.02)

    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            stop(self.process)
            shutil.rmtree(self.folder, ignore_errors=True)
            if self in self.sway.clients:
                self.sway.clients.remove(self)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


_FOOT_CONFIG = """\
font={font}
pad=4x4
[colors]
background={background}
foreground={foreground}
[cursor]
blink=no
"""

# The cursor hidden (DECTCEM) before the text; the title set only after it,
# so a window with this title has been sent all of it.
_FOOT_SCRIPT = 'printf "\\033[?25l"; cat "$1"; printf "\\033]2;%s\\007" "$2"'


@dataclass
class Sway:
    """A running headless sway. ``env`` is what a Wayland client needs."""

    pid: int
    runtime_dir: Path
    wayland_display: str
    swaysock: Path
    env: dict[str, str]
    token: str
    log: Path
    x_display: str | None = None
    clients: list[Foot] = field(default_factory=list)

    @property
    def xwayland_env(self) -> dict[str, str]:
        """``env`` with XWayland's ``DISPLAY``, as a sway session gives its X clients."""
        if self.x_display is None:
            raise RuntimeError("this sway runs without XWayland (running_sway(xwayland=True))")
        return {**self.env, "DISPLAY": self.x_display}

    def msg(self, *args: str) -> Any:
        """``swaymsg -r ARGS``, parsed: ``msg("-t", "get_tree")``, ``msg("focus", "left")``."""
        result = subprocess.run(
            ["swaymsg", "-s", str(self.swaysock), "-r", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT,
        )
        # A failed command exits non-zero with its reasons on stdout, as JSON.
        if not result.stdout.strip():
            raise RuntimeError(f"swaymsg {' '.join(args)} failed: {result.stderr.strip()}")
        return json.loads(result.stdout)

    def command(self, text: str) -> None:
        """Run sway commands (``;`` or ``,`` separated), failing if any fails."""
        results = self.msg(text)
        failed = [r.get("error", "?") for r in results if not r.get("success")]
        if failed:
            raise RuntimeError(f"sway refused {text!r}: {failed}")

    def outputs(self) -> list[dict[str, Any]]:
        return self.msg("-t", "get_outputs")  # type: ignore[no-any-return]

    def tree(self) -> dict[str, Any]:
        return self.msg("-t", "get_tree")  # type: ignore[no-any-return]

    def views(self) -> list[dict[str, Any]]:
        """Every window's tree node, tiled and floating."""
        return list(_views(self.tree()))

    def grab(self, *, output: str | None = None, rect: Rect | None = None) -> Image.Image:
        """``grim -t ppm`` of everything, of one output (``-o``), or of a
        rectangle in layout coordinates (``-g``). Grim draws at the highest
        scale among the outputs it covers: everything of a 2560x1600 output
        beside a 960x540 one at scale 2 is 7040x3200; ``-o`` is each as is."""
        args = ["grim", "-t", "ppm"]
        if output is not None:
            args += ["-o", output]
        if rect is not None:
            x, y, w, h = rect
            args += ["-g", f"{x},{y} {w}x{h}"]
        result = subprocess.run(
            [*args, "-"], env=self.env, capture_output=True, timeout=START_TIMEOUT
        )
        if result.returncode != 0:
            raise RuntimeError(f"grim failed: {result.stderr.decode(errors='replace').strip()}")
        return _image(result.stdout)

    def create_output(
        self,
        width: int,
        height: int,
        scale: float = 1.0,
        *,
        x: int | None = None,
        y: int | None = None,
    ) -> str:
        """A new headless output of ``width`` x ``height`` pixels at ``scale``
        (beside the others unless placed at ``x, y``); its name."""
        before = {o["name"] for o in self.outputs()}
        self.command("create_output")
        added = [o["name"] for o in self.outputs() if o["name"] not in before]
        if len(added) != 1:
            raise RuntimeError(f"create_output did not add one output: {added}")
        name = str(added[0])
        position = f" position {x} {y}" if x is not None and y is not None else ""
        self.command(f"output {name} mode {width}x{height} scale {scale}{position}")
        self._wait_output(name, width, height, scale)
        return name

    def _wait_output(self, name: str, width: int, height: int, scale: float) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            for o in self.outputs():
                mode = o.get("current_mode") or {}
                if (
                    o["name"] == name
                    and o.get("active")
                    and (mode.get("width"), mode.get("height")) == (width, height)
                    and abs(o.get("scale", 0) - scale) < 1e-6
                ):
                    return
            time.sleep(0.02)
        raise RuntimeError(f"output {name} did not become {width}x{height} at scale {scale}")

    def open_foot(
        self,
        lines: Sequence[str],
        *,
        title: str,
        app_id: str,
        x: int | None = None,
        y: int | None = None,
        width: int | None = None,
        height: int | None = None,
        font: str = "monospace:size=10",
        background: str = "ffffff",
        foreground: str = "000000",
    ) -> Foot:
        """A foot terminal showing ``lines`` (one row each: keep them within the
        window's width), ``title`` and ``app_id`` as given, dark text on a light
        background unless told otherwise, returned once sway maps it and it has
        drawn. With ``x, y`` and/or ``width, height`` it floats, its outer box
        (title bar and borders included, as sway's ``move``/``resize`` count)
        there, in layout coordinates; else sway tiles it. The placement is a
        ``for_window`` rule that stays for the compositor's life: give each
        placed window an app_id of its own. Close it in the test (``with``);
        the compositor closes what is left when it stops."""
        if not _SAFE_APP_ID.fullmatch(app_id):
            raise ValueError(f"app_id: letters, digits and ._- only: {app_id!r}")
        for line in lines:
            if any(not char.isprintable() for char in line):
                raise ValueError(f"only printable characters, no tabs: {line!r}")
        if (x is None) != (y is None) or (width is None) != (height is None):
            raise ValueError("give x with y, and width with height")
        place = []
        if width is not None:
            place.append(f"resize set {width} {height}")  # about the centre: before moving
        if x is not None:
            place.append(f"move absolute position {x} {y}")
        if place:
            # A rule for this app_id, so the window maps floating and in place.
            rule = ", ".join(["floating enable", *place])
            pattern = app_id.replace(".", "[.]")  # a PCRE; the rest is literal
            self.command(f'for_window [app_id="^{pattern}$"] "{rule}"')

        folder = Path(tempfile.mkdtemp(prefix="noru-foot-"))
        (folder / "text").write_text("".join(f"{line}\n" for line in lines))
        (folder / "foot.ini").write_text(
            _FOOT_CONFIG.format(
                font=font, background=background.lstrip("#"), foreground=foreground.lstrip("#")
            )
        )
        env = {
            **self.env,
            "HOME": str(folder),
            "XDG_CONFIG_HOME": str(folder / "config"),
            "XDG_CACHE_HOME": str(folder / "cache"),
        }
        args = [
            "foot",
            f"--config={folder / 'foot.ini'}",
            f"--app-id={app_id}",
            f"--title={title} (loading {next(_serial)})",
            "--hold",  # stays when the shell is done: one process, foot's
            *("sh", "-c", _FOOT_SCRIPT, "sh", str(folder / "text"), title),
        ]
        log = folder / "log"
        with log.open("w") as out:
            process = subprocess.Popen(
                args, env=env, stdout=out, stderr=out, stdin=subprocess.DEVNULL, text=True
            )
        try:
            node = self._wait_mapped(process, title, app_id, log)
            if place:
                # Again, now it is mapped: foot sets its own first size (700x500
                # by default), and on a loaded host that can land after the rule's.
                self.command(f"[con_id={node['id']}] {', '.join(place)}")
            rect = _content(node)
            node = self._wait_drawn(process, node, rect, title)
        except BaseException:
            stop(process)
            shutil.rmtree(folder, ignore_errors=True)
            raise
        foot = Foot(title, app_id, tuple(lines), _content(node), node, process, self, folder)
        self.clients.append(foot)
        return foot

    def _wait_mapped(
        self, process: subprocess.Popen[str], title: str, app_id: str, log: Path
    ) -> dict[str, Any]:
        """Its node once visible with its final title (the text all sent)."""
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(
                    f"foot {title!r} exited with status {process.returncode}:\n{_log_tail(log)}"
                )
            for view in self.views():
                if (
                    view["pid"] == process.pid
                    and view.get("app_id") == app_id
                    and view.get("name") == title
                    and view.get("visible")
                ):
                    return view
            time.sleep(0.02)
        raise RuntimeError(f"foot {title!r} did not show in {START_TIMEOUT:.0f} s")

    def _wait_drawn(
        self, process: subprocess.Popen[str], node: dict[str, Any], rect: Rect, title: str
    ) -> dict[str, Any]:
        """Until its content holds more than one colour and it and the tree stay
        the same over three looks 0.05 s apart: drawn, and done drawing."""
        deadline = time.monotonic() + START_TIMEOUT
        same, previous = 0, (b"", rect)
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"foot {title!r} exited with status {process.returncode}")
            node = next((v for v in self.views() if v["id"] == node["id"]), node)
            rect = _content(node)
            image = self.grab(rect=rect)
            drawn = image.getcolors(1) is None  # more than one colour
            look = (image.tobytes(), rect)
            same = same + 1 if drawn and look == previous else 0
            if same >= 2:
                return node
            previous = look
            time.sleep(0.05)
        raise RuntimeError(f"foot {title!r} did not finish drawing in {START_TIMEOUT:.0f} s")


def _content(node: dict[str, Any]) -> Rect:
    """A window's content in layout coordinates: its ``rect`` plus ``window_rect``."""
    x, y, _, _ = _rect(node, "rect")
    wx, wy, ww, wh = _rect(node, "window_rect")
    return (x + wx, y + wy, ww, wh)


_CONFIG = """\
output HEADLESS-1 mode {width}x{height} position 0 0
xwayland {xwayland}
"""


def _sockets(runtime: Path) -> tuple[str, Path] | None:
    displays = [p.name for p in runtime.glob("wayland-*") if not p.name.endswith(".lock")]
    ipc = list(runtime.glob("sway-ipc.*.sock"))
    if len(displays) == 1 and len(ipc) == 1:
        return displays[0], ipc[0]
    return None


def _client_env(runtime: Path, display: str, swaysock: Path, token: str) -> dict[str, str]:
    env = dict(os.environ)
    # Nothing of a session the tests may run in: no X, no other compositor,
    # no session bus, no desktop's name.
    for name in (
        "DISPLAY",
        "XAUTHORITY",
        "WAYLAND_DISPLAY",
        "WAYLAND_SOCKET",
        "SWAYSOCK",
        "I3SOCK",
        "HYPRLAND_INSTANCE_SIGNATURE",
        "DBUS_SESSION_BUS_ADDRESS",
        "XDG_SESSION_TYPE",
        "XDG_CURRENT_DESKTOP",
        "XDG_SESSION_DESKTOP",
        "DESKTOP_SESSION",
    ):
        env.pop(name, None)
    env.update(
        {
            "WAYLAND_DISPLAY": display,
            "XDG_RUNTIME_DIR": str(runtime),
            "SWAYSOCK": str(swaysock),
            _TOKEN: token,
        }
    )
    return env


def _wait_ready(
    process: subprocess.Popen[bytes], runtime: Path, log: Path, width: int, height: int
) -> tuple[str, Path, dict[str, Any]]:
    """Until both sockets are there and ``get_outputs`` shows HEADLESS-1 in its mode."""
    deadline = time.monotonic() + START_TIMEOUT
    last = ""
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"sway exited with status {process.returncode}:\n{_log_tail(log)}")
        found = _sockets(runtime)
        if found is not None:
            display, swaysock = found
            result = subprocess.run(
                ["swaymsg", "-s", str(swaysock), "-r", "-t", "get_outputs"],
                capture_output=True,
                text=True,
                timeout=START_TIMEOUT,
            )
            last = result.stderr.strip()
            if result.returncode == 0:
                for output in json.loads(result.stdout):
                    mode = output.get("current_mode") or {}
                    if output["name"] == "HEADLESS-1" and (
                        mode.get("width"),
                        mode.get("height"),
                    ) == (
                        width,
                        height,
                    ):
                        return display, swaysock, output
        time.sleep(0.02)
    raise RuntimeError(f"sway did not become ready ({last}):\n{_log_tail(log)}")


def _wait_xwayland(sway: Sway) -> str:
    """XWayland's display once its window manager (sway's) has claimed it.

    wlroots starts XWayland detached (its parent is not sway), so it is found
    by the token its environment carries; its first argument is the display.
    """
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        for pid in carrying(sway.token):
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if Path(argv[0].decode()).name == "Xwayland" and argv[1:2]:
                display = argv[1].decode()
                check = subprocess.run(
                    ["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"],
                    env={**sway.env, "DISPLAY": display},
                    capture_output=True,
                    text=True,
                    timeout=START_TIMEOUT,
                )
                if "window id" in check.stdout:
                    return display
        time.sleep(0.05)
    raise RuntimeError(f"XWayland did not become ready:\n{_log_tail(sway.log)}")


def _stop_all(sway: Sway, process: subprocess.Popen[bytes]) -> None:
    """Our clients, anything else started with ``sway.env``, then sway; by pid.
    Sway takes XWayland with it. What still carries the token fails the run."""
    for foot in reversed(list(sway.clients)):
        foot.close()
    detached = {pid for pid in carrying(sway.token) if pid != process.pid}
    xwayland = {p for p in detached if _comm(p) == "Xwayland"}
    strays = sorted(detached - xwayland)
    for pid in strays:
        stop_detached(pid)
    stop(process)
    deadline = time.monotonic() + START_TIMEOUT
    while (left := carrying(sway.token)) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in left:
        stop_detached(pid)
    if left:
        raise RuntimeError(f"processes of the test compositor outlived it: {left}")
    if strays:
        raise RuntimeError(f"processes started on the test compositor were left running: {strays}")


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


@contextmanager
def running_sway(
    tmp: Path, *, width: int = 2560, height: int = 1600, xwayland: bool = False
) -> Iterator[Sway]:
    """Start a headless sway with one ``width`` x ``height`` output and stop
    everything by pid on the way out (see the module's docstring)."""
    problem = missing()
    require(problem is None, problem or "")
    if xwayland:
        require(shutil.which("Xwayland") is not None, "Xwayland is not installed (apt: xwayland)")
        require(shutil.which("xprop") is not None, "xprop is not installed (apt: x11-utils)")
    token = secrets.token_hex(8)
    home = tmp / "sway-home"
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    config = tmp / "sway.conf"
    # "force": started now, not on the first X client, so it is there to find.
    config.write_text(
        _CONFIG.format(width=width, height=height, xwayland="force" if xwayland else "disable")
    )
    log = tmp / "sway.log"
    with ExitStack() as stack:
        runtime = Path(tempfile.mkdtemp(prefix="noru-sway-"))  # 0700
        stack.callback(shutil.rmtree, runtime, ignore_errors=True)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_RUNTIME_DIR": str(runtime),
            "WLR_BACKENDS": "headless",
            "WLR_RENDERER": "pixman",
            "WLR_LIBINPUT_NO_DEVICES": "1",
            _TOKEN: token,
        }
        args = ["sway", "-c", str(config)]
        if os.geteuid() == 0:
            # unshare execs sway: the pid we hold is sway's.
            user = [f"--map-user={_NAMESPACE_ID}", f"--map-group={_NAMESPACE_ID}"]
            args = ["unshare", "--user", *user, *args]
        with log.open("wb") as out:
            process = subprocess.Popen(
                args, env=env, stdout=out, stderr=out, stdin=subprocess.DEVNULL
            )
        sway = Sway(process.pid, runtime, "", Path(), {}, token, log)
        stack.callback(_stop_all, sway, process)
        display, swaysock, _ = _wait_ready(process, runtime, log, width, height)
        sway.wayland_display, sway.swaysock = display, swaysock
        sway.env = _client_env(runtime, display, swaysock, token)
        if xwayland:
            sway.x_display = _wait_xwayland(sway)
        yield sway


def enter_session(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], *, drop: Sequence[str] = ("DISPLAY",)
) -> None:
    """This process in a test session, as the app would be in it: the
    variables in ``drop`` gone (no X unless ``env`` names one), ``env`` set."""
    for name in drop:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)


def same(a: Image.Image, b: Image.Image) -> bool:
    """Whether two images hold the same pixels."""
    return ImageChops.difference(a, b).getbbox() is None


@pytest.fixture(scope="session")
def sway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sway]:
    with running_sway(tmp_path_factory.mktemp("sway")) as s:
        yield s


@pytest.fixture(scope="session")
def sway_two_outputs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sway]:
    with running_sway(tmp_path_factory.mktemp("sway-two")) as s:
        s.create_output(1920, 1080, scale=2, x=2560, y=0)
        yield s


@pytest.fixture(scope="session")
def sway_xwayland(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sway]:
    with running_sway(
        tmp_path_factory.mktemp("sway-x"), width=1280, height=800, xwayland=True
    ) as s:
        yield s
