"""Capture through the desktop portal: the real xdg-desktop-portal on headless sway.

The process under test is in a Wayland session with a session bus and no
sway socket it can find (tests/portal.py), as on GNOME or KDE: the facade
takes the portal, whose pixels are what the compositor shows and whose
facts are none beyond the screen's size."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from noru.capture import Capturer, Degraded, portal
from noru.errors import CaptureError, PermissionDenied
from tests.portal import (
    OUT,
    Portal,
    enter_portal_session,
    private_bus,
    running_portal,
)
from tests.sway import Sway, same


@pytest.fixture
def session(sway: Sway, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Portal]:
    with running_portal(tmp_path, sway) as stack:
        enter_portal_session(monkeypatch, stack.env)
        yield stack


def test_a_display_capture_through_the_portal_is_the_screen_with_no_app_or_window(
    sway: Sway, session: Portal
) -> None:
    with (
        sway.open_foot(["Portal pelican 4417"], title="Pelican - foot", app_id="noru.pelican",
                       x=300, y=200, width=900, height=300) as foot,
        Capturer() as capturer,
    ):  # fmt: skip
        foot.focus()
        assert capturer.backend_name() == "portal"
        assert [(d.index, d.name, d.rect) for d in capturer.displays()] == [
            (1, None, (0, 0, 2560, 1600))
        ]
        (grab,) = capturer.grab_display(1)
        assert grab.image.size == (2560, 1600) and grab.display_mode == "2560x1600"
        assert same(grab.image, sway.grab())  # what sway shows, foot's text included
        assert same(grab.image.crop(_box(foot.rect)), sway.grab(rect=foot.rect))
        source = grab.source
        assert (source.display_index, source.display_name) == (1, None)
        assert (source.app_id, source.app_name, source.window_title) == (None, None, None)
        assert grab.windows == ()  # the portal gives no windows for OCR to read one by one
        (region,) = capturer.grab_region(*foot.rect)
        assert same(region.image, sway.grab(rect=foot.rect))
        # The file the portal wrote for the request was read, then removed.
        assert not OUT.exists()
        kinds = {mode.kind for mode in capturer.degraded_modes()}
        assert {Degraded.NO_ACTIVE_WINDOW, Degraded.ONE_DISPLAY} <= kinds


def _box(rect: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    x, y, w, h = rect
    return (x, y, x + w, y + h)


def test_a_window_capture_through_the_portal_is_refused_because_it_gives_no_windows(
    session: Portal,
) -> None:
    with Capturer() as capturer:
        for which in ("active", "pointer"):
            with pytest.raises(
                CaptureError, match="the desktop portal gives only the whole screen"
            ):
                capturer.grab_window(which)  # type: ignore[arg-type]


def test_with_exclusions_set_a_portal_capture_is_refused_since_no_window_can_be_hidden(
    session: Portal,
) -> None:
    with Capturer() as capturer:
        capturer.excluded = lambda facts: facts.app_id == "org.example.vault"
        with pytest.raises(CaptureError, match="windows the person excluded cannot be hidden"):
            capturer.grab_display(1)
    assert not OUT.exists()  # nothing the portal wrote is left behind


def test_sway_is_captured_itself_even_with_a_portal_on_the_bus(
    sway: Sway, session: Portal, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SWAYSOCK", str(sway.swaysock))
    with Capturer() as capturer:
        assert capturer.backend_name() == "sway"


def test_a_portal_whose_backend_cannot_write_the_image_is_a_permission_refusal_that_says_so(
    sway: Sway, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running_portal(tmp_path, sway, read_only_tmp=True) as stack:
        enter_portal_session(monkeypatch, stack.env)
        with Capturer() as capturer, pytest.raises(PermissionDenied) as refused:
            capturer.grab_display(1)
        log = stack.log_text()
    exc = refused.value
    assert exc.tag == "Noru permission denied"
    assert exc.summary == "the desktop portal refused the screenshot"
    assert any("answered 2" in line and "does not say which" in line for line in exc.details)
    assert any("flatpak permission-set screenshot screenshot '' yes" in d for d in exc.details)
    assert "permission store" in exc.next_action
    # What the portal itself logged: its backend failed (grim could not write /tmp).
    assert "Failed to open file '/tmp/out.png' for writing: Read-only file system" in log, log
    assert "A backend call failed" in log, log


def test_a_portal_that_never_answers_is_given_up_after_a_bounded_wait(
    sway: Sway, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(portal, "RESPONSE_TIMEOUT", 1.0)
    with running_portal(tmp_path, sway) as stack:
        enter_portal_session(monkeypatch, stack.env)
        backend = stack.children["xdg-desktop-portal-wlr"]
        with Capturer() as capturer:
            capturer.displays()  # the size, known before the backend stops answering
            os.kill(backend.pid, signal.SIGSTOP)
            try:
                with pytest.raises(CaptureError, match=r"did not answer .* within 1 s"):
                    capturer.grab_display(1)
            finally:
                # Killed while stopped, it never writes the request's file.
                os.kill(backend.pid, signal.SIGKILL)
                backend.process.wait(timeout=10)


def test_a_portal_without_an_access_backend_offers_no_screenshot_and_says_what_is_missing(
    sway: Sway, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running_portal(tmp_path, sway, access=False) as stack:
        enter_portal_session(monkeypatch, stack.env)
        with Capturer() as capturer, pytest.raises(CaptureError, match="no Screenshot portal"):
            capturer.displays()


def test_a_wayland_session_whose_bus_has_no_portal_is_refused_with_the_reason(
    sway: Sway, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)}
    with private_bus(tmp_path, env, tmp_path / "bus.log") as bus:
        enter_portal_session(
            monkeypatch,
            {
                "DBUS_SESSION_BUS_ADDRESS": bus.address,
                "WAYLAND_DISPLAY": str(sway.runtime_dir / sway.wayland_display),
                "XDG_RUNTIME_DIR": str(runtime),
            },
        )
        with Capturer() as capturer, pytest.raises(CaptureError) as refused:
            capturer.grab_display(1)
    words = str(refused.value)
    assert "sway, Hyprland and X11" in words
    assert "the session bus offers no desktop portal (org.freedesktop.portal.Desktop)" in words
    assert "xdg-desktop-portal-gnome" in words


def test_a_wayland_session_with_no_session_bus_is_refused_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    enter_portal_session(
        monkeypatch, {"WAYLAND_DISPLAY": "wayland-9", "XDG_RUNTIME_DIR": str(tmp_path)}
    )
    with Capturer() as capturer, pytest.raises(CaptureError, match="no D-Bus session bus"):
        capturer.grab_display(1)


def _png(path: Path) -> None:
    Image.new("RGB", (4, 3), (200, 10, 10)).save(path)


def test_the_portals_file_is_removed_only_when_written_for_the_request(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.png"
    before = time.time_ns()
    _png(fresh)
    assert portal._take_file(fresh.as_uri(), before).size == (4, 3)
    assert not fresh.exists()  # ours, written during the request: removed
    stale = tmp_path / "stale.png"
    _png(stale)
    os.utime(stale, (1_000_000, 1_000_000))  # written long before the request
    assert portal._take_file(stale.as_uri(), time.time_ns()).size == (4, 3)
    assert stale.exists()  # read, and left alone


def test_the_portals_file_is_never_read_through_a_link(tmp_path: Path) -> None:
    target = tmp_path / "target.png"
    _png(target)
    link = tmp_path / "out.png"
    link.symlink_to(target)
    with pytest.raises(CaptureError, match="cannot be read"):
        portal._take_file(link.as_uri(), time.time_ns())
    assert link.is_symlink() and target.exists()
    with pytest.raises(CaptureError, match="not a local file"):
        portal._take_file("https://example.org/out.png", time.time_ns())
