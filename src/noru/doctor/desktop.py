"""The desktop session around the app: the accessibility bus and its
switch, the Noru menu and notifications, how Noru starts at login, and the
OCR engines installed."""

from __future__ import annotations

from noru.appwire import MenuState
from noru.doctor.check import Check
from noru.paths import noru_executable

__all__ = ["autostart_check", "ax_checks", "ocr_checks", "panel_check"]


def ax_checks(budget: float, switch: bool) -> list[Check]:
    """The accessibility bus, the apps exposing a tree, and the session's switch."""
    if not budget:
        return [Check("accessibility", True, "switched off (ax_budget = 0 in config.toml)")]
    from noru import ax

    apps = ax.exposing_apps()
    if apps.absent is not None:
        # Captures and their OCR text work without it: a warning.
        return [
            Check(
                "accessibility bus",
                True,
                apps.reason or str(apps.absent),
                "run Noru inside the desktop session (its D-Bus), with Debian's at-spi2-core "
                "installed; or set ax_budget = 0 in config.toml to read no accessibility text",
                warn=True,
            )
        ]
    named = ", ".join(
        f"{app.name}" + (f" ({app.toolkit})" if app.toolkit else "") for app in apps.apps
    )
    checks = [
        Check(
            "accessibility bus",
            True,
            f"{len(apps.apps)} running apps expose a tree" + (f": {named}" if named else ""),
        )
    ]
    session = ax.session_status()
    if session.enabled is None:
        checks.append(Check("accessibility switch", True, f"unknown: {session.reason}"))
    else:
        state = "on" if session.enabled else "off"
        note = (
            "every app builds its tree"
            if session.enabled
            else "GTK apps expose theirs anyway; Firefox and Qt apps only when it is on "
            "(ax_switch = true in config.toml; each app then spends memory and time on it)"
        )
        wanted = " (ax_switch = true: the app switches it on)" if switch else ""
        checks.append(Check("accessibility switch", True, f"{state}{wanted}: {note}"))
    return checks


def autostart_check() -> Check:
    """How Noru starts at login; not being set up is no failure, a dead path is,
    and one that starts another `noru` or data dir is a warning."""
    from noru import autostart

    found = autostart.report(exe=noru_executable())
    broken = found.broken()
    here = found.how is None or all(
        s.points_at(found.exe, found.home) for s in (found.unit, found.entry) if s is not None
    )
    return Check(
        "start at login",
        broken is None,
        found.summary(),
        None if here else "`noru autostart on` points it at this noru and this data dir",
        warn=broken is None and not here,
    )


def panel_check(menu_state: MenuState | None = None) -> Check:
    """Whether the Noru menu and its notifications can show; neither is a failure.
    ``menu_state``: the running app's own word, which knows a notification
    server that is there but does not answer."""
    from noru.panel.hosts import hosts

    found = hosts()
    if isinstance(found, str):
        return Check("noru menu", True, f"not shown: {found}")
    menu = (
        "a panel host (StatusNotifierWatcher) is on the session bus: the app shows the Noru menu"
        if found["menu"]
        else "not shown: no StatusNotifierItem host on the session bus (KDE, XFCE, waybar"
        " have one; GNOME with the AppIndicator extension)"
    )
    told = "notifications: yes" if found["notifications"] else "notifications: no server"
    if menu_state is not None and menu_state.notifications:
        told = f"notifications: {menu_state.notifications}"
    return Check("noru menu", True, f"{menu}; {told}")


def ocr_checks(configured: str) -> list[Check]:
    """Every engine Noru knows; only the ``configured`` one must work."""
    from noru.ocr import describe, registered_engines

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
