"""Turning start at login on and off: ``turn_on`` writes the unit or the XDG
entry and the launcher beside it; ``turn_off`` removes what ``turn_on`` wrote
(the files carrying its ``MARK``) and nothing else."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from noru.autostart.desktop_entry import entry_text
from noru.autostart.files import UNIT, Targets, Via, is_ours, read_file, write_file
from noru.autostart.systemctl import Systemctl
from noru.autostart.unit_file import unit_problem, unit_text
from noru.errors import AutostartError
from noru.paths import data_dir

__all__ = ["Outcome", "turn_off", "turn_on"]


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
        text = read_file(path)
        if text is not None and not is_ours(text):
            raise AutostartError(
                f"{path} is there and was not written by `noru autostart`: "
                "move it aside, then run `noru autostart on` again"
            )


def _remove(path: Path, outcome: Outcome, what: str) -> None:
    text = read_file(path)
    if text is None:
        return
    if not is_ours(text):
        outcome.lines.append(f"Left {path}: not written by `noru autostart`.")
        return
    path.unlink()
    outcome.lines.append(f"Removed the {what} {path}.")


def _unit_off(targets: Targets, systemctl: Systemctl, outcome: Outcome) -> None:
    text = read_file(targets.unit)
    if text is None:
        return
    if not is_ours(text):
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
        changed = write_file(targets.unit, text)
        outcome.lines.append(
            f"{'Wrote' if changed else 'Kept'} the systemd user unit {targets.unit}."
        )
        outcome.call(systemctl, "daemon-reload")
        outcome.call(systemctl, "enable", "--now", UNIT)
    else:
        _unit_off(targets, systemctl, outcome)  # else it starts twice
        changed = write_file(targets.entry, text)
        outcome.lines.append(
            f"{'Wrote' if changed else 'Kept'} the XDG autostart entry {targets.entry}: "
            "your desktop starts Noru at your next login (to start it now: `noru app`)."
        )
    changed = write_file(targets.launcher, launcher)
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
