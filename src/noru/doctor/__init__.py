"""`noru doctor`: what works on this machine, and what to do where it does not.

Each check is data (``Check``): a name, whether it passed, what was found,
and the fix. The CLI prints them; tests read them. The checks are grouped by
what they look at: the configuration (here), the data dir and its history
(``data_dir``), what guards it (``privacy``), the running app's report
(``app``), the screen (``screen``), and the desktop around it: accessibility,
the menu, start at login, the OCR engines (``desktop``).

While the app runs, the screen and the session bus are checked where the
app runs (``AppSession``: the app says which display and bus it uses), not
in the terminal doctor runs in: beside `make run`'s private display, or from
an ssh shell, that terminal has no ``$DISPLAY`` and no bus of its own, and
what matters is what the app can capture and read.

One run reads the person's settings once (``noru.settings.snapshot``):
``config.toml``, the redaction policy and the access state, passed down to
the checks that look at them.
"""

from __future__ import annotations

import os
from pathlib import Path

from noru.doctor.app import app_checks
from noru.doctor.check import Check
from noru.doctor.data_dir import data_dir_checks
from noru.doctor.desktop import autostart_check, ax_checks, ocr_checks, panel_check
from noru.doctor.screen import display_checks, in_session
from noru.settings import snapshot

__all__ = ["Check", "run_checks"]


def run_checks(home: Path) -> list[Check]:
    settings = snapshot(home)
    config = settings.config
    checks = [
        Check(
            "configuration",
            not config.problems,
            "; ".join(config.problems) or "ok",
            "fix config.toml in the data dir" if config.problems else None,
        )
    ]
    checks += data_dir_checks(settings)
    app, status = app_checks(home)
    checks += app
    session = status.session if status is not None else None
    terminal = os.environ.get("WAYLAND_DISPLAY") or os.environ.get("DISPLAY") or None
    with in_session(session):
        checks += display_checks(apps=session is not None, terminal=terminal)
        checks += ax_checks(config.ax_budget, config.ax_switch)
        checks.append(panel_check(status.menu if status is not None else None))
    checks += ocr_checks(config.ocr_engine)
    checks.append(autostart_check())
    return checks
