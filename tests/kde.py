"""KDE Plasma's shortcut stack, headless, for the portal shortcut's tests.

``running_kde(tmp)`` starts, for one test, a private session bus
(``tests.portal.private_bus``: no activation) and on it what a Plasma 5.27
session runs for global shortcuts:

- ``kwin_wayland --virtual``: the compositor, drawing into memory, no input
  devices. On Wayland KWin hosts KDE's global shortcut daemon itself
  (``org.kde.kglobalaccel`` on the bus; no ``kglobalaccel5`` process) and
  sees every key before any window does;
- ``xdg-permission-store`` and ``xdg-desktop-portal-kde``, the backend,
  which turns a portal session's shortcuts into a kglobalaccel component
  and its presses into ``Activated``;
- ``xdg-desktop-portal`` itself (1.16), last, with a portals folder holding
  only ``kde.portal`` and ``XDG_CURRENT_DESKTOP=KDE``.

``kde=False`` runs the portal with no backend at all: a portal that offers
no global shortcuts.

Keys are pressed for real (``Kde.press``): KWin's fake-input protocol
(``org_kde_kwin_fake_input``, the one KDE's remote-desktop tools use) sends
them into KWin's input, where they go the way a keyboard's do, through the
shortcut daemon. KWin offers that protocol only to a program whose
executable a desktop file names with ``X-KDE-Wayland-Interfaces``; the
session's data folder holds one naming this Python, so the test process
itself is the client. It speaks the Wayland wire protocol directly (four
requests), needing no Wayland library.

What works here, and why each thing is done:

- KWin is run from a copy of ``/usr/bin/kwin_wayland``. The installed file
  carries a file capability (``cap_sys_resource``); where the capability
  bounding set lacks it (containers, this VM) the kernel refuses to run it
  at all ("Operation not permitted"). The copy carries none. Its name must
  stay ``kwin_wayland``: KWin's Qt platform plugin loads only in a program
  of that name.
- KWin runs as root here without complaint; its own folders (``HOME``, the
  XDG folders, a short private runtime folder) are the session's, so the
  shortcuts it keeps (``kglobalshortcutsrc``) start empty in each test.
- ``xdg-desktop-portal-kde`` is a Qt Wayland client (``QT_QPA_PLATFORM=
  wayland``, package qtwayland5); it stays up only while KWin does.

Every process is our child, started in order and stopped by its own pid in
reverse order; each carries ``tests.portal``'s token, and one left over
after the stop (an ``xdg-open`` of the backend, say) fails the run.
"""

from __future__ import annotations

import asyncio
import glob
import os
import secrets
import shutil
import socket
import struct
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dbus_fast import Message, MessageType
from dbus_fast.aio import MessageBus

from tests.parts import require
from tests.portal import _TOKEN, Child, Starter, _leftovers, _stop_children, private_bus
from tests.processes import START_TIMEOUT

__all__ = ["Kde", "missing", "running_kde"]

KWIN = Path("/usr/bin/kwin_wayland")
PORTALS = Path("/usr/share/xdg-desktop-portal/portals")
SOCKET = "wayland-noru"
FAKE_INPUT = "org_kde_kwin_fake_input"

_PARTS = {
    "kwin_wayland": ("/usr/bin/kwin_wayland", "kwin-wayland"),
    "xdg-desktop-portal": ("/usr/libexec/xdg-desktop-portal", "xdg-desktop-portal"),
    "xdg-permission-store": ("/usr/libexec/xdg-permission-store", "xdg-desktop-portal"),
    "xdg-desktop-portal-kde": (
        "/usr/lib/*/libexec/xdg-desktop-portal-kde",
        "xdg-desktop-portal-kde",
    ),
    "kde.portal": (str(PORTALS / "kde.portal"), "xdg-desktop-portal-kde"),
    "Qt's Wayland platform plugin": (
        "/usr/lib/*/qt5/plugins/platforms/libqwayland-generic.so",
        "qtwayland5",
    ),
}

# Linux input key codes (linux/input-event-codes.h), as fake input takes them.
_KEYS = {"ctrl": 29, "control": 29, "alt": 56, "shift": 42, "super": 125, "win": 125}
for _row, _first in (("qwertyuiop", 16), ("asdfghjkl", 30), ("zxcvbnm", 44)):
    _KEYS.update({letter: _first + i for i, letter in enumerate(_row)})
_KEYS.update({str((i + 1) % 10): 2 + i for i in range(10)})


# Qt's modifier bits in a key sequence's int (Qt::KeyboardModifier).
_QT_MODIFIERS = {"shift": 0x02000000, "ctrl": 0x04000000, "alt": 0x08000000, "super": 0x10000000}


def _found(pattern: str) -> str | None:
    hits = sorted(glob.glob(pattern))
    return hits[0] if hits else None


def missing() -> str | None:
    """What keeps the KDE stack from running here, or None."""
    if shutil.which("dbus-daemon") is None:
        return "dbus-daemon is not installed (apt: dbus-daemon)"
    for name, (pattern, package) in _PARTS.items():
        if _found(pattern) is None:
            return f"{name} is not installed (apt: {package})"
    return None


class Keyboard:
    """A Wayland client of KWin holding ``org_kde_kwin_fake_input``: its key
    presses enter KWin as a keyboard's would. The wire protocol spoken
    directly: little-endian words, each message ``object id, size << 16 |
    opcode``, strings length-prefixed and padded to four bytes."""

    _DISPLAY, _REGISTRY = 1, 2

    def __init__(self, path: Path) -> None:
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._socket.settimeout(START_TIMEOUT)
        self._socket.connect(str(path))
        self._buffer = b""
        self._last_id = self._REGISTRY  # new ids are given in order, none skipped
        self._send(self._DISPLAY, 1, struct.pack("<I", self._REGISTRY))  # get_registry
        offered = {iface: (name, version) for name, iface, version in self._globals()}
        if FAKE_INPUT not in offered:
            self.close()
            raise RuntimeError(
                f"KWin did not offer {FAKE_INPUT} to this Python "
                f"({os.readlink('/proc/self/exe')}): its desktop file was not read"
            )
        name, version = offered[FAKE_INPUT]
        bind = struct.pack("<I", name) + _string(FAKE_INPUT)
        self._input = self._new_id()
        self._send(self._REGISTRY, 0, bind + struct.pack("<II", min(version, 4), self._input))
        self._send(self._input, 0, _string("Noru tests") + _string("press the capture shortcut"))
        self.roundtrip()

    def press(self, combination: str) -> None:
        """``ctrl+alt+n``: each key down in order, then up in reverse; returns
        once KWin has taken them all (a round trip)."""
        codes = [_KEYS[part.strip().lower()] for part in combination.split("+")]
        for code in codes:
            self._send(self._input, 10, struct.pack("<II", code, 1))  # keyboard_key, pressed
        for code in reversed(codes):
            self._send(self._input, 10, struct.pack("<II", code, 0))  # released
        self.roundtrip()

    def roundtrip(self) -> None:
        callback = self._new_id()
        self._send(self._DISPLAY, 0, struct.pack("<I", callback))  # sync
        for _ in self._events(until=callback):
            pass

    def close(self) -> None:
        self._socket.close()

    def _new_id(self) -> int:
        self._last_id += 1
        return self._last_id

    def _globals(self) -> Iterator[tuple[int, str, int]]:
        callback = self._new_id()
        self._send(self._DISPLAY, 0, struct.pack("<I", callback))
        for obj, opcode, body in self._events(until=callback):
            if obj == self._REGISTRY and opcode == 0:  # global(name, interface, version)
                (name,) = struct.unpack_from("<I", body)
                interface, end = _unstring(body, 4)
                (version,) = struct.unpack_from("<I", body, end)
                yield name, interface, version

    def _send(self, obj: int, opcode: int, payload: bytes = b"") -> None:
        header = struct.pack("<II", obj, ((8 + len(payload)) << 16) | opcode)
        self._socket.sendall(header + payload)

    def _events(self, *, until: int) -> Iterator[tuple[int, int, bytes]]:
        while True:
            while len(self._buffer) >= 8:
                obj, word = struct.unpack_from("<II", self._buffer)
                size = word >> 16
                if len(self._buffer) < size:
                    break
                body, self._buffer = self._buffer[8:size], self._buffer[size:]
                if obj == self._DISPLAY and word & 0xFFFF == 0:  # error(object, code, message)
                    raise RuntimeError(f"KWin refused a request: {_unstring(body, 8)[0]}")
                yield obj, word & 0xFFFF, body
                if obj == until:  # wl_callback.done
                    return
            chunk = self._socket.recv(65536)
            if not chunk:
                raise RuntimeError("KWin closed the connection")
            self._buffer += chunk


def _string(text: str) -> bytes:
    data = text.encode() + b"\0"
    return struct.pack("<I", len(data)) + data + b"\0" * (-len(data) % 4)


def _unstring(body: bytes, offset: int) -> tuple[str, int]:
    (length,) = struct.unpack_from("<I", body, offset)
    start = offset + 4
    return body[start : start + length - 1].decode(), start + length + (-length % 4)


@dataclass
class Kde:
    """A running stack. ``env`` is what the process under test sets
    (``DBUS_SESSION_BUS_ADDRESS``, ``WAYLAND_DISPLAY``, ``XDG_RUNTIME_DIR``,
    ``XDG_CURRENT_DESKTOP``); ``children`` each part by its name."""

    address: str
    env: dict[str, str]
    log: Path
    socket: Path | None
    children: dict[str, Child] = field(default_factory=dict)
    _keyboard: Keyboard | None = None

    def press(self, combination: str) -> None:
        """Press keys on KWin's keyboard, as a person would (``ctrl+alt+n``)."""
        if self.socket is None:
            raise RuntimeError("this stack runs no KWin (running_kde(kde=False))")
        if self._keyboard is None:
            self._keyboard = Keyboard(self.socket)
        self._keyboard.press(combination)

    def component_active(self, name: str) -> bool:
        """Whether kglobalaccel's component ``name`` (a portal session's) is live."""
        return bool(
            asyncio.run(
                _call(self.address, f"/component/{name}", "org.kde.kglobalaccel.Component",
                      "isActive")
            )[0]
        )  # fmt: skip

    def choose_key(self, component: str, action: str, keys: str) -> None:
        """Give a shortcut another key, as the person does in System Settings
        (its shortcuts page calls the daemon so): ``keys`` like ``ctrl+alt+m``."""
        *mods, key = keys.lower().split("+")
        code = sum(_QT_MODIFIERS[m] for m in mods) + ord(key.upper())
        asyncio.run(
            _call(self.address, "/kglobalaccel", "org.kde.KGlobalAccel",
                  "setForeignShortcutKeys", "asa(ai)",
                  [[component, action, "", ""], [[[code, 0, 0, 0]]]])
        )  # fmt: skip

    def components(self) -> set[str]:
        """The names of kglobalaccel's components (KWin's own among them)."""
        (paths,) = asyncio.run(
            _call(self.address, "/kglobalaccel", "org.kde.KGlobalAccel", "allComponents")
        )
        return {str(path).rsplit("/", 1)[1] for path in paths}

    def log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-3000:]
        except OSError:
            return ""

    def close_keyboard(self) -> None:
        if self._keyboard is not None:
            self._keyboard.close()
            self._keyboard = None


async def _call(
    address: str,
    path: str,
    interface: str,
    member: str,
    signature: str = "",
    body: list[Any] | None = None,
) -> Any:
    """One call to KDE's shortcut daemon (``org.kde.kglobalaccel``, in KWin)."""
    bus = await MessageBus(bus_address=address).connect()
    try:
        reply = await bus.call(
            Message(destination="org.kde.kglobalaccel", path=path, interface=interface,
                    member=member, signature=signature, body=body or [])
        )  # fmt: skip
        if reply.message_type is not MessageType.METHOD_RETURN:
            raise RuntimeError(f"{interface}.{member} failed: {reply.error_name} {reply.body}")
        return reply.body
    finally:
        bus.disconnect()


def _session_env(tmp: Path, token: str, runtime: Path, *, kde: bool) -> dict[str, str]:
    home = tmp / "kde-home"
    portals = tmp / "kde-portals"
    applications = home / ".local" / "share" / "applications"
    for folder in (home, portals, applications):
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if kde:
        shutil.copyfile(PORTALS / "kde.portal", portals / "kde.portal")
    # KWin gives fake input to the program this names: the test process.
    (applications / "noru-test-keys.desktop").write_text(
        "[Desktop Entry]\nType=Application\nName=Noru test keys\nNoDisplay=true\n"
        f"Exec={os.readlink('/proc/self/exe')}\nX-KDE-Wayland-Interfaces={FAKE_INPUT}\n"
    )
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_RUNTIME_DIR": str(runtime),
        "XDG_CURRENT_DESKTOP": "KDE",
        "XDG_SESSION_TYPE": "wayland",
        "XDG_DESKTOP_PORTAL_DIR": str(portals),
        _TOKEN: token,
    }


@contextmanager
def running_kde(tmp: Path, *, kde: bool = True) -> Iterator[Kde]:
    """The KDE shortcut stack (see the module's docstring)."""
    problem = missing()
    require(problem is None, problem or "")
    token = secrets.token_hex(8)
    log = tmp / "kde.log"
    with ExitStack() as stack:
        runtime = Path(tempfile.mkdtemp(prefix="noru-kde-"))  # 0700, short
        stack.callback(shutil.rmtree, runtime, ignore_errors=True)
        env = _session_env(tmp, token, runtime, kde=kde)
        stack.callback(_leftovers, token)
        bus = stack.enter_context(private_bus(tmp, env, log))
        env = bus.env
        children: list[Child] = []
        stack.callback(_stop_children, children)
        out = stack.enter_context(log.open("ab"))
        starter = Starter(env, out, log, bus.address, children)

        wayland: Path | None = None
        if kde:
            kwin = tmp / "kwin" / "kwin_wayland"  # a copy: see the module's docstring
            kwin.parent.mkdir(exist_ok=True)
            shutil.copyfile(KWIN, kwin)
            kwin.chmod(0o755)
            starter.start(
                "kwin_wayland",
                [str(kwin), "--virtual", "--no-lockscreen", "--no-kactivities",
                 "--socket", SOCKET, "--width", "1024", "--height", "768"],
            )  # fmt: skip
            starter.ready("org.kde.KWin", "org.kde.kglobalaccel")
            wayland = runtime / SOCKET
            deadline = time.monotonic() + START_TIMEOUT
            while not wayland.exists() and time.monotonic() < deadline:
                time.sleep(0.02)
            env = {**env, "WAYLAND_DISPLAY": str(wayland)}
            starter.env = env  # what starts from here runs on KWin's display
        starter.start("xdg-permission-store", [_PARTS["xdg-permission-store"][0]])
        names = ["org.freedesktop.impl.portal.PermissionStore"]
        if kde:
            backend = _found(_PARTS["xdg-desktop-portal-kde"][0])
            assert backend is not None
            starter.start("xdg-desktop-portal-kde", [backend], {"QT_QPA_PLATFORM": "wayland"})
            names.append("org.freedesktop.impl.portal.desktop.kde")
        starter.ready(*names)
        starter.start("xdg-desktop-portal", [_PARTS["xdg-desktop-portal"][0]])
        starter.ready("org.freedesktop.portal.Desktop")
        client = {
            "DBUS_SESSION_BUS_ADDRESS": bus.address,
            # Only a Wayland session asks the portal; without KWin any name will do.
            "WAYLAND_DISPLAY": str(wayland) if wayland else SOCKET,
            "XDG_RUNTIME_DIR": str(runtime),
            "XDG_CURRENT_DESKTOP": "KDE",
        }
        stack_ = Kde(
            bus.address,
            client,
            log,
            wayland,
            {c.name: c for c in children},
        )
        stack.callback(stack_.close_keyboard)
        yield stack_
