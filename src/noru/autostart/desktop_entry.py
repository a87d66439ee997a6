"""The XDG Desktop Entry (the autostart entry and the app-menu launcher): its
text written, and its ``Exec`` read back as a launcher reads it.

An ``Exec`` quotes an argument holding a reserved character,
backslash-escapes ``"`$\\`` inside, doubles ``%``, and then escapes the whole
value's backslashes once more. ``NORU_HOME`` is set through ``env`` (``ENV``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from noru.autostart.files import MARK, check_text
from noru.autostart.words import split_words

__all__ = ["entry_text", "entry_values", "read_desktop_exec"]

# Debian's coreutils; a Desktop Entry has no way of its own to set a variable.
ENV = "/usr/bin/env"


# The Desktop Entry spec's reserved characters: an argument holding one is quoted.
_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def _exec_arg(text: str) -> str:
    """One argument of a Desktop Entry ``Exec`` (before the value's own escaping)."""
    text = text.replace("%", "%%")  # else a field code, inside quotes too
    if not _RESERVED & set(text):
        return text
    return '"' + "".join("\\" + ch if ch in '"`$\\' else ch for ch in text) + '"'


def _exec_value(argv: Sequence[str]) -> str:
    # Exec is a string value: its backslashes are escaped once more.
    return " ".join(_exec_arg(arg) for arg in argv).replace("\\", "\\\\")


def entry_text(exe: Path, home: Path | None, *, autostart: bool) -> str:
    """The XDG autostart entry (``autostart``) or the app-menu launcher."""
    check_text("the noru path", str(exe))
    argv = [str(exe), "app"]
    if home is not None:
        check_text("NORU_HOME", str(home))
        argv = [ENV, f"NORU_HOME={home}", *argv]
    lines = [
        MARK,
        "[Desktop Entry]",
        "Type=Application",
        "Version=1.4",
        "Name=Noru",
        "GenericName=Screen History for AI Agents",
        "Comment=Keep a local history of your screen for AI agents, as far as you allow",
        f"Exec={_exec_value(argv)}",
        "Terminal=false",
        "StartupNotify=false",
    ]
    if autostart:
        lines.append("X-GNOME-Autostart-enabled=true")
    else:
        lines += ["Categories=Utility;", "Keywords=screenshot;capture;history;agent;MCP;"]
    return "\n".join(lines) + "\n"


def entry_values(text: str) -> dict[str, str]:
    values: dict[str, str] = {}
    group = ""
    for line in text.splitlines():
        if line.startswith("["):
            group = line.strip()
        elif group == "[Desktop Entry]" and "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values.setdefault(key.strip(), value.strip())
    return values


# A string value's own escapes (the Desktop Entry spec); others are left as they are.
_VALUE_ESCAPES = {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}


def _unescape_value(value: str) -> str:
    out, i = [], 0
    while i < len(value):
        pair = value[i : i + 2]
        if pair[:1] == "\\" and pair[1:] in _VALUE_ESCAPES:
            out.append(_VALUE_ESCAPES[pair[1:]])
            i += 2
        else:
            out.append(value[i])
            i += 1
    return "".join(out)


def _exec_escape(value: str, i: int, quote: str) -> tuple[str, int] | None:
    """Inside quotes, a backslash escapes ``"`$\\`` only; outside, nothing."""
    after = value[i + 1 : i + 2]
    return (after, 2) if quote and after in ('"', "`", "$", "\\") else None


def read_desktop_exec(text: str) -> tuple[list[str], dict[str, str]]:
    """A Desktop Entry's ``Exec`` as a launcher reads it, and what ``env`` sets first."""
    value = _unescape_value(entry_values(text).get("Exec", "")).replace("%%", "%")
    argv = split_words(value, quotes='"', escape=_exec_escape)
    env: dict[str, str] = {}
    if argv and Path(argv[0]).name == "env":
        argv = argv[1:]
        while argv and "=" in argv[0] and not argv[0].startswith("/"):
            name, _, setting = argv.pop(0).partition("=")
            env[name] = setting
    return argv, env
