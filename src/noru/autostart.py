"""How Noru starts at login: a systemd user unit, or an XDG autostart entry.

- ``turn_on`` writes one of them, and an app-menu launcher beside it;
  ``turn_off`` removes what ``turn_on`` wrote (the files carrying its
  ``MARK``) and nothing else; ``report`` says what is there, whether it is
  switched on, and whether it starts this `noru` with this data dir.
- Which one: the unit (``$XDG_CONFIG_HOME/systemd/user/noru.service``) when
  systemd's user manager answers ``systemctl --user`` and its
  ``graphical-session.target`` is active, that is when the desktop runs its
  session through systemd (GNOME, KDE Plasma). Otherwise the XDG entry
  (``$XDG_CONFIG_HOME/autostart/noru.desktop``), which every desktop's
  session starts: XFCE, LXQt, MATE and bare window managers never reach
  ``graphical-session.target``, so a unit wanted by it would never start
  there. ``via`` overrides the choice.
- The launcher is ``$XDG_DATA_HOME/applications/noru.desktop``.
- ``NORU_HOME``, when set, is carried into what is written (the unit's
  ``Environment=``, the entries' ``env NORU_HOME=...``), expanded as every
  command expands it.
- Quoting differs by format and both are written here: a unit's words are in
  double quotes with C escapes and ``%%`` for ``%`` (systemd expands no
  ``$`` in an executable's path or in ``Environment=``, and refuses a path
  holding a quote or a backslash: then the XDG entry is used); a Desktop
  Entry's ``Exec`` quotes an argument holding a reserved character,
  backslash-escapes ``"`$\\`` inside, doubles ``%``, and then escapes the
  whole value's backslashes once more.
- ``Systemctl.run`` is the one place ``systemctl --user`` is run: the seam
  tests replace to play a reachable user manager.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from noru.atomic import replace_text
from noru.errors import AutostartError
from noru.paths import data_dir, default_data_dir

__all__ = [
    "MARK",
    "UNIT",
    "Answer",
    "Outcome",
    "Report",
    "Session",
    "Starter",
    "Systemctl",
    "Targets",
    "Via",
    "entry_text",
    "read_desktop_exec",
    "read_unit_exec",
    "report",
    "turn_off",
    "turn_on",
    "unit_problem",
    "unit_text",
]

Via = Literal["systemd", "xdg"]

UNIT = "noru.service"
MARK = "# Written by `noru autostart on`; `noru autostart off` removes it."
# Debian's coreutils; a Desktop Entry has no way of its own to set a variable.
ENV = "/usr/bin/env"


# --- where -------------------------------------------------------------------------


def _xdg(variable: str, default: str) -> Path:
    # The base directory spec: a relative value is invalid and is ignored.
    value = os.environ.get(variable, "")
    return Path(value) if os.path.isabs(value) else Path.home() / default


@dataclass(frozen=True)
class Targets:
    """The three files, from ``$XDG_CONFIG_HOME`` and ``$XDG_DATA_HOME`` as set now."""

    unit: Path
    entry: Path
    launcher: Path

    @classmethod
    def here(cls) -> Targets:
        config = _xdg("XDG_CONFIG_HOME", ".config")
        data = _xdg("XDG_DATA_HOME", ".local/share")
        return cls(
            unit=config / "systemd" / "user" / UNIT,
            entry=config / "autostart" / "noru.desktop",
            launcher=data / "applications" / "noru.desktop",
        )

    @property
    def wants(self) -> Path:
        """Where ``systemctl enable`` links the unit (its ``WantedBy=``)."""
        return self.unit.parent / "graphical-session.target.wants" / UNIT


# --- systemctl: the seam -------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    ok: bool
    output: str  # stdout, stripped: is-enabled and is-active print their word here
    error: str = ""  # systemctl's own words on stderr, or why it did not run


@dataclass(frozen=True)
class Session:
    """What systemd's user manager says about the graphical session."""

    reachable: bool
    graphical: bool
    reason: str  # in the person's words, for why the XDG entry was chosen


class Systemctl:
    """``systemctl --user``; ``run`` is the one call that leaves this process."""

    timeout = 15.0

    def run(self, *args: str) -> Answer:
        exe = shutil.which("systemctl")
        if exe is None:
            return Answer(False, "", "systemctl is not installed")
        env = dict(os.environ)
        runtime = Path(f"/run/user/{os.getuid()}")
        if not env.get("XDG_RUNTIME_DIR") and runtime.is_dir():
            # A shell from su or cron lacks it, yet the user's manager is there.
            env["XDG_RUNTIME_DIR"] = str(runtime)
        try:
            done = subprocess.run(
                [exe, "--user", *args],
                capture_output=True,
                text=True,
                stdin=subprocess.DEVNULL,
                timeout=self.timeout,
                env=env,
            )
        except subprocess.TimeoutExpired:
            return Answer(False, "", f"no answer in {self.timeout:.0f} s")
        except OSError as exc:
            return Answer(False, "", exc.strerror or str(exc))
        # Its info lines ("Created symlink ...") come before the error: all are said.
        said = "; ".join(line.strip() for line in done.stderr.splitlines() if line.strip())
        if done.returncode == 0:
            return Answer(True, done.stdout.strip())
        return Answer(False, done.stdout.strip(), said or f"exit status {done.returncode}")

    def session(self) -> Session:
        answer = self.run("is-active", "graphical-session.target")
        if answer.output == "active":
            return Session(True, True, "the desktop's session runs under systemd")
        if answer.output:  # inactive, failed...: the manager answered
            return Session(
                True,
                False,
                f"systemd's user manager runs no graphical session now "
                f"(graphical-session.target is {answer.output})",
            )
        return Session(False, False, f"systemd's user manager does not answer ({answer.error})")


# --- writing the files ---------------------------------------------------------------


def _check_text(what: str, text: str) -> None:
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in text):
        raise AutostartError(
            f"{what} holds a control character, which cannot start at login: {text!r}"
        )


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
    _check_text("the noru path", str(exe))
    problem = unit_problem(exe)
    if problem:
        raise AutostartError(f"{problem}: use `noru autostart on --xdg`")
    environment = ""
    if home is not None:
        _check_text("NORU_HOME", str(home))
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
    _check_text("the noru path", str(exe))
    argv = [str(exe), "app"]
    if home is not None:
        _check_text("NORU_HOME", str(home))
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


def _write(path: Path, text: str) -> bool:
    """Write ``path`` atomically unless it holds ``text`` already; whether it changed."""
    if _read(path) == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_text(path, text, mode=0o644)
    return True


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, UnicodeDecodeError):
        return ""  # there, but not readable as ours


def _ours(text: str | None) -> bool:
    return text is not None and text.startswith(MARK + "\n")


# --- reading them back -----------------------------------------------------------------


# systemd's C escapes (systemd.syntax(7)); the writer only ever uses \\ and \".
_C_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "s": " ", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}


def _unit_words(value: str) -> list[str]:
    """A unit line's words, unquoted as systemd does (C escapes, either quote)."""
    words: list[str] = []
    word: list[str] = []
    started, quote, i = False, "", 0
    while i < len(value):
        ch = value[i]
        if ch == "\\" and i + 1 < len(value):
            code = value[i + 1]
            hexa = value[i + 2 : i + 4]
            if code == "x" and len(hexa) == 2 and all(c in "0123456789abcdefABCDEF" for c in hexa):
                word.append(chr(int(hexa, 16)))
                i += 2
            else:
                word.append(_C_ESCAPES.get(code, code))
            started, i = True, i + 1
        elif quote and ch == quote:
            quote = ""
        elif not quote and ch in "\"'":
            quote, started = ch, True
        elif not quote and ch.isspace():
            if started:
                words.append("".join(word))
            word, started = [], False
        else:
            word.append(ch)
            started = True
        i += 1
    if started:
        words.append("".join(word))
    return words


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


def _entry_values(text: str) -> dict[str, str]:
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


def read_desktop_exec(text: str) -> tuple[list[str], dict[str, str]]:
    """A Desktop Entry's ``Exec`` as a launcher reads it, and what ``env`` sets first."""
    value = _unescape_value(_entry_values(text).get("Exec", "")).replace("%%", "%")
    argv: list[str] = []
    word: list[str] = []
    started, quoted, i = False, False, 0
    while i < len(value):
        ch = value[i]
        if quoted and ch == "\\" and value[i + 1 : i + 2] in ('"', "`", "$", "\\"):
            word.append(value[i + 1])
            i += 1
        elif ch == '"':
            quoted, started = not quoted, True
        elif ch.isspace() and not quoted:
            if started:
                argv.append("".join(word))
            word, started = [], False
        else:
            word.append(ch)
            started = True
        i += 1
    if started:
        argv.append("".join(word))
    env: dict[str, str] = {}
    if argv and Path(argv[0]).name == "env":
        argv = argv[1:]
        while argv and "=" in argv[0] and not argv[0].startswith("/"):
            name, _, setting = argv.pop(0).partition("=")
            env[name] = setting
    return argv, env


# --- what is there -----------------------------------------------------------------------


@dataclass(frozen=True)
class Starter:
    """One file that starts Noru: where, what it runs, whether `noru autostart` wrote it."""

    kind: Literal["systemd", "xdg", "launcher"]
    path: Path
    ours: bool
    argv: tuple[str, ...]
    home: Path  # the data dir it starts Noru with
    enabled: str | None = None  # systemd: is-enabled's word (read from the files)
    active: str | None = None  # systemd: is-active's word; None: the manager did not answer
    switched_off: bool = False  # xdg: Hidden, or switched off in the desktop's settings

    def points_at(self, exe: Path | None, home: Path) -> bool:
        return exe is not None and self.argv[:1] == (str(exe),) and self.home == home


def _home_of(env: dict[str, str]) -> Path:
    value = env.get("NORU_HOME")
    return Path(value).expanduser().absolute() if value else default_data_dir()


def _starter(kind: Literal["systemd", "xdg", "launcher"], path: Path) -> Starter | None:
    text = _read(path)
    if text is None:
        return None
    if kind == "systemd":
        argv, env = read_unit_exec(text)
        return Starter(kind, path, _ours(text), tuple(argv), _home_of(env))
    argv, env = read_desktop_exec(text)
    values = _entry_values(text)
    off = (
        values.get("Hidden", "").lower() == "true"
        or values.get("X-GNOME-Autostart-enabled", "").lower() == "false"
    )
    return Starter(kind, path, _ours(text), tuple(argv), _home_of(env), switched_off=off)


@dataclass(frozen=True)
class Report:
    """What starts Noru at login here, and whether it starts this noru."""

    exe: Path | None  # this noru
    home: Path  # this data dir
    unit: Starter | None
    entry: Starter | None
    launcher: Starter | None

    @property
    def how(self) -> Via | None:
        if self.unit is not None and self.unit.enabled in ("enabled", "enabled-runtime"):
            return "systemd"
        if self.entry is not None and not self.entry.switched_off:
            return "xdg"
        return None

    def _about(self, starter: Starter) -> str:
        if not starter.argv:
            return "runs nothing Noru can read"
        if starter.points_at(self.exe, self.home):
            return "starts this noru"
        if not Path(starter.argv[0]).exists():
            return f"starts {starter.argv[0]}, which is not there"
        if starter.argv[:1] != (str(self.exe),):
            return f"starts another noru ({starter.argv[0]})"
        return f"starts this noru with another data dir ({starter.home})"

    def lines(self) -> list[str]:
        lines = []
        if self.unit is not None:
            state = self.unit.enabled or "unknown"
            state += (
                f", {self.unit.active}"
                if self.unit.active is not None
                else " (systemd's user manager does not answer: running or not is unknown)"
            )
            lines.append(f"systemd user unit {self.unit.path}: {state}; {self._about(self.unit)}")
        if self.entry is not None:
            off = (
                ", switched off in the desktop's startup settings"
                if self.entry.switched_off
                else ""
            )
            lines.append(f"XDG autostart entry {self.entry.path}{off}; {self._about(self.entry)}")
        if self.launcher is not None:
            lines.append(f"app menu launcher {self.launcher.path}; {self._about(self.launcher)}")
        if self.how is None:
            lines.insert(0, "Noru does not start at login (`noru autostart on` sets it up).")
        elif self.unit is not None and self.entry is not None and self.how == "systemd":
            lines.append("both start Noru: the second start finds one running and exits")
        return lines

    def summary(self) -> str:
        """One line: how Noru starts, for `noru doctor`."""
        if self.how == "systemd" and self.unit is not None:
            active = f", {self.unit.active}" if self.unit.active is not None else ""
            return f"systemd user unit ({self.unit.path}{active}); {self._about(self.unit)}"
        if self.how == "xdg" and self.entry is not None:
            return f"XDG autostart entry ({self.entry.path}); {self._about(self.entry)}"
        return "not at login (`noru autostart on` sets it up)"

    def broken(self) -> Starter | None:
        """The starter in force, when what it starts is not there."""
        starter = self.unit if self.how == "systemd" else self.entry if self.how else None
        if starter is not None and (not starter.argv or not Path(starter.argv[0]).exists()):
            return starter
        return None


def report(
    *, exe: Path | None, targets: Targets | None = None, systemctl: Systemctl | None = None
) -> Report:
    targets = targets or Targets.here()
    systemctl = systemctl or Systemctl()
    unit = _starter("systemd", targets.unit)
    if unit is not None:
        # is-enabled reads the unit files themselves: it answers with no manager.
        enabled = systemctl.run("is-enabled", UNIT)
        active = systemctl.run("is-active", UNIT)
        unit = Starter(
            unit.kind,
            unit.path,
            unit.ours,
            unit.argv,
            unit.home,
            enabled=enabled.output or None,
            active=active.output or None,
        )
    return Report(
        exe=exe,
        home=data_dir(),
        unit=unit,
        entry=_starter("xdg", targets.entry),
        launcher=_starter("launcher", targets.launcher),
    )


# --- on and off ----------------------------------------------------------------------------


@dataclass
class Outcome:
    """What ``turn_on`` or ``turn_off`` did, in lines; ``problems`` make the command fail."""

    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def call(self, systemctl: Systemctl, *args: str) -> None:
        answer = systemctl.run(*args)
        if not answer.ok:
            self.problems.append(f"`systemctl --user {' '.join(args)}` failed: {answer.error}")


def _refuse_foreign(paths: Iterable[Path]) -> None:
    for path in paths:
        text = _read(path)
        if text is not None and not _ours(text):
            raise AutostartError(
                f"{path} is there and was not written by `noru autostart`: "
                "move it aside, then run `noru autostart on` again"
            )


def _remove(path: Path, outcome: Outcome, what: str) -> None:
    text = _read(path)
    if text is None:
        return
    if not _ours(text):
        outcome.lines.append(f"Left {path}: not written by `noru autostart`.")
        return
    path.unlink()
    outcome.lines.append(f"Removed the {what} {path}.")


def _unit_off(targets: Targets, systemctl: Systemctl, outcome: Outcome) -> None:
    text = _read(targets.unit)
    if text is None:
        return
    if not _ours(text):
        outcome.lines.append(f"Left {targets.unit}: not written by `noru autostart`.")
        return
    outcome.call(systemctl, "disable", "--now", UNIT)
    # disable removes the link even with no manager; if systemctl could not run at
    # all, the link to our unit is ours to remove.
    if targets.wants.is_symlink() and Path(os.readlink(targets.wants)) == targets.unit:
        targets.wants.unlink()
    with contextlib.suppress(OSError):
        targets.wants.parent.rmdir()  # systemctl leaves it empty
    targets.unit.unlink()
    outcome.lines.append(f"Removed the systemd user unit {targets.unit}.")
    outcome.call(systemctl, "daemon-reload")


def turn_on(
    *,
    exe: Path,
    via: Via | None = None,
    targets: Targets | None = None,
    systemctl: Systemctl | None = None,
) -> Outcome:
    """Make Noru start at login through ``via`` (chosen here when None)."""
    targets = targets or Targets.here()
    systemctl = systemctl or Systemctl()
    home = data_dir() if os.environ.get("NORU_HOME") else None
    outcome = Outcome()
    if via is None:
        session = systemctl.session()
        via, reason = ("systemd" if session.graphical else "xdg"), session.reason
        if via == "systemd" and (problem := unit_problem(exe)):
            via, reason = "xdg", problem
        kind = "a systemd user unit" if via == "systemd" else "an XDG autostart entry"
        outcome.lines.append(f"Using {kind}: {reason}.")
    # Every text first: a path that cannot be written changes nothing.
    text = unit_text(exe, home) if via == "systemd" else entry_text(exe, home, autostart=True)
    launcher = entry_text(exe, home, autostart=False)
    _refuse_foreign([targets.unit if via == "systemd" else targets.entry, targets.launcher])
    if via == "systemd":
        _remove(targets.entry, outcome, "XDG autostart entry")  # else it starts twice
        changed = _write(targets.unit, text)
        outcome.lines.append(
            f"{'Wrote' if changed else 'Kept'} the systemd user unit {targets.unit}."
        )
        outcome.call(systemctl, "daemon-reload")
        outcome.call(systemctl, "enable", "--now", UNIT)
    else:
        _unit_off(targets, systemctl, outcome)  # else it starts twice
        changed = _write(targets.entry, text)
        outcome.lines.append(
            f"{'Wrote' if changed else 'Kept'} the XDG autostart entry {targets.entry}: "
            "your desktop starts Noru at your next login (to start it now: `noru app`)."
        )
    changed = _write(targets.launcher, launcher)
    outcome.lines.append(
        f"{'Wrote' if changed else 'Kept'} the app menu launcher {targets.launcher}."
    )
    if outcome.problems:
        outcome.lines.append(
            "The files are kept; run `noru autostart on` again once systemctl works."
        )
    return outcome


def turn_off(*, targets: Targets | None = None, systemctl: Systemctl | None = None) -> Outcome:
    """Remove what ``turn_on`` wrote, and nothing else."""
    targets = targets or Targets.here()
    outcome = Outcome()
    _unit_off(targets, systemctl or Systemctl(), outcome)
    _remove(targets.entry, outcome, "XDG autostart entry")
    _remove(targets.launcher, outcome, "app menu launcher")
    if not outcome.lines:
        outcome.lines.append("Noru was not set to start at login; nothing to remove.")
    return outcome
