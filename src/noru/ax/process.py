"""What a process is, read from /proc, for the reason a window has no tree.

Chromium, Electron apps and Qt apps build their accessibility tree only when
switched on, so "this process exposes no tree" is true but not useful for
them: the reason must name the switch. A Chromium build (Chrome, Chromium,
an Electron app) ships V8's start-up snapshot beside its program; a Qt app
has Qt's GUI library mapped. Reading /proc takes no call to the process and
works whatever toolkit it uses; what cannot be read (another user's
process, one that has ended) is None.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

__all__ = ["Family", "ProcessFacts", "process_facts"]

# Files a Chromium-based program has beside its executable.
_CHROMIUM_FILES = ("v8_context_snapshot.bin", "snapshot_blob.bin")
_CHROMIUM_NAMES = {"chrome", "chromium", "chromium-browser", "google-chrome", "brave", "msedge"}
_QT_LIBRARIES = ("libQt5Gui.so", "libQt6Gui.so")


class Family(StrEnum):
    CHROMIUM = "Chromium"  # Chrome, Chromium and the browsers built on it
    ELECTRON = "Electron"  # an app built on Electron (Chromium inside)
    QT = "Qt"


# How each family is switched on for one process: Qt's tree and Chromium's
# by a variable, Chromium's pages by an argument.
_QT_VARIABLE = b"QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1"
_CHROMIUM_VARIABLE = b"ACCESSIBILITY_ENABLED=1"
_PAGES_ARGUMENT = b"--force-renderer-accessibility"


@dataclass(frozen=True)
class ProcessFacts:
    """``program``: the process's name (``comm``); ``family``: a toolkit that
    must be switched on, when it is one; ``switched_on``: whether the process
    was started with its tree's switch (a variable in its environment);
    ``pages_on``: for Chromium, whether with its pages' (an argument); each
    None when not known or not the family's."""

    program: str | None
    family: Family | None
    switched_on: bool | None = None
    pages_on: bool | None = None


def _read(path: Path) -> str | None:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return None


def _has(path: Path, item: bytes, *, spaced: bool = False) -> bool | None:
    """Whether the NUL-separated list at ``path`` holds ``item``; ``spaced``:
    white space separates too (Chromium rewrites its command line as one
    string of its arguments, spaces between)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return item in (data.replace(b"\0", b" ").split() if spaced else data.split(b"\0"))


def process_facts(pid: int) -> ProcessFacts:
    proc = Path("/proc") / str(pid)
    comm = _read(proc / "comm")
    program = comm.strip() if comm else None
    try:
        exe = Path(os.readlink(proc / "exe"))
    except OSError:
        exe = None
    if exe is not None and any((exe.parent / name).exists() for name in _CHROMIUM_FILES):
        stem = exe.name.lower()
        chromium = stem in _CHROMIUM_NAMES or (program or "").lower() in _CHROMIUM_NAMES
        return ProcessFacts(
            program,
            Family.CHROMIUM if chromium else Family.ELECTRON,
            _has(proc / "environ", _CHROMIUM_VARIABLE),
            _has(proc / "cmdline", _PAGES_ARGUMENT, spaced=True),
        )
    maps = _read(proc / "maps")
    if maps is not None and any(library in maps for library in _QT_LIBRARIES):
        return ProcessFacts(program, Family.QT, _has(proc / "environ", _QT_VARIABLE))
    return ProcessFacts(program, None)
