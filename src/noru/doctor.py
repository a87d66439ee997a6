"""`noru doctor`: what works on this machine, and what to do where it does not.

Each check is data (``Check``): a name, whether it passed, what was found,
and the fix. The CLI prints them; tests read them.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from noru import access
from noru.config import load_config
from noru.errors import NoruError, StoreError
from noru.live import LiveClient
from noru.paths import db_path

__all__ = ["Check", "run_checks"]


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    found: str
    fix: str | None = None


def _display_checks() -> list[Check]:
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        return [
            Check(
                "display",
                False,
                "no $DISPLAY: no screen to capture",
                "run inside your desktop session, or `make run` for a virtual display",
            )
        ]
    from noru.capture import Capturer

    try:
        with Capturer() as capturer:
            displays = capturer.displays()
            notes = capturer.status_notes()
            backend = capturer.backend_name()
    except NoruError as exc:
        return [
            Check(
                "display",
                False,
                str(exc),
                "check $DISPLAY and that this user may connect (xauth / xhost)",
            )
        ]
    listed = ", ".join(f"{d.index}: {d.name or 'unnamed'} {d.width}x{d.height}" for d in displays)
    checks = [
        Check("display", True, f"{os.environ.get('DISPLAY')} reachable; displays {listed}"),
        Check(
            "capture backend",
            not notes,
            backend + ("" if not notes else " (degraded)"),
            None if not notes else "; ".join(notes),
        ),
    ]
    wm_missing = any("window manager" in note for note in notes)
    checks.append(
        Check(
            "window manager",
            not wm_missing,
            "absent: window facts unknown" if wm_missing else "present",
            "start a window manager (e.g. openbox)" if wm_missing else None,
        )
    )
    return checks


def _ocr_checks(home: Path) -> list[Check]:
    """Every engine Noru knows; only the configured one must work."""
    from noru.ocr import describe, registered_engines

    configured = load_config(home).ocr_engine
    checks = []
    for name in sorted(set(registered_engines()) | {configured}):
        status = describe(name)
        label = "ocr engine" if name == configured else f"ocr engine {name} (optional)"
        if status.available:
            data = f", data {status.data_path}" if status.data_path else ""
            found = f"{status.name} {status.version}{data}"
            if name == configured:
                found += " (configured)"
            checks.append(Check(label, True, found))
        else:
            checks.append(Check(label, name != configured, f"{name} unavailable", status.problem))
    return checks


def _data_dir_check(home: Path) -> list[Check]:
    if not home.exists():
        return [Check("data dir", True, f"{home} (not created yet; made 0700 on first capture)")]
    mode = stat.S_IMODE(home.stat().st_mode)
    checks = [
        Check(
            "data dir",
            mode & 0o077 == 0,
            f"{home} mode {mode:04o}",
            None if mode & 0o077 == 0 else f"chmod 700 {home}",
        )
    ]
    state = access.load(home)
    checks.append(
        Check(
            "access state",
            state.damaged is None,
            state.damaged or "readable",
            "run `noru allow` or `noru revoke` to rewrite it" if state.damaged else None,
        )
    )
    if db_path(home).exists():
        from noru.store import Reader

        try:
            reader = Reader.open(home)
        except StoreError as exc:
            checks.append(
                Check(
                    "history",
                    False,
                    str(exc),
                    "move noru.sqlite3 aside and restart the app; images are kept",
                )
            )
        else:
            with reader:
                checks.append(Check("history", True, f"{reader.count()} captures"))
    return checks


def run_checks(home: Path) -> list[Check]:
    config = load_config(home)
    checks = [
        Check(
            "configuration",
            not config.problems,
            "; ".join(config.problems) or "ok",
            "fix config.toml in the data dir" if config.problems else None,
        )
    ]
    checks += _data_dir_check(home)
    client = LiveClient(home, timeout=5)
    if client.running():
        try:
            status = client.call("status")
        except NoruError as exc:
            checks.append(
                Check("app", False, f"running but not answering: {exc}", "restart `noru app`")
            )
        else:
            checks.append(Check("app", True, "running"))
            hotkey = str(status.get("hotkey"))
            checks.append(
                Check(
                    "hotkey",
                    "grabbed" in hotkey,
                    hotkey,
                    None
                    if "grabbed" in hotkey
                    else "choose another `hotkey` in config.toml, or free it",
                )
            )
            checks.append(
                Check(
                    "app ocr",
                    not str(status.get("ocr")).startswith("unavailable"),
                    str(status.get("ocr")),
                )
            )
    else:
        checks.append(Check("app", False, "not running", "start it with `noru app`"))
    checks += _display_checks()
    checks += _ocr_checks(home)
    return checks
