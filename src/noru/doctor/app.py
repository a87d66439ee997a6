"""The running app's own report over its socket: whether it answers, its
screen access, its hotkey and its OCR engine."""

from __future__ import annotations

from pathlib import Path

from noru import appwire
from noru.doctor.check import Check
from noru.errors import AppNotRunning, AppVersionMismatch, NoruError

__all__ = ["app_checks"]


def app_checks(home: Path) -> tuple[list[Check], appwire.AppStatus | None]:
    """The running app's own report, and its status (None: none answers)."""
    try:
        status = appwire.AppClient(home, timeout=5).expect(appwire.GetStatus(), appwire.AppStatus)
    except AppVersionMismatch as exc:
        fix = "restart it: stop `noru app`, start it again"
        return [Check("app", False, exc.summary, fix)], None
    except AppNotRunning:
        # Not started is no broken install: the live tools wait for it.
        return [Check("app", True, "not running", "start it with `noru app`", warn=True)], None
    except NoruError as exc:
        fix = "restart `noru app`"
        return [Check("app", False, f"running but not answering: {exc}", fix)], None
    hotkey, ocr, screen = status.hotkey, status.ocr, status.screen
    granted = screen.state is appwire.ScreenState.GRANTED
    return [
        Check("app", True, f"running (version {status.app_version})"),
        Check(
            "app screen access",
            granted,
            f"{screen.state}: {screen.detail}",
            None if granted else " ".join(screen.details) or "check $DISPLAY for the app",
        ),
        Check(
            "hotkey",
            hotkey.grabbed,
            str(hotkey),
            None if hotkey.grabbed else "choose another `hotkey` in config.toml, or free it",
        ),
        Check("app ocr", ocr.available, str(ocr), ocr.problem),
    ], status
