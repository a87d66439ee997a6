"""The Noru menu in a real panel: XFCE's ``xfce4-panel`` and its systray plugin.

tests/test_panel.py plays the panel itself; here the host is the real one.
The systray plugin of ``xfce4-panel`` (4.18 on Debian 12) is a
StatusNotifierItem host and owns ``org.kde.StatusNotifierWatcher``; its
menus are drawn by libdbusmenu-glib, the library most GTK hosts use. The
panel runs on an Xvfb of this module's own, with openbox, and on a private
session bus (tests/session_bus.py), configured as one panel along the top
holding only the systray. Its settings come from xfconfd, which the bus
starts on the panel's first call, so the channel is seeded as the file
xfconfd reads from the bus daemon's own ``XDG_CONFIG_HOME``.

What counts is what the panel does, never what we tell it: its watcher lists
our item; its pixels on the screen (grabbed with Noru's own capture) show
our icon, redrawn for each access state; a click on the icon opens the menu,
which Noru's OCR engine reads with our labels and separators in order; a
click on a menu item acts. The panel's log must carry no libdbusmenu
warning.

The panel and its plugin's wrapper are stopped by their own pids; xfconfd,
which the bus started, by the session bus's teardown (it carries the bus's
token).
"""

from __future__ import annotations

import asyncio
import glob
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dbus_fast import Message, MessageType
from dbus_fast.aio import MessageBus
from PIL import Image, ImageChops

from noru import access
from noru.capture import Capturer
from noru.geometry import Rect
from noru.ocr import Engine
from noru.panel import menu
from tests.app_process import AppProcess, running_app, wait_until
from tests.noru_cli import noru
from tests.ocr_suite import made_engine
from tests.parts import require
from tests.processes import alive, stop, stop_detached
from tests.session_bus import SessionBus, running_session_bus
from tests.wire import agent_looks
from tests.xserver import XServer, running_xserver

WATCHER = "org.kde.StatusNotifierWatcher"
SYSTRAY = "/usr/lib/*/xfce4/panel/plugins/libsystray.so"
XFCONFD = "/usr/lib/*/xfce4/xfconf/xfconfd"
STRIP = 40  # the panel's height ("size" below): the top rows of the screen

# One panel along the top, the systray its only plugin.
PANEL_XML = """\
<?xml version="1.0" encoding="UTF-8"?>
<channel name="xfce4-panel" version="1.0">
  <property name="configver" type="int" value="2"/>
  <property name="panels" type="array">
    <value type="int" value="1"/>
    <property name="panel-1" type="empty">
      <property name="position" type="string" value="p=6;x=0;y=0"/>
      <property name="length" type="uint" value="100"/>
      <property name="position-locked" type="bool" value="true"/>
      <property name="size" type="uint" value="40"/>
      <property name="plugin-ids" type="array">
        <value type="int" value="1"/>
      </property>
    </property>
  </property>
  <property name="plugins" type="empty">
    <property name="plugin-1" type="string" value="systray">
      <property name="icon-size" type="int" value="32"/>
    </property>
  </property>
</channel>
"""

# The colour each icon is told apart by (scripts/draw-icons.py): its mark,
# or for the grey screen its outline.
MARKS = {
    "noru-unset": (128, 132, 140),
    "noru-allowed": (30, 160, 80),
    "noru-paused": (230, 150, 20),
    "noru-revoked": (205, 40, 40),
    "noru-looking": (20, 100, 220),
}
NEAR = 40  # per channel: the panel scales the icon, which blends the edges

SEPARATOR = "---"
MENU = [
    "Allow Agent Observations", "Pause Agent Perception", "Resume Agent Perception",
    "Revoke Agent Access", SEPARATOR, "Capture Window Now", "Capture Display", SEPARATOR,
    "Open Console", "Quit Noru",
]  # fmt: skip


def missing() -> str | None:
    """What to install for the real panel here, or None when it can run."""
    if shutil.which("xfce4-panel") is None or not glob.glob(SYSTRAY):
        return "xfce4-panel is not installed (apt: xfce4-panel)"
    if not glob.glob(XFCONFD):
        return "xfconfd is not installed (apt: xfconf)"
    return None


def bus_call(
    bus: SessionBus, dest: str, path: str, interface: str, member: str, sig: str, body: list[Any]
) -> list[Any]:
    """One method call on the session bus, as any client makes it."""

    async def call() -> list[Any]:
        connection = await MessageBus(bus_address=bus.address).connect()
        try:
            reply = await connection.call(
                Message(destination=dest, path=path, interface=interface, member=member,
                        signature=sig, body=body)
            )  # fmt: skip
        finally:
            connection.disconnect()
        assert reply is not None
        if reply.message_type == MessageType.ERROR:
            raise RuntimeError(f"{member}: {reply.error_name} {reply.body}")
        return list(reply.body)

    return asyncio.run(asyncio.wait_for(call(), 10))


def owner_pid(bus: SessionBus, name: str) -> int | None:
    try:
        (pid,) = bus_call(
            bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
            "GetConnectionUnixProcessID", "s", [name],
        )  # fmt: skip
    except RuntimeError:  # no owner yet
        return None
    return int(pid)


def registered(bus: SessionBus) -> list[str]:
    """What the panel's watcher says is registered with it."""
    (found,) = bus_call(
        bus, WATCHER, "/StatusNotifierWatcher", "org.freedesktop.DBus.Properties", "Get", "ss",
        [WATCHER, "RegisteredStatusNotifierItems"],
    )  # fmt: skip
    return list(found.value)


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue  # gone
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def daemon_env(bus: SessionBus) -> dict[str, str]:
    """The bus daemon's environment: what the processes it starts inherit."""
    raw = Path(f"/proc/{bus.pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


class Panel:
    """A running xfce4-panel: ``process``, and ``log`` (its and its plugin's stderr)."""

    def __init__(self, server: XServer, bus: SessionBus, tmp: Path) -> None:
        own = daemon_env(bus)
        channels = Path(own["XDG_CONFIG_HOME"], "xfce4", "xfconf", "xfce-perchannel-xml")
        channels.mkdir(parents=True, exist_ok=True)
        (channels / "xfce4-panel.xml").write_text(PANEL_XML)
        env = {
            **server.env,
            **{k: own[k] for k in ("HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME",
                                   "XDG_DATA_HOME", "GSETTINGS_BACKEND")},
            **bus.env,
            "NO_AT_BRIDGE": "1",  # GTK would start the accessibility bus for nothing
        }  # fmt: skip
        self.log = tmp / "xfce4-panel.log"
        self._log = self.log.open("wb")
        self.process = subprocess.Popen(
            ["xfce4-panel", "--sm-client-disable"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def stop(self) -> None:
        plugins = children(self.process.pid)  # the systray's wrapper-2.0
        try:
            stop(self.process)
        finally:
            for pid in plugins:
                stop_detached(pid)
            self._log.close()
        assert not [pid for pid in plugins if alive(pid)]


@pytest.fixture(scope="module")
def screen(tmp_path_factory: pytest.TempPathFactory) -> Iterator[XServer]:
    with running_xserver(tmp_path_factory.mktemp("xfce"), width=1280, height=800) as server:
        yield server


@pytest.fixture(scope="module")
def ocr() -> Iterator[Engine]:
    yield from made_engine("tesseract")


@pytest.fixture
def bus(tmp_path: Path) -> Iterator[SessionBus]:
    with running_session_bus(tmp_path / "bus") as started:
        yield started


@pytest.fixture
def panel(screen: XServer, bus: SessionBus, tmp_path: Path) -> Iterator[Panel]:
    problem = missing()
    require(problem is None, problem or "")
    started = Panel(screen, bus, tmp_path)
    try:
        wait_until(lambda: owner_pid(bus, WATCHER) is not None, "the panel's watcher", 30)
        yield started
    finally:
        started.stop()


@pytest.fixture
def app(
    home: Path, screen: XServer, bus: SessionBus, panel: Panel, tmp_path: Path
) -> Iterator[AppProcess]:
    with running_app(home, {**screen.env, **bus.env}, tmp_path / "app.log") as running:
        wait_until(lambda: registered(bus) != [], "the item registered with the panel", 30)
        yield running


@pytest.fixture
def capturer(screen: XServer) -> Iterator[Capturer]:
    with Capturer(display=screen.display) as c:
        yield c


def strip(capturer: Capturer, screen: XServer) -> Image.Image:
    return capturer.grab_region(0, 0, screen.width, STRIP)[0].image.convert("RGB")


def marks(image: Image.Image) -> tuple[Counter[str], dict[str, Rect]]:
    """How many pixels are near each icon's colour, and where they are."""
    counts: Counter[str] = Counter()
    where: dict[str, list[int]] = {}
    data, width = image.tobytes(), image.width
    for i in range(0, len(data), 3):
        pixel = data[i], data[i + 1], data[i + 2]
        for name, colour in MARKS.items():
            if all(abs(a - b) <= NEAR for a, b in zip(pixel, colour, strict=True)):
                counts[name] += 1
                x, y = (i // 3) % width, (i // 3) // width
                box = where.setdefault(name, [x, y, x, y])
                box[:] = [min(box[0], x), min(box[1], y), max(box[2], x), max(box[3], y)]
    boxes = {k: (x0, y0, x1 - x0 + 1, y1 - y0 + 1) for k, (x0, y0, x1, y1) in where.items()}
    return counts, boxes


def shows(counts: Counter[str], icon: str) -> bool:
    """The panel shows ``icon``: its colour is there, no other icon's mark is.
    (The grey is only the unset icon's own when it is most of the outline:
    the other icons' dark outlines blend into greys at their edges.)"""
    coloured = [name for name in MARKS if name != "noru-unset"]
    if any(counts[name] for name in coloured if name != icon):
        return False
    return counts[icon] >= (100 if icon == "noru-unset" else 20)


def wait_for_icon(capturer: Capturer, screen: XServer, icon: str) -> Rect:
    """Until the panel draws ``icon``; where its colour is, in the screen."""
    seen: list[tuple[Counter[str], dict[str, Rect]]] = []

    def drawn() -> bool:
        seen.append(marks(strip(capturer, screen)))
        return shows(seen[-1][0], icon)

    try:
        wait_until(drawn, f"the panel to show {icon}", 30)
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the panel's colours last: {dict(seen[-1][0])}") from None
    return seen[-1][1][icon]


def grab_screen(capturer: Capturer, screen: XServer) -> Image.Image:
    return capturer.grab_region(0, 0, screen.width, screen.height)[0].image.convert("RGB")


def open_menu(capturer: Capturer, screen: XServer, icon: Rect) -> tuple[Rect, Image.Image]:
    """Click the icon as a person does; the menu that opens below the panel
    (where the screen changed), once it is drawn, and its image."""
    before = grab_screen(capturer, screen)
    x, y, w, h = icon
    screen.move_pointer(x + w // 2, y + h // 2)
    screen.run("xdotool", "click", "1")
    last: list[tuple[Rect, bytes]] = []

    def drawn() -> bool:
        now = grab_screen(capturer, screen).crop((0, STRIP, screen.width, screen.height))
        box = ImageChops.difference(before.crop((0, STRIP, *before.size)), now).getbbox()
        if box is None:
            return False
        x0, y0, x1, y1 = box
        last.append(((x0, y0 + STRIP, x1 - x0, y1 - y0), now.crop(box).tobytes()))
        return len(last) > 1 and last[-1] == last[-2]  # drawn in full: two grabs agree

    wait_until(drawn, "the panel's menu to open", 30)
    rect, pixels = last[-1]
    return rect, Image.frombytes("RGB", (rect[2], rect[3]), pixels)


def separators(image: Image.Image) -> list[int]:
    """The rows of the menu's separators: a line in one colour, not the
    background's, across nearly all of it (a thicker line is one separator)."""
    data = image.tobytes()
    background = Counter(data[i : i + 3] for i in range(0, len(data), 3)).most_common(1)[0][0]
    rows: list[list[int]] = []
    for y in range(image.height):
        row = data[y * image.width * 3 : (y + 1) * image.width * 3]
        colour, count = Counter(row[i : i + 3] for i in range(0, len(row), 3)).most_common(1)[0]
        if count >= image.width * 0.9 and colour != background:
            if rows and rows[-1][-1] == y - 1:
                rows[-1].append(y)
            else:
                rows.append([y])
    return [sum(r) // len(r) for r in rows]


def read_menu(ocr: Engine, image: Image.Image) -> list[tuple[str, Rect | None]]:
    """The menu top to bottom as a person sees it: each item's label (the
    one of ours its line reads as, else what it read) with its box, and a
    separator as ``SEPARATOR``."""
    inside = image.crop((1, 1, image.width - 1, image.height - 1))  # within its border
    # Black on white: a disabled item's light grey reads as well as the rest.
    ink = inside.convert("L").point(lambda v: 0 if v < 200 else 255).convert("RGB")
    found: list[tuple[float, str, Rect | None]] = []
    for line in ocr.recognise(ink).lines:
        label = next((m for m in MENU if m != SEPARATOR and line.text.endswith(m)), line.text)
        x, y, w, h = line.box
        found.append((y + h / 2, label, (x + 1, y + 1, w, h)))
    found += [(y, SEPARATOR, None) for y in separators(inside)]
    return [(label, box) for _, label, box in sorted(found, key=lambda f: f[0])]


def no_dbusmenu_warning(panel: Panel) -> None:
    log = panel.log.read_text(errors="replace")
    assert "LIBDBUSMENU" not in log, log


def test_every_menu_item_has_a_positive_id_as_libdbusmenu_glib_needs() -> None:
    """libdbusmenu-glib, which draws the XFCE panel's menus, skips a child
    whose id is negative: the menu's separators were lost that way."""
    for state in (access.AccessState(), access.AccessState(authorized=True, paused=True)):
        ids = [item.id for item in menu.layout(state)]
        assert all(i > 0 for i in ids) and len(set(ids)) == len(ids), ids


def test_the_xfce_panel_lists_the_item_and_draws_its_icon_for_each_state(
    app: AppProcess, panel: Panel, bus: SessionBus, home: Path, screen: XServer,
    capturer: Capturer,
) -> None:  # fmt: skip
    # The watcher is the panel's own: its systray plugin's process.
    host = owner_pid(bus, WATCHER)
    assert host in children(panel.process.pid)
    assert b"libsystray.so" in Path(f"/proc/{host}/cmdline").read_bytes()
    assert registered(bus) == [f"org.kde.StatusNotifierItem-{app.proc.pid}-1/StatusNotifierItem"]
    wait_for_icon(capturer, screen, "noru-unset")
    for command, icon in (
        ("allow", "noru-allowed"),
        ("pause", "noru-paused"),
        ("resume", "noru-allowed"),
        ("revoke", "noru-revoked"),
        ("allow", "noru-allowed"),
    ):
        noru(command, home=home, ok=True)
        wait_for_icon(capturer, screen, icon)
    agent_looks(home)
    wait_for_icon(capturer, screen, "noru-looking")
    no_dbusmenu_warning(panel)


def test_a_click_on_the_icon_opens_our_menu_and_a_click_in_it_acts(
    app: AppProcess, panel: Panel, home: Path, screen: XServer, capturer: Capturer, ocr: Engine
) -> None:
    noru("allow", home=home, ok=True)
    icon = wait_for_icon(capturer, screen, "noru-allowed")
    where, image = open_menu(capturer, screen, icon)
    shown = read_menu(ocr, image)
    assert [label for label, _ in shown] == MENU, shown
    box = next(box for label, box in shown if label == "Pause Agent Perception")
    assert box is not None
    x, y, w, h = box
    screen.move_pointer(where[0] + x + w // 2, where[1] + y + h // 2)
    screen.run("xdotool", "click", "1")
    wait_until(lambda: access.load(home).paused, "paused from the panel's menu", 30)
    wait_for_icon(capturer, screen, "noru-paused")
    no_dbusmenu_warning(panel)
