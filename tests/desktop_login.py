"""Real tools that read what `noru autostart` writes, as a desktop would.

- ``verify_unit``: ``systemd-analyze --user verify`` on a unit file, offline
  (it needs only a runtime dir); its warnings count as failures, since it
  exits 0 on a line it ignores.
- ``validate_entry``: ``desktop-file-validate``.
- ``launch_entry``: GLib's ``Gio.DesktopAppInfo`` (what GNOME's session and
  menus use) launches an entry and waits for its program, run by the system
  Python (a virtualenv cannot import gi).
- ``Manager``: a reachable systemd user manager, which this container cannot
  run (``systemd --user`` refuses a system not booted with systemd). It is
  the tests' one stand-in, at ``Systemctl.run``: the verbs that need a
  running manager (``is-active``, ``daemon-reload``, starting and stopping)
  are answered here; the verbs that work on the unit files (``enable``,
  ``disable``, ``is-enabled``) go to the real systemctl.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from noru.autostart import Answer, Systemctl
from tests.parts import require

__all__ = ["Manager", "launch_entry", "validate_entry", "verify_unit"]

SYSTEM_PYTHON = "/usr/bin/python3"


def verify_unit(path: Path) -> str:
    """What ``systemd-analyze --user verify`` says of ``path``: empty when it is clean."""
    require(shutil.which("systemd-analyze") is not None, "systemd-analyze (Debian systemd)")
    done = subprocess.run(
        ["systemd-analyze", "--user", "--man=no", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    said = (done.stdout + done.stderr).strip()
    return said or ("" if done.returncode == 0 else f"exit status {done.returncode}")


def validate_entry(path: Path) -> str:
    """What ``desktop-file-validate`` says of ``path``: empty when it is clean."""
    require(
        shutil.which("desktop-file-validate") is not None,
        "desktop-file-validate (Debian desktop-file-utils)",
    )
    done = subprocess.run(
        ["desktop-file-validate", str(path)], capture_output=True, text=True, timeout=60
    )
    said = (done.stdout + done.stderr).strip()
    return said or ("" if done.returncode == 0 else f"exit status {done.returncode}")


LAUNCH = """
import os
import sys
import gi
gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib
info = Gio.DesktopAppInfo.new_from_filename(sys.argv[1])
if info is None:
    sys.exit("GLib cannot read the entry")
pids = []
flags = GLib.SpawnFlags.SEARCH_PATH | GLib.SpawnFlags.DO_NOT_REAP_CHILD
info.launch_uris_as_manager([], None, flags, None, None, lambda i, pid, *a: pids.append(pid), None)
for pid in pids:
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status))
sys.exit("GLib launched nothing")
"""


def launch_entry(path: Path) -> None:
    """Launch ``path`` as a desktop does, and wait for its program to exit 0."""
    probe = subprocess.run(
        [SYSTEM_PYTHON, "-c", "import gi; gi.require_version('Gio', '2.0')"],
        capture_output=True,
        timeout=60,
    )
    require(probe.returncode == 0, "the system Python with gi (Debian python3-gi)")
    launched = subprocess.run(
        [SYSTEM_PYTHON, "-c", LAUNCH, str(path)], capture_output=True, text=True, timeout=60
    )
    assert launched.returncode == 0, launched.stderr


class Manager(Systemctl):
    """A reachable user manager: running verbs answered here, file verbs real."""

    def __init__(self, *, graphical: bool = True) -> None:
        self.graphical = graphical
        self.running = False
        self.calls: list[tuple[str, ...]] = []

    def run(self, *args: str) -> Answer:
        self.calls.append(args)
        verb = args[0]
        if verb == "is-active":
            on = self.graphical if args[1] == "graphical-session.target" else self.running
            return Answer(on, "active" if on else "inactive")
        if verb == "daemon-reload":
            return Answer(True, "")
        answer = super().run(*(arg for arg in args if arg != "--now"))
        if answer.ok and "--now" in args:
            self.running = verb == "enable"
        return answer
