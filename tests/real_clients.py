"""Real X clients showing text we give them, with the ground truth of what they show.

On an ``XServer`` from tests/xserver.py these start real programs, wait until
their window is mapped and drawn, and hand back a ``Client``: the window's
title, class and rectangle, and ``lines``, the exact text the window shows,
line by line as the program lays it out (clipped to what fits: text that
wraps or scrolls off is truth only where it is on screen).

This module holds what every kind of program shares (``Client``, starting a
program in a temporary folder of its own, finding its window, waiting until
it is drawn, stopping it) and the applications; the terminals (xterm and the
others) are in tests/real_terminals.py, built on the same plumbing.

- ``open_tk_text``: a Tk Text widget (this Python's tkinter), word-wrapped;
  Tk itself reports which display lines are fully visible.
- ``open_fields``: a form of labels and entries too narrow for their
  values, scrolled to their end or not, in Tk or GTK 3; the toolkit
  reports what each entry shows whole.
- ``open_gtk``: GTK3 ``Gtk.Label``s above a word-wrapped ``Gtk.TextView``,
  run by the system Python (python3-gi; a virtualenv cannot import gi); GTK
  reports the visible display lines.
- ``open_gtk_form``: a GTK3 form on a session bus of the caller's (its
  accessibility tree on): labels, an entry, a password entry holding a
  secret, a TextView of several lines and a button; GTK reports where each
  widget is (``Client.places``).
- ``open_qt_form``: the same form in Qt 6 (PySide6, this Python's), its
  accessibility tree on (``QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1``) or left
  off as Qt leaves it.
- ``open_chromium``: a local page in Debian's Chromium on a session bus of
  the caller's, its tree and its pages' text switched on or not.
- ``open_firefox``: a local HTML page in Firefox ESR with a fresh profile
  that turns off everything that reaches out (updates, telemetry, safe
  browsing, remote settings...). Each page element is one unwrapped line,
  and the page says (in its title) whether everything fit.

Every program is stopped by its own pid (Firefox with its process group)
when the client is closed, also when a start fails; each client's files
(the text, the profile, Firefox's HOME) live in a temporary folder removed
then. ``missing(kind)`` says what to install when an application is not
here (``real_terminals.missing`` for a terminal).
"""

from __future__ import annotations

import functools
import importlib.util
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, Self

import mss
from PIL import Image

from tests.processes import START_TIMEOUT, read_line
from tests.xserver import XServer, _title_pattern

if TYPE_CHECKING:
    from noru.capture import Capturer, Grab

__all__ = [
    "THEMES",
    "AppKind",
    "Client",
    "Kind",
    "Rect",
    "TerminalKind",
    "Theme",
    "check_text",
    "chromium_program",
    "find_window",
    "find_window_of",
    "firefox_program",
    "launch",
    "launch_script",
    "log_tail",
    "missing",
    "move_window",
    "new_title",
    "open_chromium",
    "open_fields",
    "open_firefox",
    "open_gtk",
    "open_gtk_form",
    "open_qt_form",
    "open_tk_text",
    "own_folders",
    "start_process",
    "wait_drawn",
]

# The applications this module opens, and the terminals tests/real_terminals.py opens.
AppKind = Literal["tk", "gtk", "firefox", "qt", "chromium"]
TerminalKind = Literal["xterm", "urxvt", "st", "xfce4-terminal", "konsole", "kitty", "alacritty"]
Kind = Literal[AppKind, TerminalKind]
Theme = Literal["light", "dark"]
Rect = tuple[int, int, int, int]

# Background and text colours per theme, the same for every program.
THEMES: dict[Theme, tuple[str, str]] = {
    "light": ("#ffffff", "#000000"),
    "dark": ("#1e1e1e", "#d4d4d4"),
}

SYSTEM_PYTHON = "/usr/bin/python3"

_LIBRARY_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib")
_QT_XCB_LIBRARIES = (
    ("libxcb-cursor.so.0", "libxcb-cursor0"),
    ("libxcb-icccm.so.4", "libxcb-icccm4"),
    ("libxcb-keysyms.so.1", "libxcb-keysyms1"),
    ("libxcb-image.so.0", "libxcb-image0"),
    ("libxcb-render-util.so.0", "libxcb-render-util0"),
    ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
)

_serial = itertools.count(1)


def firefox_program() -> str | None:
    return shutil.which("firefox-esr") or shutil.which("firefox")


@functools.cache
def _system_python_has_gtk() -> bool:
    if not Path(SYSTEM_PYTHON).exists():
        return False
    probe = "import gi; gi.require_version('Gtk', '3.0'); from gi.repository import Gtk"
    result = subprocess.run(
        [SYSTEM_PYTHON, "-c", probe], capture_output=True, timeout=START_TIMEOUT, check=False
    )
    return result.returncode == 0


def missing(kind: AppKind) -> str | None:
    """What to install for the application ``kind`` to run here, or None when it can."""
    if kind == "tk":
        try:
            import tkinter  # noqa: F401
        except ImportError:
            return "tkinter is not installed (apt: python3-tk)"
        return None
    if kind == "chromium":
        if chromium_program() is None:
            return "Chromium is not installed (apt: chromium)"
        return None
    if kind == "qt":
        if importlib.util.find_spec("PySide6") is None:
            return "PySide6 is not installed (pip: the test extra's PySide6-Essentials)"
        # Qt's X11 platform plugin needs these of Debian's, and says so only at start.
        for library, package in _QT_XCB_LIBRARIES:
            if not any(Path(d, library).exists() for d in _LIBRARY_DIRS):
                return f"Qt's X11 plugin needs {library} (apt: {package})"
        return None
    if kind == "gtk":
        if not _system_python_has_gtk():
            return f"{SYSTEM_PYTHON} cannot import GTK 3 (apt: python3-gi gir1.2-gtk-3.0)"
        return None
    if firefox_program() is None:
        return "Firefox is not installed (apt: firefox-esr)"
    return None


@dataclass
class Client:
    """A real program's window showing known text.

    ``rect`` is the client window (without the window manager's frame) in
    root coordinates, what a window capture grabs; ``title`` is the window's
    name, which the frame's title bar shows (Firefox adds its own name to the
    page's); ``app_class`` is the class part of WM_CLASS; ``lines`` is the
    text in the window, top to bottom (a terminal's: its rows, and the text
    of its menu bar or toolbar in ``chrome``).
    """

    kind: Kind
    title: str
    app_class: str
    rect: Rect
    lines: tuple[str, ...]
    window_id: str
    server: XServer
    _stop: Callable[[], None] = field(repr=False)
    _alive: Callable[[], bool] = field(repr=False)
    _closed: bool = field(default=False, repr=False)
    # Where the program says named parts of its window are (root coordinates).
    places: dict[str, Rect] = field(default_factory=dict)
    # A terminal's: the file it prints each line appended to (``print_line``).
    follow: Path | None = field(default=None, repr=False)
    # Text the window's own widgets show (a menu bar, a toolbar), not in
    # ``lines``: a terminal's rows are ``lines``, its menu's words are here.
    chrome: tuple[str, ...] = ()

    def print_line(self, text: str) -> None:
        """A terminal's: print one more line (scrolling it once it is full),
        and wait until it is drawn."""
        self.write(text + "\n")

    def rewrite_last_line(self, text: str) -> None:
        """A terminal's: write its last line over with ``text`` (the cursor
        rests on the row below it), and wait until it is drawn."""
        self.write(f"\033[1A\r\033[2K{text}\n")

    def write(self, raw: str) -> None:
        """A terminal's: what it prints next, escape sequences and all; waits
        until its pixels changed and settled."""
        if self.follow is None:
            raise TypeError(f"{self.kind} prints no more lines")
        x, y, w, h = self.rect
        with mss.MSS(display=self.server.display) as screen:
            before = screen.grab({"left": x, "top": y, "width": w, "height": h}).rgb
            with self.follow.open("a") as out:
                out.write(raw)
            deadline = time.monotonic() + START_TIMEOUT
            while screen.grab({"left": x, "top": y, "width": w, "height": h}).rgb == before:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{self.kind} did not print {raw!r}")
                time.sleep(0.02)
        wait_drawn(self.server, self.rect, None, f"{self.kind} {self.title!r}")

    @property
    def pid(self) -> int:
        """The window's process as the window says it (_NET_WM_PID)."""
        found = re.search(
            r"= (\d+)", self.server.run("xprop", "-id", self.window_id, "_NET_WM_PID")
        )
        if found is None:
            raise RuntimeError(f"window {self.window_id} names no process (_NET_WM_PID)")
        return int(found.group(1))

    @property
    def cell(self) -> tuple[int, int, int, int]:
        """A terminal's cell width and height and the padding left of and
        above its cells, as it tells the window manager (WM_NORMAL_HINTS:
        its resize increment is a cell, its base size the padding on both
        sides)."""
        out = self.server.run("xprop", "-id", self.window_id, "WM_NORMAL_HINTS")
        inc = re.search(r"resize increment: (\d+) by (\d+)", out)
        base = re.search(r"base size: (\d+) by (\d+)", out)
        if inc is None or base is None:
            raise RuntimeError(f"window {self.window_id} gives no cell size: {out!r}")
        return int(inc[1]), int(inc[2]), int(base[1]) // 2, int(base[2]) // 2

    @property
    def centre(self) -> tuple[int, int]:
        x, y, w, h = self.rect
        return (x + w // 2, y + h // 2)

    def activate(self) -> None:
        """Give it the focus through the window manager and wait until it has it."""
        self.server.run("xdotool", "windowactivate", "--sync", self.window_id)

    def bring_under_pointer(self) -> None:
        """Make it the active window with the pointer on it, as a person about to capture."""
        self.activate()
        self.server.move_pointer(*self.centre)

    def grab(self, capturer: Capturer) -> Grab:
        """The capture the shortcut takes with the pointer on it."""
        self.bring_under_pointer()
        (grab,) = capturer.grab_window("pointer")
        return grab

    def alive(self) -> bool:
        """Whether any of its processes still runs (Firefox's: any in its group)."""
        return self._alive()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._stop()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


# --- ground truth -----------------------------------------------------------------


def check_text(lines: Sequence[str]) -> None:
    # A tab or a control character would be drawn in ways the truth cannot
    # say in characters (xterm's tab stops, an escape sequence).
    for line in lines:
        if any(not char.isprintable() for char in line):
            raise ValueError(f"only printable characters, no tabs: {line!r}")


# --- starting and stopping ------------------------------------------------------------


def _stop_process(process: subprocess.Popen[str], *, group: bool = False) -> None:
    """Stop one process we started, by its pid (and with ``group``, its process
    group, which it leads: Firefox's content processes): SIGTERM, then SIGKILL."""

    def signal_it(signum: signal.Signals) -> None:
        try:
            if group:
                os.killpg(process.pid, signum)
            elif process.poll() is None:
                process.send_signal(signum)
        except ProcessLookupError:
            pass  # already gone

    signal_it(signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        signal_it(signal.SIGKILL)
        process.wait()
    if group:
        # The leader is gone; its children may still be shutting down.
        deadline = time.monotonic() + 10
        while _group_alive(process.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        signal_it(signal.SIGKILL)
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def log_tail(path: Path) -> str:
    try:
        return path.read_text(errors="replace")[-1500:]
    except OSError:
        return ""


def find_window(
    server: XServer, process: subprocess.Popen[str], pattern: str, what: str, log: Path
) -> str:
    """The id of the one visible window whose name matches ``pattern``, polled:
    failing (not hanging) when the program exits or never maps it."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with status {process.returncode}:\n{log_tail(log)}")
        found = subprocess.run(
            ["xdotool", "search", "--onlyvisible", "--name", pattern],
            env=server.env,
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT,
            check=False,
        ).stdout.split()
        if found:
            return found[-1]
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not show its window in {START_TIMEOUT:.0f} s")


def find_window_of(server: XServer, process: subprocess.Popen[str], what: str, log: Path) -> str:
    """The visible window of ``process`` (by _NET_WM_PID), polled."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with status {process.returncode}:\n{log_tail(log)}")
        found = subprocess.run(
            ["xdotool", "search", "--onlyvisible", "--pid", str(process.pid)],
            env=server.env, capture_output=True, text=True, timeout=START_TIMEOUT, check=False,
        ).stdout.split()  # fmt: skip
        if found:
            return found[-1]
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not show its window in {START_TIMEOUT:.0f} s")


def window_facts(server: XServer, window_id: str) -> tuple[Rect, str, str]:
    """The client window's rectangle in root coordinates, its name, and its class."""
    info = server.run("xwininfo", "-id", window_id)
    numbers = {
        key: int(re.search(rf"{key}:\s+(-?\d+)", info).group(1))  # type: ignore[union-attr]
        for key in ("Absolute upper-left X", "Absolute upper-left Y", "Width", "Height")
    }
    rect = (
        numbers["Absolute upper-left X"],
        numbers["Absolute upper-left Y"],
        numbers["Width"],
        numbers["Height"],
    )
    name = server.run("xdotool", "getwindowname", window_id).rstrip("\n")
    wm_class = server.run("xprop", "-id", window_id, "WM_CLASS")
    classes = re.findall(r'"([^"]*)"', wm_class)
    return rect, name, classes[-1] if classes else ""


def move_window(server: XServer, window_id: str, x: int, y: int) -> None:
    """Move the window's frame to ``x, y`` and wait until it is there.

    Not ``windowmove --sync``: it waits for a move, so it hangs when the
    window is already in place. The frame's extents say where the client
    window lands.
    """
    extents = server.run("xprop", "-id", window_id, "_NET_FRAME_EXTENTS")
    left, _, top, _ = (int(n) for n in re.findall(r"\d+", extents)) if "=" in extents else (0,) * 4
    server.run("xdotool", "windowmove", window_id, str(x), str(y))
    deadline = time.monotonic() + START_TIMEOUT
    # Most windows' frames land there; a window of static gravity (konsole,
    # kitty) is placed there itself.
    while window_facts(server, window_id)[0][:2] not in ((x + left, y + top), (x, y)):
        if time.monotonic() > deadline:
            raise RuntimeError(f"window {window_id} did not move to {x},{y}")
        time.sleep(0.05)


def wait_drawn(
    server: XServer, rect: Rect, process: subprocess.Popen[str] | None, what: str
) -> None:
    """Until the window's pixels hold more than one colour and stay the same
    over three looks 0.1 s apart: the program has drawn, and finished drawing."""
    x, y, w, h = rect
    area = {"left": x, "top": y, "width": w, "height": h}
    deadline = time.monotonic() + START_TIMEOUT
    same, previous = 0, b""
    with mss.MSS(display=server.display) as screen:
        while time.monotonic() < deadline:
            if process is not None and process.poll() is not None:
                raise RuntimeError(f"{what} exited with status {process.returncode}")
            pixels = screen.grab(area).rgb
            # An RGB image's extrema: a (low, high) pair per band.
            extrema = Image.frombytes("RGB", (w, h), pixels).getextrema()
            drawn = any(low != high for low, high in extrema)  # type: ignore[misc]
            same = same + 1 if drawn and pixels == previous else 0
            if same >= 2:
                return
            previous = pixels
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not finish drawing in {START_TIMEOUT:.0f} s")


def start_process(
    args: Sequence[str],
    *,
    env: dict[str, str],
    log: Path,
    pipe: bool = False,
    own_group: bool = False,
) -> subprocess.Popen[str]:
    with log.open("w") as out:
        return subprocess.Popen(
            list(args),
            env=env,
            stdout=subprocess.PIPE if pipe else out,
            stderr=out,
            stdin=subprocess.DEVNULL,
            text=True,
            start_new_session=own_group,
        )


def launch(
    server: XServer,
    kind: Kind,
    title: str,
    start: Callable[[Path], tuple[subprocess.Popen[str], bool]],
    ready: Callable[[subprocess.Popen[str], Path, Path], tuple[str, tuple[str, ...]]],
    *,
    problem: str | None,
    after: Callable[[], None] | None = None,
) -> Client:
    """Run ``start(folder)`` (the process, and whether it leads its own group),
    then ``ready(process, folder, log)`` (the window id and the lines shown once
    it is mapped); wait for the pixels; stop everything if any of that fails.
    ``problem``: what the caller found missing to run ``kind`` (its
    ``missing``), raised as it is instead of starting anything; ``after``:
    what to undo once the program is stopped (also when it failed to start)."""
    if problem is not None:
        if after is not None:
            after()
        raise RuntimeError(problem)
    folder = Path(tempfile.mkdtemp(prefix=f"noru-{kind}-"))
    process: subprocess.Popen[str] | None = None
    group = False

    def stop() -> None:
        try:
            if process is not None:
                _stop_process(process, group=group)
            shutil.rmtree(folder, ignore_errors=True)
        finally:
            if after is not None:
                after()

    try:
        process, group = start(folder)
        log = folder / "log"
        window_id, lines = ready(process, folder, log)
        rect, name, app_class = window_facts(server, window_id)
        wait_drawn(server, rect, process, f"{kind} {title!r}")
    except BaseException:
        stop()
        raise

    def alive() -> bool:
        assert process is not None
        return _group_alive(process.pid) if group else process.poll() is None

    return Client(kind, name, app_class, rect, lines, window_id, server, stop, alive)


def new_title(kind: str) -> str:
    return f"Noru {kind} {next(_serial)}"


def own_folders(folder: Path) -> dict[str, str]:
    """The environment that keeps a program's caches, settings (dconf) and
    runtime files in its client's ``folder``, not the person's home."""
    return {
        "XDG_CACHE_HOME": str(folder),
        "XDG_CONFIG_HOME": str(folder),
        "XDG_RUNTIME_DIR": str(folder),
    }


def launch_script(
    server: XServer,
    kind: AppKind,
    title: str,
    script: tuple[str, str],
    params: Mapping[str, Any],
    *,
    env: Callable[[Path], dict[str, str]],
    lines: Callable[[Any], tuple[str, ...]],
) -> Client:
    """A window titled ``title`` opened by a script: ``script`` is (the Python
    that runs it, its source), given ``params`` as JSON in ``sys.argv[1]``
    and ``env(folder)`` as its environment. Once drawn, it prints one JSON
    line, its report of what it shows; ``lines(report)`` is the client's
    ``lines`` (and may keep more of the report, its widgets' places)."""
    program, source = script

    def start(folder: Path) -> tuple[subprocess.Popen[str], bool]:
        args = [program, "-c", source, json.dumps(params)]
        return start_process(args, env=env(folder), log=folder / "log", pipe=True), False

    def ready(
        process: subprocess.Popen[str], folder: Path, log: Path
    ) -> tuple[str, tuple[str, ...]]:
        assert process.stdout is not None
        what = f"{kind} {title!r}"
        report = json.loads(read_line(process, process.stdout, what))
        window = find_window(server, process, _title_pattern(title), what, log)
        return window, lines(report)

    return launch(server, kind, title, start, ready, problem=missing(kind))


# --- Tk ------------------------------------------------------------------------------

_TK_TEXT = """
import json, sys, tkinter as tk, tkinter.font as tkfont
p = json.loads(sys.argv[1])
root = tk.Tk(className=p["class_name"])
root.title(p["title"])
root.geometry("{width}x{height}+{x}+{y}".format(**p))
text = tk.Text(
    root, wrap="word", font=(p["family"], p["size"]), background=p["background"],
    foreground=p["foreground"], borderwidth=0, highlightthickness=0, padx=10, pady=10,
)
text.insert("1.0", "\\n".join(p["lines"]))
text.configure(state="disabled")  # no insertion cursor
text.pack(fill="both", expand=True)
root.wait_visibility()
root.update()
# The display lines Tk drew whole, in its own words; the text below them is
# deleted, so no line shows cut in half at the bottom.
# (dlineinfo gives a line's visible height: compare the whole font's.)
line_height = tkfont.Font(font=text["font"]).metrics("linespace")
shown, index, bottom = [], "1.0", text.winfo_height() - 10
while True:
    info = text.dlineinfo(index)
    if info is None or info[1] + max(info[3], line_height) > bottom:
        text.configure(state="normal")
        text.delete(index, "end")
        text.configure(state="disabled")
        root.update()
        break
    after = text.index(index + " +1 display lines display linestart")
    last = text.compare(after, "<=", index)
    if last:
        after = text.index(index + " lineend")
    shown.append(text.get(index, after).rstrip("\\n"))
    if last:
        break
    index = after
print(json.dumps(shown), flush=True)
root.mainloop()
"""


def open_tk_text(
    server: XServer,
    lines: Sequence[str],
    *,
    size: int = 10,
    family: str = "DejaVu Sans Mono",
    theme: Theme = "light",
    x: int = 0,
    y: int = 0,
    width: int = 900,
    height: int = 600,
    title: str | None = None,
) -> Client:
    """A Tk Text widget filling a window, word-wrapping ``lines`` at ``size`` points."""
    check_text(lines)
    title = title or new_title("tk")
    background, foreground = THEMES[theme]
    params = {
        "title": title,
        "class_name": "Noru-text",
        "lines": list(lines),
        "family": family,
        "size": size,
        "background": background,
        "foreground": foreground,
        **{"x": x, "y": y, "width": width, "height": height},
    }

    return launch_script(
        server, "tk", title, (sys.executable, _TK_TEXT), params,
        env=lambda folder: server.env, lines=tuple,
    )  # fmt: skip


_TK_FIELDS = """
import json, sys, tkinter as tk
from tkinter import ttk
p = json.loads(sys.argv[1])
root = tk.Tk(className="Noru-fields")
style = ttk.Style(root)
style.theme_use("clam")
style.configure("Field.TEntry", padding=(6, 4), fieldbackground=p["background"],
                foreground=p["foreground"])
root.title(p["title"])
root.geometry("+{x}+{y}".format(**p))
root.configure(background=p["background"], padx=16, pady=16)
font = (p["family"], p["size"])
entries = []
for n, (label, value) in enumerate(p["fields"]):
    tk.Label(root, text=label, font=font, background=p["background"],
             foreground=p["foreground"]).grid(row=n, column=0, sticky="w", padx=(0, 12), pady=6)
    entry = ttk.Entry(root, width=p["chars"], font=font, style="Field.TEntry")
    entry.insert(0, value)
    entry.grid(row=n, column=1, sticky="w", pady=6)
    entries.append(entry)
root.wait_visibility()
root.update()
for entry in entries:
    entry.icursor("end")
    entry.xview_moveto(1.0 if p["end"] else 0.0)
root.update()
# What each entry shows whole: from its first character in view to its last
# (a character the entry's edge cuts is left out).
shown = []
for entry in entries:
    value, width = entry.get(), entry.winfo_width()
    first, last = entry.index("@2"), entry.index("@%d" % (width - 3))
    if first < len(value) and entry.bbox(first)[0] < 0:
        first += 1
    if last < len(value):
        x, _, w, _ = entry.bbox(last)
        if x + w > width - 2:
            last -= 1
    shown.append([value[first : last + 1],
                  [entry.winfo_rootx(), entry.winfo_rooty(), width, entry.winfo_height()]])
print(json.dumps(shown), flush=True)
root.mainloop()
"""


# --- GTK 3 ----------------------------------------------------------------------------

# What every GTK script starts with: the system Python's GTK 3, its ``p``
# (the parameters), its program's name and class (``p["program"]``), its
# theme and font, and its ``window`` titled and placed.
_GTK_START = """
import json, sys
import gi
gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk, Pango
p = json.loads(sys.argv[1])
GLib.set_prgname(p["program"])
Gdk.set_program_class(p["program"].capitalize())
Gtk.Settings.get_default().props.gtk_application_prefer_dark_theme = p["dark"]
css = Gtk.CssProvider()
rule = '* { font-family: "%s"; font-size: %dpt; }' % (p["family"], p["size"])
css.load_from_data(rule.encode())
Gtk.StyleContext.add_provider_for_screen(
    Gdk.Screen.get_default(), css, Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION
)
window = Gtk.Window(title=p["title"])
window.move(p["x"], p["y"])
"""


def _gtk_params(
    program: str, title: str, *, family: str = "DejaVu Sans", size: int = 10, dark: bool = False
) -> dict[str, Any]:
    """The parameters ``_GTK_START`` reads (with the caller's ``x`` and ``y``)."""
    return {"program": program, "title": title, "family": family, "size": size, "dark": dark}


_GTK = (
    _GTK_START
    + """
window.set_default_size(p["width"], p["height"])
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8, margin=14)
for text in p["labels"]:
    box.pack_start(Gtk.Label(label=text, xalign=0), False, False, 0)
view = Gtk.TextView(wrap_mode=Gtk.WrapMode.WORD, editable=False, cursor_visible=False)
view.get_buffer().set_text("\\n".join(p["lines"]))
# Clipped to the window, no scrollbar: the window keeps its size, whatever
# the text's length, and shows only text.
scrolled = Gtk.ScrolledWindow()
scrolled.set_policy(Gtk.PolicyType.NEVER, Gtk.PolicyType.EXTERNAL)
scrolled.add(view)
box.pack_start(scrolled, True, True, 0)
window.add(box)

def visible_lines():
    # The display lines GTK laid out wholly inside the view, in its own words,
    # and where the first one that is not begins.
    area, buffer = view.get_visible_rect(), view.get_buffer()
    line, shown = buffer.get_start_iter(), []
    while True:
        # The first character's box: its display line's (get_line_yrange
        # would give the whole paragraph's).
        place = view.get_iter_location(line)
        if place.y + place.height > area.y + area.height:
            return shown, line
        following = line.copy()
        last = not view.forward_display_line(following)
        if last:
            following = buffer.get_end_iter()
        shown.append(buffer.get_text(line, following, True).rstrip("\\n"))
        if last:
            return shown, None
        line = following

state = {"shown": None}
def report():
    shown, cut = visible_lines()
    if cut is not None and state["shown"] is None:
        # Delete what does not fit, so no line shows cut in half at the
        # bottom, and report after the next frame, drawn without it.
        state["shown"] = shown
        buffer = view.get_buffer()
        buffer.delete(cut, buffer.get_end_iter())
        return False
    print(json.dumps(list(p["labels"]) + (state["shown"] or shown)), flush=True)
    state["done"] = True
    return False

def painted(clock):
    if not state.get("done") and not state.get("queued"):
        state["queued"] = True
        def run():
            state["queued"] = False
            return report()
        GLib.idle_add(run)

window.connect("destroy", Gtk.main_quit)
window.show_all()
window.get_window().get_frame_clock().connect("after-paint", painted)
Gtk.main()
"""
)


def open_gtk(
    server: XServer,
    labels: Sequence[str],
    lines: Sequence[str],
    *,
    size: int = 10,
    theme: Theme = "light",
    x: int = 0,
    y: int = 0,
    width: int = 900,
    height: int = 600,
    title: str | None = None,
) -> Client:
    """GTK 3 ``labels`` (one line each) above a word-wrapped TextView of ``lines``."""
    check_text([*labels, *lines])
    title = title or new_title("gtk")
    params = {
        **_gtk_params("noru-gtk", title, size=size, dark=theme == "dark"),
        "labels": list(labels),
        "lines": list(lines),
        **{"x": x, "y": y, "width": width, "height": height},
    }

    def env(folder: Path) -> dict[str, str]:
        # No accessibility bus here; without NO_AT_BRIDGE GTK warns about it.
        return {**server.env, "NO_AT_BRIDGE": "1", **own_folders(folder)}

    return launch_script(server, "gtk", title, (SYSTEM_PYTHON, _GTK), params, env=env, lines=tuple)


_GTK_FORM = (
    _GTK_START
    + """
window.set_default_size(p["width"], p["height"])
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8, margin=14)
widgets = {}
for n, text in enumerate(p["labels"]):
    widgets[f"label {n}"] = Gtk.Label(label=text, xalign=0)
widgets["entry"] = Gtk.Entry(text=p["entry"])
widgets["password"] = Gtk.Entry(text=p["secret"], visibility=False)
view = Gtk.TextView(editable=False, cursor_visible=False)
view.get_buffer().set_text("\\n".join(p["view"]))
widgets["view"] = view
widgets["button"] = Gtk.Button(label=p["button"])
grid = Gtk.Grid(column_spacing=6, row_spacing=2)
for n, text in enumerate(p["cells"]):
    grid.attach(Gtk.Label(label=text), n % p["columns"], n // p["columns"], 1, 1)
for name, widget in widgets.items():
    box.pack_start(widget, False, False, 0)
box.pack_start(grid, False, False, 0)
window.add(box)

def places():
    _, ox, oy = window.get_window().get_origin()
    found = {}
    for name, widget in widgets.items():
        x, y = widget.translate_coordinates(window, 0, 0)
        a = widget.get_allocation()
        found[name] = [ox + x, oy + y, a.width, a.height]
    return found

# A TextView lays its text out in idle time after the first frame, and the
# widgets below it move then: report once the places held for 0.3 s.
state = {"painted": False, "last": None, "same": 0}
def painted(clock):
    state["painted"] = True
def settle():
    if not state["painted"]:
        return True
    now = places()
    state["same"] = state["same"] + 1 if now == state["last"] else 0
    state["last"] = now
    if state["same"] < 6:
        return True
    print(json.dumps(now), flush=True)
    return False

window.connect("destroy", Gtk.main_quit)
window.show_all()
window.get_window().get_frame_clock().connect("after-paint", painted)
GLib.timeout_add(50, settle)
Gtk.main()
"""
)


def open_gtk_form(
    server: XServer,
    bus: Mapping[str, str],
    *,
    labels: Sequence[str],
    entry: str,
    secret: str,
    view: Sequence[str],
    button: str,
    cells: Sequence[str] = (),
    columns: int = 20,
    x: int = 40,
    y: int = 40,
    width: int = 700,
    height: int = 500,
    title: str | None = None,
) -> Client:
    """A GTK3 form with its accessibility tree on the session bus ``bus``
    (its ``DBUS_SESSION_BUS_ADDRESS``): ``labels`` one under another, an entry
    showing ``entry``, a password entry holding ``secret`` (masked), a
    TextView of the ``view`` lines, a button labelled ``button``, then
    ``cells`` as labels in a grid of ``columns``. ``places`` holds each
    widget's rectangle as GTK lays it out: ``"label N"``, ``"entry"``,
    ``"password"``, ``"view"``, ``"button"``."""
    check_text([*labels, entry, *view, button, *cells])
    title = title or new_title("gtk-form")
    params = {
        **_gtk_params("noru-gtk-form", title),
        "labels": list(labels),
        "entry": entry,
        "secret": secret,
        "view": list(view),
        "button": button,
        "cells": list(cells),
        "columns": columns,
        **{"x": x, "y": y, "width": width, "height": height},
    }
    places: dict[str, Rect] = {}

    def env(folder: Path) -> dict[str, str]:
        env = {**server.env, **bus, **own_folders(folder)}
        env.pop("NO_AT_BRIDGE", None)
        return env

    def lines(reported: dict[str, list[int]]) -> tuple[str, ...]:
        places.update(_places(reported))
        return (*labels, entry, *view, button, *cells)

    client = launch_script(
        server, "gtk", title, (SYSTEM_PYTHON, _GTK_FORM), params, env=env, lines=lines
    )
    client.places = places
    return client


def _places(reported: dict[str, list[int]]) -> dict[str, Rect]:
    """A form's report of where its widgets are, by name."""
    return {name: (x, y, w, h) for name, (x, y, w, h) in reported.items()}


_GTK_FIELDS = (
    _GTK_START
    + """
grid = Gtk.Grid(column_spacing=12, row_spacing=8, margin=16)
entries = []
for n, (label, value) in enumerate(p["fields"]):
    grid.attach(Gtk.Label(label=label, xalign=0), 0, n, 1, 1)
    entry = Gtk.Entry(text=value, width_chars=p["chars"], max_width_chars=p["chars"])
    grid.attach(entry, 1, n, 1, 1)
    entries.append(entry)
window.add(grid)
window.connect("destroy", Gtk.main_quit)

def scroll():
    for entry in entries:
        entry.set_position(-1 if p["end"] else 0)
    window.set_focus(None)  # no insertion cursor drawn beside a value
    GLib.timeout_add(300, report)
    return False

# What each entry shows whole (a character its text area's edge cuts is
# left out), by its layout's own positions, and where the entry is.
def report():
    _, ox, oy = window.get_window().get_origin()
    shown = []
    for entry in entries:
        layout, (lx, _) = entry.get_layout(), entry.get_layout_offsets()
        area, text = entry.get_text_area(), entry.get_text()
        inside = []
        for i in range(len(text)):
            box = layout.index_to_pos(len(text[:i].encode()))
            left = lx + box.x / Pango.SCALE
            if area.x <= left and left + box.width / Pango.SCALE <= area.x + area.width:
                inside.append(i)
        x, y = entry.translate_coordinates(window, 0, 0)
        a = entry.get_allocation()
        part = text[inside[0] : inside[-1] + 1] if inside else ""
        shown.append([part, [ox + x, oy + y, a.width, a.height]])
    print(json.dumps(shown), flush=True)
    return False

window.show_all()
GLib.timeout_add(300, scroll)
Gtk.main()
"""
)


def open_fields(
    server: XServer,
    kind: Literal["tk", "gtk"],
    fields: Sequence[tuple[str, str]],
    *,
    chars: int = 22,
    end: bool = True,
    size: int = 10,
    family: str = "DejaVu Sans",
    theme: Theme = "light",
    x: int = 40,
    y: int = 40,
    title: str | None = None,
) -> Client:
    """A form in Tk (this Python's tkinter, ttk's clam theme) or GTK 3 (the
    system Python's): each of ``fields`` a label and, beside it, an entry
    ``chars`` average characters wide holding a value, scrolled to the
    value's end as after a paste (with ``end``; else its start), no
    insertion cursor drawn. ``lines`` is what each entry shows whole, as
    the toolkit says (Tk's indexes, GTK's Pango layout);
    ``places["field N"]`` each entry's rectangle."""
    check_text([text for pair in fields for text in pair])
    title = title or new_title(f"{kind}-fields")
    background, foreground = THEMES[theme]
    params = {  # GTK's script reads them all, Tk's what it needs
        **_gtk_params("noru-gtk-fields", title, family=family, size=size, dark=theme == "dark"),
        "fields": [list(pair) for pair in fields],
        "chars": chars,
        "end": end,
        "background": background,
        "foreground": foreground,
        **{"x": x, "y": y},
    }
    places: dict[str, Rect] = {}

    def lines(shown: list[tuple[str, list[int]]]) -> tuple[str, ...]:
        places.update(_places({f"field {n}": rect for n, (_, rect) in enumerate(shown)}))
        return tuple(text for text, _ in shown)

    script = (sys.executable, _TK_FIELDS) if kind == "tk" else (SYSTEM_PYTHON, _GTK_FIELDS)
    client = launch_script(
        server, kind, title, script, params,
        env=lambda folder: {**server.env, **own_folders(folder)}, lines=lines,
    )  # fmt: skip
    client.places.update(places)
    return client


# --- Qt -------------------------------------------------------------------------------

_QT_FORM = """
import json, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget
p = json.loads(sys.argv[1])
app = QApplication(["noru-qt-form"])
window = QWidget()
window.setWindowTitle(p["title"])
window.move(p["x"], p["y"])
window.resize(p["width"], p["height"])
layout = QVBoxLayout(window)
widgets = {f"label {n}": QLabel(text) for n, text in enumerate(p["labels"])}
widgets["entry"] = QLineEdit(p["entry"])
widgets["password"] = QLineEdit(p["secret"])
widgets["password"].setEchoMode(QLineEdit.EchoMode.Password)
widgets["button"] = QPushButton(p["button"])
for widget in widgets.values():
    layout.addWidget(widget)
layout.addStretch()
window.show()

# Report the places once they held for 0.3 s (the layout settles after show).
state = {"last": None, "same": 0}
def settle():
    now = {}
    for name, widget in widgets.items():
        corner = widget.mapToGlobal(widget.rect().topLeft())
        now[name] = [corner.x(), corner.y(), widget.width(), widget.height()]
    state["same"] = state["same"] + 1 if now == state["last"] else 0
    state["last"] = now
    if state["same"] >= 6:
        timer.stop()
        print(json.dumps(now), flush=True)
timer = QTimer()
timer.timeout.connect(settle)
timer.start(50)
app.exec()
"""


def open_qt_form(
    server: XServer,
    bus: Mapping[str, str],
    *,
    labels: Sequence[str],
    entry: str,
    secret: str,
    button: str,
    accessible: bool = True,
    x: int = 40,
    y: int = 40,
    width: int = 600,
    height: int = 360,
    title: str | None = None,
) -> Client:
    """A Qt 6 form on the session bus ``bus``: ``labels`` one under another, an
    entry showing ``entry``, a password entry holding ``secret`` (masked) and
    a button labelled ``button``. With ``accessible`` Qt exposes its tree
    (``QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1``); without, it does not (Qt's
    default while the session's switch is off). ``places`` as for
    ``open_gtk_form``."""
    check_text([*labels, entry, button])
    title = title or new_title("qt-form")
    params = {
        "title": title,
        "labels": list(labels),
        "entry": entry,
        "secret": secret,
        "button": button,
        **{"x": x, "y": y, "width": width, "height": height},
    }
    places: dict[str, Rect] = {}

    def env(folder: Path) -> dict[str, str]:
        env = {**server.env, **bus, "QT_QPA_PLATFORM": "xcb", **own_folders(folder)}
        env.pop("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", None)
        if accessible:
            env["QT_LINUX_ACCESSIBILITY_ALWAYS_ON"] = "1"
        return env

    def lines(reported: dict[str, list[int]]) -> tuple[str, ...]:
        places.update(_places(reported))
        return (*labels, entry, button)

    client = launch_script(
        server, "qt", title, (sys.executable, _QT_FORM), params, env=env, lines=lines
    )
    client.places = places
    return client


# --- Firefox ----------------------------------------------------------------------------

# A fresh profile that reaches out to nothing and shows nothing but the page.
# Everything that would fetch is off, and a proxy that refuses is the last
# guard: whatever is left fails at once on this machine, not over the network.
_PREFS: dict[str, bool | int | str] = {
    "app.normandy.enabled": False,
    "app.shield.optoutstudies.enabled": False,
    "app.update.auto": False,
    "app.update.disabledForTesting": True,
    "app.update.enabled": False,
    "browser.aboutwelcome.enabled": False,
    "browser.discovery.enabled": False,
    "browser.newtabpage.activity-stream.feeds.section.topstories": False,
    "browser.newtabpage.activity-stream.feeds.snippets": False,
    "browser.newtabpage.activity-stream.feeds.telemetry": False,
    "browser.newtabpage.activity-stream.telemetry": False,
    "browser.newtabpage.enabled": False,
    "browser.ping-centre.telemetry": False,
    "browser.region.network.url": "",
    "browser.region.update.enabled": False,
    "browser.safebrowsing.blockedURIs.enabled": False,
    "browser.safebrowsing.downloads.enabled": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "browser.safebrowsing.provider.google4.updateURL": "",
    "browser.safebrowsing.provider.mozilla.updateURL": "",
    "browser.search.update": False,
    "browser.sessionstore.resume_from_crash": False,
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.startup.page": 0,
    "browser.tabs.firefox-view": False,
    "browser.tabs.warnOnClose": False,
    "browser.translations.enabled": False,
    "browser.uitour.enabled": False,
    "browser.urlbar.quicksuggest.enabled": False,
    "browser.urlbar.suggest.quicksuggest.sponsored": False,
    "datareporting.healthreport.uploadEnabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.policy.dataSubmissionPolicyBypassNotification": True,
    "datareporting.policy.firstRunURL": "",
    "dom.push.connection.enabled": False,
    "dom.push.serverURL": "",
    "extensions.blocklist.enabled": False,
    "extensions.getAddons.cache.enabled": False,
    "extensions.systemAddon.update.enabled": False,
    "extensions.update.enabled": False,
    "geo.provider.network.url": "",
    "identity.fxaccounts.enabled": False,
    "media.gmp-gmpopenh264.enabled": False,
    "media.gmp-manager.url": "",
    "media.gmp-widevinecdm.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "network.dns.disablePrefetch": True,
    "network.http.speculative-parallel-limit": 0,
    "network.prefetch-next": False,
    "network.proxy.type": 1,
    "network.proxy.http": "127.0.0.1",
    "network.proxy.http_port": 9,
    "network.proxy.ssl": "127.0.0.1",
    "network.proxy.ssl_port": 9,
    "network.proxy.socks": "127.0.0.1",
    "network.proxy.socks_port": 9,
    "network.proxy.socks_remote_dns": True,
    "network.trr.mode": 5,
    "services.settings.server": "",
    "signon.rememberSignons": False,
    "startup.homepage_welcome_url": "about:blank",
    "startup.homepage_welcome_url.additional": "",
    "toolkit.telemetry.archive.enabled": False,
    "toolkit.telemetry.enabled": False,
    "toolkit.telemetry.server": "",
    "toolkit.telemetry.unified": False,
}

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{loading}</title>
<style>
body {{ margin: 24px 32px; background: {background}; color: {foreground};
        font-family: "DejaVu Sans"; font-size: {size}px; }}
h1 {{ font-size: {heading}px; margin: 0 0 16px; }}
p {{ margin: 0 0 {gap}px; white-space: pre; }}
</style></head>
<body><h1>{h1}</h1>
{paragraphs}
<script>
// Two frames after load the page is drawn; the title then says so, and
// whether every line fit in the window without wrapping or scrolling.
addEventListener("load", () => requestAnimationFrame(() => requestAnimationFrame(() => {{
  const page = document.documentElement;
  const fits = page.scrollHeight <= innerHeight && page.scrollWidth <= innerWidth;
  document.title = {title} + (fits ? "" : " (overflow)");{report}
}})));
</script></body></html>
"""

# With ``layout``: once drawn, and again two frames after each resize of
# its viewport (Chromium's bar over the page may show after the page is
# drawn, and push it down), the page posts where the browser laid out
# each character of each line (its DOM Range's client rect, CSS pixels of
# the viewport) and where the viewport is, as JSON to that loopback URL.
_REPORT = """
  const report = () => {{
  const lines = [...document.querySelectorAll("p")].map((p) => {{
    const node = p.firstChild, range = document.createRange(), chars = [];
    for (let i = 0; node && i < node.length; i++) {{
      range.setStart(node, i); range.setEnd(node, i + 1);
      const r = range.getBoundingClientRect();
      chars.push([r.left, r.top, r.right, r.bottom]);
    }}
    return {{text: node ? node.data : "", chars}};
  }});
  navigator.sendBeacon({url}, JSON.stringify({{
    lines, inner: [innerWidth, innerHeight], outer: [outerWidth, outerHeight],
    screen: [window.mozInnerScreenX ?? null, window.mozInnerScreenY ?? null],
    ratio: devicePixelRatio}}));
  }};
  report();
  addEventListener("resize", () => requestAnimationFrame(() => requestAnimationFrame(report)));"""

# What each browser adds to a page's title in its window's name, and that
# as a pattern (Firefox's dash is matched as any text).
_BROWSER_TITLES = {
    "firefox": (" — Mozilla Firefox", " .* Mozilla Firefox$"),
    "chromium": (" - Chromium", " - Chromium$"),
}


def _page_window(
    server: XServer,
    process: subprocess.Popen[str],
    log: Path,
    kind: Literal["firefox", "chromium"],
    title: str,
    size: tuple[int, int],
) -> str:
    """The browser's window once the page titled ``title`` is drawn;
    ``ValueError`` when the page says that it did not fit in ``size``."""
    suffix, pattern = _BROWSER_TITLES[kind]
    found = _title_pattern(title)[:-1] + "( [(]overflow[)])?" + pattern
    window = find_window(server, process, found, f"{kind} {title!r}", log)
    name = server.run("xdotool", "getwindowname", window).rstrip("\n")
    if name != title + suffix:
        raise ValueError(f"the page does not fit in {size[0]}x{size[1]}: {name!r}")
    return window


@dataclass(frozen=True)
class _Page:
    """What a browser is opened on: ``heading`` and ``lines`` at ``size``
    pixels in ``theme``, posting its layout to ``layout`` (``_write_page``)."""

    heading: str
    lines: tuple[str, ...]
    size: int
    theme: Theme
    layout: str | None


def _open_page(
    server: XServer,
    kind: Literal["firefox", "chromium"],
    title: str,
    page: _Page,
    env: Mapping[str, str],
    command: Callable[[Path, str], list[str]],
    *,
    size: tuple[int, int],
    place: tuple[int, int] | None = None,
) -> Client:
    """A browser showing ``page``, titled ``title``: ``command(folder, url)``
    makes its profile in the client's folder and gives its command line;
    ``env`` its environment, to which its HOME, caches and settings in that
    folder are added. ``place``: where to move the window once it is found
    (for a browser with no option for it). Its lines: the tab's title, the
    address where the browser shows it (Firefox), the heading, the lines."""
    shown: list[str] = []

    def start(folder: Path) -> tuple[subprocess.Popen[str], bool]:
        url = _write_page(
            folder, page.heading, page.lines, title=title, size=page.size, theme=page.theme,
            layout=page.layout,
        )  # fmt: skip
        shown.extend([title, *([url] if kind == "firefox" else []), page.heading, *page.lines])
        home = {
            "HOME": str(folder),
            "XDG_CACHE_HOME": str(folder / "cache"),
            "XDG_CONFIG_HOME": str(folder / "config"),
        }
        # Its own process group: a browser is many processes, stopped together.
        args = command(folder, url)
        return start_process(args, env={**env, **home}, log=folder / "log", own_group=True), True

    def ready(
        process: subprocess.Popen[str], folder: Path, log: Path
    ) -> tuple[str, tuple[str, ...]]:
        window = _page_window(server, process, log, kind, title, size)
        if place is not None:
            move_window(server, window, *place)
        return window, tuple(shown)

    return launch(server, kind, title, start, ready, problem=missing(kind))


def _write_page(
    folder: Path,
    heading: str,
    lines: Sequence[str],
    *,
    title: str,
    size: int,
    theme: Theme,
    layout: str | None = None,
) -> str:
    """The page of ``heading`` and ``lines`` written in ``folder``; its URL.
    ``layout``: a loopback URL the page posts its lines' layout to (``_REPORT``)."""
    background, foreground = THEMES[theme]
    page = folder / "page.html"
    page.write_text(
        _PAGE.format(
            # Not the final title with more after it: the window's name
            # must not match the final one's pattern before the page is drawn.
            loading=escape(f"Loading {title}"),
            title=json.dumps(title),
            background=background,
            foreground=foreground,
            size=size,
            heading=round(size * 1.75),
            gap=round(size * 0.6),
            h1=escape(heading),
            paragraphs="\n".join(f"<p>{escape(line)}</p>" for line in lines),
            report=_REPORT.format(url=json.dumps(layout)) if layout else "",
        )
    )
    return page.as_uri()


def open_firefox(
    server: XServer,
    heading: str,
    lines: Sequence[str],
    *,
    size: int = 16,
    theme: Theme = "light",
    x: int = 0,
    y: int = 0,
    width: int = 1200,
    height: int = 900,
    title: str | None = None,
    bus: Mapping[str, str] | None = None,
    layout: str | None = None,
) -> Client:
    """A local page in Firefox: ``heading`` then ``lines``, one paragraph each,
    never wrapped. ``lines`` of the client are what its window shows: the tab's
    title, the address, the heading and the lines; ``ValueError`` when they do
    not all fit. With ``bus`` (a session bus's ``DBUS_SESSION_BUS_ADDRESS``),
    Firefox exposes its accessibility tree there (``GNOME_ACCESSIBILITY=1``).
    ``layout``: a loopback URL the page posts its lines' layout to once drawn
    (``_REPORT``: where the browser put each character)."""
    check_text([heading, *lines])
    title = title or new_title("page")
    program = firefox_program()
    env = {
        **server.env,
        "MOZ_CRASHREPORTER_DISABLE": "1",  # else a crash helper outlives the group
        "NO_AT_BRIDGE": "1",
    }
    if bus is not None:
        del env["NO_AT_BRIDGE"]
        env.update({**bus, "GNOME_ACCESSIBILITY": "1"})

    def command(folder: Path, url: str) -> list[str]:
        profile = folder / "profile"
        profile.mkdir()
        (profile / "user.js").write_text(
            "".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n" for k, v in _PREFS.items())
        )
        return [
            str(program),
            "--new-instance",
            *("--profile", str(profile)),
            *("--width", str(width), "--height", str(height)),
            url,
        ]

    page = _Page(heading, tuple(lines), size, theme, layout)
    return _open_page(
        server, "firefox", title, page, env, command, size=(width, height), place=(x, y)
    )


# --- Chromium ---------------------------------------------------------------------------


def chromium_program() -> str | None:
    return shutil.which("chromium")


def open_chromium(
    server: XServer,
    bus: Mapping[str, str],
    heading: str,
    lines: Sequence[str],
    *,
    renderer: bool = True,
    accessibility: bool = True,
    size: int = 16,
    x: int = 0,
    y: int = 0,
    width: int = 1000,
    height: int = 700,
    title: str | None = None,
    layout: str | None = None,
) -> Client:
    """A local page in Debian's Chromium on the session bus ``bus`` (run as
    root, so ``--no-sandbox``), with a fresh profile that reaches out to
    nothing. ``accessibility``: its tree on (``ACCESSIBILITY_ENABLED=1``;
    else Chromium registers none while the session's switch is off);
    ``renderer``: its pages' text too (``--force-renderer-accessibility``);
    ``layout``: as ``open_firefox``'s."""
    check_text([heading, *lines])
    title = title or new_title("chromium")
    program = chromium_program()
    env = {**server.env, **bus}
    env.pop("ACCESSIBILITY_ENABLED", None)
    if accessibility:
        env["ACCESSIBILITY_ENABLED"] = "1"

    def command(folder: Path, url: str) -> list[str]:
        return [
            str(program),
            "--no-sandbox",
            f"--user-data-dir={folder / 'profile'}",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-gpu",
            "--password-store=basic",
            "--proxy-server=127.0.0.1:9",  # whatever is left fails here, not out there
            f"--window-position={x},{y}",
            f"--window-size={width},{height}",
            *(["--force-renderer-accessibility"] if renderer else []),
            url,
        ]

    page = _Page(heading, tuple(lines), size, "light", layout)
    return _open_page(server, "chromium", title, page, env, command, size=(width, height))
