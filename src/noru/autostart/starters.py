"""What starts Noru at login here: each file found, what it runs, whether it
is switched on, and whether it starts this ``noru`` with this data dir."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from noru.autostart.desktop_entry import entry_values, read_desktop_exec
from noru.autostart.files import UNIT, Targets, Via, is_ours, read_file
from noru.autostart.systemctl import Systemctl
from noru.autostart.unit_file import read_unit_exec
from noru.paths import data_dir, default_data_dir

__all__ = ["Report", "Starter", "report"]


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
    text = read_file(path)
    if text is None:
        return None
    if kind == "systemd":
        argv, env = read_unit_exec(text)
        return Starter(kind, path, is_ours(text), tuple(argv), _home_of(env))
    argv, env = read_desktop_exec(text)
    values = entry_values(text)
    off = (
        values.get("Hidden", "").lower() == "true"
        or values.get("X-GNOME-Autostart-enabled", "").lower() == "false"
    )
    return Starter(kind, path, is_ours(text), tuple(argv), _home_of(env), switched_off=off)


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
