"""The systemd user unit: its text written, and its ``ExecStart=`` and
``Environment=`` read back as systemd reads them.

A unit's words are in double quotes with C escapes and ``%%`` for ``%``
(systemd expands no ``$`` in an executable's path or in ``Environment=``, and
refuses a path holding a quote or a backslash: then the XDG entry is used).
"""

from __future__ import annotations

from pathlib import Path

from noru.autostart.files import MARK, check_text
from noru.autostart.words import split_words
from noru.errors import AutostartError

__all__ = ["read_unit_exec", "unit_problem", "unit_text"]


def _unit_word(text: str) -> str:
    """One word of a unit's line, double-quoted (systemd.syntax(7)).

    Neither an ``ExecStart=`` path nor an ``Environment=`` value has its ``$``
    expanded (only later arguments would), so only ``%`` needs doubling.
    """
    escaped = "".join("\\" + ch if ch in '\\"' else "%%" if ch == "%" else ch for ch in text)
    return f'"{escaped}"'


# systemd refuses these in an executable's path ("contains special characters").
_NOT_IN_UNIT_PATHS = "\"'\\"


def unit_problem(exe: Path) -> str | None:
    """Why systemd cannot run ``exe`` from a unit, if it cannot."""
    if any(ch in _NOT_IN_UNIT_PATHS for ch in str(exe)):
        return f"systemd cannot run a program whose path holds a quote or a backslash ({exe})"
    return None


def unit_text(exe: Path, home: Path | None) -> str:
    """The systemd user unit that runs ``exe app``, with ``NORU_HOME=home`` if given."""
    check_text("the noru path", str(exe))
    problem = unit_problem(exe)
    if problem:
        raise AutostartError(f"{problem}: use `noru autostart on --xdg`")
    environment = ""
    if home is not None:
        check_text("NORU_HOME", str(home))
        environment = f"Environment={_unit_word(f'NORU_HOME={home}')}\n"
    return (
        f"{MARK}\n"
        "[Unit]\n"
        "Description=Noru: screen-capture history for AI agents\n"
        "# Part of the desktop's graphical session: started once it is up, stopped with it.\n"
        "PartOf=graphical-session.target\n"
        "After=graphical-session.target\n"
        "# Only with a screen to capture: the desktop puts DISPLAY or WAYLAND_DISPLAY in\n"
        "# the manager's environment before it starts graphical-session.target.\n"
        "ConditionEnvironment=|DISPLAY\n"
        "ConditionEnvironment=|WAYLAND_DISPLAY\n"
        "# Five failed starts in two minutes (another noru app on this data dir, say)\n"
        "# stop the restarts.\n"
        "StartLimitIntervalSec=120\n"
        "StartLimitBurst=5\n"
        "\n"
        "[Service]\n"
        "Type=exec\n"
        f"ExecStart={_unit_word(str(exe))} app\n"
        f"{environment}"
        "Restart=on-failure\n"
        "RestartSec=5\n"
        "StandardOutput=journal\n"
        "StandardError=journal\n"
        "SyslogIdentifier=noru\n"
        "\n"
        "[Install]\n"
        "WantedBy=graphical-session.target\n"
    )


# systemd's C escapes (systemd.syntax(7)); the writer only ever uses \\ and \".
_C_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "s": " ", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}


def _c_escape(value: str, i: int, quote: str) -> tuple[str, int] | None:
    """A C escape, in quotes or out; ``\\xHH`` a character by its code."""
    if i + 1 >= len(value):
        return None
    code, hexa = value[i + 1], value[i + 2 : i + 4]
    if code == "x" and len(hexa) == 2 and all(c in "0123456789abcdefABCDEF" for c in hexa):
        return chr(int(hexa, 16)), 4
    return _C_ESCAPES.get(code, code), 2


def _unit_words(value: str) -> list[str]:
    """A unit line's words, unquoted as systemd does (C escapes, either quote)."""
    return split_words(value, quotes="\"'", escape=_c_escape)


def _unit_values(text: str, section: str, key: str) -> list[str]:
    values, current = [], ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            current = stripped[1:-1]
        elif current == section and stripped.startswith(key + "="):
            values.append(stripped[len(key) + 1 :].replace("%%", "%"))
    return values


def read_unit_exec(text: str) -> tuple[list[str], dict[str, str]]:
    """A unit's ``ExecStart=`` words and its ``Environment=``, as systemd reads them."""
    env: dict[str, str] = {}
    for value in _unit_values(text, "Service", "Environment"):
        for word in _unit_words(value):
            name, _, setting = word.partition("=")
            env[name] = setting
    starts = _unit_values(text, "Service", "ExecStart")
    argv = _unit_words(starts[-1]) if starts else []
    if argv and argv[0] and argv[0][0] in "-@:+!":  # ExecStart's prefixes
        argv[0] = argv[0].lstrip("-@:+!")
    argv[1:] = [arg.replace("$$", "$") for arg in argv[1:]]  # the path is not expanded
    return argv, env
