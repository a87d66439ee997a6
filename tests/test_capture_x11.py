"""Capture on X11, against real Xvfb servers, openbox and Tk windows."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from noru.capture import Capturer, Degraded, Display, Grab
from noru.errors import CaptureError, PermissionDenied

if TYPE_CHECKING:
    # Types only: pytest must import tests.xserver itself, as a plugin, to load
    # its fixtures with assertion rewriting.
    from tests.xserver import TkWindow, XServer

    OpenWindow = Callable[..., TkWindow]

BLUE = "#3366cc"
BLUE_RGB = (0x33, 0x66, 0xCC)
ORANGE = "#e07020"
ORANGE_RGB = (0xE0, 0x70, 0x20)


@pytest.fixture
def capturer(request: pytest.FixtureRequest) -> Iterator[Capturer]:
    """A capturer on the X server fixture the test asks for by argument name."""
    server = next(
        request.getfixturevalue(name)
        for name in ("desktop", "two_monitors", "desktop_without_wm")
        if name in request.fixturenames
    )
    with Capturer(display=server.display) as c:
        yield c


def only(grabs: list[Grab]) -> Grab:
    assert len(grabs) == 1
    return grabs[0]


# -- windows -------------------------------------------------------------------


def test_a_window_capture_is_exactly_the_window_s_size(
    desktop: XServer, open_window: OpenWindow, capturer: Capturer
) -> None:
    window = open_window(desktop, "Sizes", x=200, y=150, width=900, height=560)
    window.activate()

    grab = only(capturer.grab_window("active"))

    assert grab.image.size == (900, 560) == (window.width, window.height)
    assert grab.geometry == (window.x, window.y, window.width, window.height)
    assert grab.image.mode == "RGB"


def test_the_captured_pixels_are_the_window_s_real_pixels(
    desktop: XServer, open_window: OpenWindow, capturer: Capturer
) -> None:
    window = open_window(desktop, "Colours", x=300, y=300, width=640, height=400, background=ORANGE)
    window.activate()

    grab = only(capturer.grab_window("active"))

    # Corners are background; the label with the text sits in the middle.
    for corner in [(5, 5), (634, 5), (5, 394), (634, 394)]:
        assert grab.image.getpixel(corner) == ORANGE_RGB
    # The white text is really there too, not a flat fill.
    assert (255, 255, 255) in {colour for _, colour in grab.image.getcolors(maxcolors=1 << 16)}


def test_a_window_capture_names_the_app_the_title_the_display_and_the_workspace(
    desktop: XServer, open_window: OpenWindow, capturer: Capturer
) -> None:
    title = "main.py - repoB - Visual Studio Code"
    window = open_window(desktop, title, x=120, y=100, width=800, height=500, class_name="Code")
    window.activate()

    grab = only(capturer.grab_window("active"))

    assert grab.source.as_dict() == {
        "display_index": 1,
        # Xvfb's one RandR output is called "screen".
        "display_name": "screen",
        "app_id": "Code",
        "app_name": "Code",
        "window_title": title,
        "workspace_hint": "repoB",
    }
    assert grab.display_mode == "2560x1600"


def test_a_non_ascii_window_title_is_read_as_utf8(
    desktop: XServer, open_window: OpenWindow, capturer: Capturer
) -> None:
    title = "Grüße – café ☕ – naïve"
    window = open_window(desktop, title, x=100, y=100, width=400, height=300)
    window.activate()

    assert only(capturer.grab_window("active")).source.window_title == title


def test_the_active_window_is_captured_even_when_the_pointer_is_over_another(
    desktop: XServer, open_window: OpenWindow, capturer: Capturer
) -> None:
    focused = open_window(desktop, "Focused window", x=100, y=100, width=700, height=500)
    other = open_window(
        desktop, "Other window", x=1200, y=300, width=600, height=400, background=ORANGE
    )
    focused.activate()
    desktop.move_pointer(*other.centre)

    grab = only(capturer.grab_window("active"))

    assert grab.source.window_title == "Focused window"
    assert grab.image.size == (700, 500)


def test_the_window_under_the_pointer_is_captured_when_asked_for(
    desktop: XServer, open_window: OpenWindow, capturer: Capturer
) -> None:
    focused = open_window(desktop, "Focused window", x=100, y=100, width=700, height=500)
    other = open_window(
        desktop, "Window under pointer", x=1200, y=300, width=600, height=400, background=ORANGE
    )
    focused.activate()
    desktop.move_pointer(*other.centre)

    grab = only(capturer.grab_window("pointer"))

    assert grab.source.window_title == "Window under pointer"
    assert grab.image.size == (600, 400)
    assert grab.image.getpixel((5, 5)) == ORANGE_RGB


def test_the_window_under_the_pointer_is_found_from_its_title_bar_too(
    desktop: XServer, open_window: OpenWindow, capturer: Capturer
) -> None:
    window = open_window(desktop, "Title bar", x=800, y=400, width=500, height=300)
    # A few pixels above the client area is openbox's title bar, part of the frame.
    desktop.move_pointer(window.x + 60, window.y - 6)

    grab = only(capturer.grab_window("pointer"))

    assert grab.source.window_title == "Title bar"
    assert grab.geometry == (window.x, window.y, 500, 300)


def test_the_pointer_over_the_bare_desktop_is_no_window(
    desktop: XServer, open_window: OpenWindow, capturer: Capturer
) -> None:
    open_window(desktop, "Somewhere else", x=100, y=100, width=300, height=200)
    desktop.move_pointer(2500, 1550)

    with pytest.raises(CaptureError, match="pointer is over the desktop"):
        capturer.grab_window("pointer")


# -- displays ------------------------------------------------------------------


def test_a_display_capture_is_the_whole_2560x1600_display(
    desktop: XServer, capturer: Capturer
) -> None:
    by_index = only(capturer.grab_display(1))
    desktop.move_pointer(1280, 800)
    under_pointer = only(capturer.grab_display())

    for grab in (by_index, under_pointer):
        assert grab.image.size == (2560, 1600)
        assert grab.geometry == (0, 0, 2560, 1600)
        assert grab.display_mode == "2560x1600"
        assert grab.source.display_index == 1
        assert grab.source.display_name == "screen"


def _shared_memory_maps() -> int:
    """How many mappings of mss's shared-memory grab buffer this process has."""
    return Path("/proc/self/maps").read_text().count("mss-shm-buf")


def test_released_between_grabs_the_shared_memory_goes_and_the_next_grab_is_the_same(
    desktop: XServer, open_window: OpenWindow, capturer: Capturer
) -> None:
    # The app lets go of the grab's shared memory (the size of the screen)
    # when quiet; the next grab makes it again and sees the same screen.
    window = open_window(
        desktop, "Released", x=300, y=300, width=640, height=400, background=ORANGE
    )
    window.activate()
    before = only(capturer.grab_display(1)).image.tobytes()
    assert _shared_memory_maps() == 1
    capturer.release()
    assert _shared_memory_maps() == 0
    after = only(capturer.grab_display(1))
    assert after.image.tobytes() == before
    assert _shared_memory_maps() == 1
    assert capturer.degraded_modes() == []


def test_grabs_read_in_mss_shared_memory_are_the_pixels_mss_hands_back(
    desktop: XServer, open_window: OpenWindow, capturer: Capturer
) -> None:
    """The X11 grab reads mss's shared memory in place, packed straight into
    a PNG's rows (``x11_pixels``); its image, made from them when asked for,
    is the same pixels as mss's own copy decoded by Pillow, for a display, a
    window and a small region; and its rows are that image's scanlines."""
    import mss
    from PIL import Image

    from noru import imaging

    window = open_window(
        desktop, "In place", x=200, y=150, width=900, height=500, text="BGRX rows, two bands"
    )
    window.activate()
    only(capturer.grab_display(1))  # the first: mss sees shared memory work
    grabs = {
        "display": only(capturer.grab_display(1)),
        "window": only(capturer.grab_window("active")),
        "region": only(capturer.grab_region(210, 160, 300, 100)),
    }
    backend = capturer._backend  # the count is the backend's own record, kept for this test
    assert backend is not None and getattr(backend, "grabs_in_place", 0) >= 3
    with mss.MSS(display=desktop.display) as screen:
        for what, grab in grabs.items():
            x, y, w, h = grab.geometry
            shot = screen.grab({"left": x, "top": y, "width": w, "height": h})
            expected = Image.frombytes("RGB", shot.size, bytes(shot.raw), "raw", "BGRX")
            assert grab.image.tobytes() == expected.tobytes(), what
            made = imaging.scanlines(grab.image)
            assert grab.rows is not None and made is not None and grab.rows.data == made.data
    assert len(set(grabs["display"].image.tobytes())) > 2  # not a blank screen


def test_a_display_capture_lists_its_windows_bottom_to_top_for_ocr(
    desktop: XServer, open_window: OpenWindow, capturer: Capturer
) -> None:
    lower = open_window(desktop, "Lower", x=100, y=100, width=500, height=300)
    upper = open_window(desktop, "Upper", x=300, y=250, width=400, height=200)
    upper.activate()

    windows = only(capturer.grab_display(1)).windows

    def frame_holds(rect: tuple[int, int, int, int], window: TkWindow) -> bool:
        x, y, w, h = rect
        return (
            x <= window.x
            and y <= window.y
            and (x + w >= window.x + window.width and y + h >= window.y + window.height)
        )

    holding_lower = [i for i, r in enumerate(windows) if frame_holds(r, lower)]
    holding_upper = [i for i, r in enumerate(windows) if frame_holds(r, upper)]
    assert holding_lower and holding_upper
    assert max(holding_lower) < max(holding_upper)  # stacking order: lower comes first
    assert only(capturer.grab_window("active")).windows == ()


def test_a_display_capture_carries_the_app_of_the_active_window_on_it(
    desktop: XServer, open_window: OpenWindow, capturer: Capturer
) -> None:
    window = open_window(
        desktop, "noru – capture.py", x=400, y=300, width=600, height=400, class_name="Pycharm"
    )
    window.activate()

    source = only(capturer.grab_display(1)).source

    assert (source.app_id, source.window_title, source.workspace_hint) == (
        "Pycharm",
        "noru – capture.py",
        "noru",
    )


def test_asking_for_a_display_that_does_not_exist_says_how_many_there_are(
    desktop: XServer, capturer: Capturer
) -> None:
    with pytest.raises(CaptureError, match="there is no display 3: this screen has 1 display"):
        capturer.grab_display(3)


def test_all_is_well_on_a_desktop_with_a_window_manager_and_randr(
    desktop: XServer, capturer: Capturer
) -> None:
    assert capturer.degraded_modes() == []
    assert capturer.backend_name() == "x11"


def test_the_displays_are_the_randr_monitors_in_randr_order(
    two_monitors: XServer, capturer: Capturer
) -> None:
    assert capturer.displays() == [
        Display(1, "LEFT", 0, 0, 2560, 1440, primary=True),
        Display(2, "RIGHT", 2560, 0, 1920, 1080, primary=False),
    ]


def test_all_displays_gives_one_capture_per_monitor_in_display_order(
    two_monitors: XServer, capturer: Capturer
) -> None:
    grabs = capturer.grab_all_displays()

    assert [g.image.size for g in grabs] == [(2560, 1440), (1920, 1080)]
    assert [g.geometry for g in grabs] == [(0, 0, 2560, 1440), (2560, 0, 1920, 1080)]
    assert [(g.source.display_index, g.source.display_name) for g in grabs] == [
        (1, "LEFT"),
        (2, "RIGHT"),
    ]
    assert [g.display_mode for g in grabs] == ["2560x1440", "1920x1080"]


def test_the_display_under_the_pointer_is_captured_when_no_display_is_named(
    two_monitors: XServer, capturer: Capturer
) -> None:
    two_monitors.move_pointer(3000, 500)

    grab = only(capturer.grab_display())

    assert grab.source.display_index == 2
    assert grab.image.size == (1920, 1080)


def test_a_window_on_the_second_monitor_names_that_display(
    two_monitors: XServer, open_window: OpenWindow, capturer: Capturer
) -> None:
    window = open_window(
        two_monitors, "Right-hand window", x=2900, y=200, width=800, height=600, background=BLUE
    )
    window.activate()

    grab = only(capturer.grab_window("active"))

    assert (grab.source.display_index, grab.source.display_name) == (2, "RIGHT")
    assert grab.display_mode == "1920x1080"
    assert grab.image.getpixel((5, 5)) == BLUE_RGB
    # Only the display holding the active window carries its app facts.
    left, right = capturer.grab_all_displays()
    assert left.source.window_title is None
    assert right.source.window_title == "Right-hand window"


# -- regions -------------------------------------------------------------------


def test_a_region_capture_is_the_rectangle_asked_for(
    desktop: XServer, open_window: OpenWindow, capturer: Capturer
) -> None:
    window = open_window(desktop, "Region", x=1000, y=700, width=600, height=400, background=BLUE)
    window.activate()

    grab = only(capturer.grab_region(window.x + 10, window.y + 10, 64, 48))

    assert grab.image.size == (64, 48)
    assert grab.geometry == (window.x + 10, window.y + 10, 64, 48)
    assert grab.image.getcolors() == [(64 * 48, BLUE_RGB)]
    assert grab.source.display_index == 1
    assert grab.display_mode == "2560x1600"


def test_a_region_reaching_past_the_screen_edge_is_cut_at_the_edge(
    desktop: XServer, capturer: Capturer
) -> None:
    grab = only(capturer.grab_region(2400, 1500, 400, 300))

    assert grab.geometry == (2400, 1500, 160, 100)
    assert grab.image.size == (160, 100)


def test_a_region_outside_the_screen_or_without_area_is_refused(
    desktop: XServer, capturer: Capturer
) -> None:
    with pytest.raises(CaptureError, match="outside the screen"):
        capturer.grab_region(3000, 2000, 100, 100)
    with pytest.raises(CaptureError, match="positive width and height"):
        capturer.grab_region(10, 10, 0, 100)


def test_grabs_from_many_threads_are_taken_one_at_a_time_and_all_succeed(
    desktop: XServer, capturer: Capturer
) -> None:
    sizes: list[tuple[int, int]] = []
    errors: list[BaseException] = []

    def grab(n: int) -> None:
        try:
            sizes.append(only(capturer.grab_region(n * 10, n * 10, 100 + n, 50 + n)).image.size)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=grab, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert errors == []
    assert sorted(sizes) == [(100 + n, 50 + n) for n in range(8)]


# -- without a window manager --------------------------------------------------


def test_without_a_window_manager_status_says_the_active_window_is_unknown(
    desktop_without_wm: XServer, capturer: Capturer
) -> None:
    modes = capturer.degraded_modes()

    assert [mode.kind for mode in modes] == [Degraded.NO_WINDOW_MANAGER]
    assert modes[0].reason.startswith("no window manager: active window unknown")


def test_without_a_window_manager_doctor_warns_and_still_passes(
    desktop_without_wm: XServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from noru.doctor.screen import display_checks

    monkeypatch.setenv("DISPLAY", desktop_without_wm.display)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    checks = {check.name: check for check in display_checks()}
    # Captures work without one, with fewer window facts: warnings, not failures.
    assert checks["display"].level == "ok"
    assert checks["window manager"].level == "warn"
    assert checks["window manager"].fix == "start a window manager (e.g. openbox)"
    backend = checks["capture backend"]
    assert backend.level == "warn" and backend.fix and "no window manager" in backend.fix


def test_without_a_window_manager_a_display_capture_has_no_window_facts(
    desktop_without_wm: XServer, open_window: OpenWindow, capturer: Capturer
) -> None:
    open_window(desktop_without_wm, "Unmanaged - repoC - Editor", x=50, y=50, width=300, height=200)

    grab = only(capturer.grab_display(1))

    assert grab.image.size == (1280, 800)
    assert grab.source.as_dict() == {
        "display_index": 1,
        "display_name": "screen",
        "app_id": None,
        "app_name": None,
        "window_title": None,
        "workspace_hint": None,
    }


def test_without_a_window_manager_the_window_under_the_pointer_stands_in_for_the_active_one(
    desktop_without_wm: XServer, open_window: OpenWindow, capturer: Capturer
) -> None:
    window = open_window(
        desktop_without_wm,
        "user@host: ~/src/repoC",
        x=100,
        y=80,
        width=500,
        height=300,
        class_name="Gnome-terminal",
    )
    desktop_without_wm.move_pointer(*window.centre)

    grab = only(capturer.grab_window("active"))

    # With no WM nothing reparents the window, so it sits exactly where it asked.
    assert grab.geometry == (100, 80, 500, 300)
    assert (grab.source.app_id, grab.source.window_title, grab.source.workspace_hint) == (
        "Gnome-terminal",
        "user@host: ~/src/repoC",
        "repoC",
    )


def test_without_a_window_manager_a_window_partly_off_screen_is_cut_at_the_edge(
    desktop_without_wm: XServer, open_window: OpenWindow, capturer: Capturer
) -> None:
    open_window(desktop_without_wm, "Overhang", x=1000, y=600, width=500, height=400)
    desktop_without_wm.move_pointer(1100, 700)

    grab = only(capturer.grab_window("pointer"))

    assert grab.geometry == (1000, 600, 280, 200)
    assert grab.image.size == (280, 200)


def test_without_a_window_manager_and_no_window_under_the_pointer_nothing_is_captured(
    desktop_without_wm: XServer, capturer: Capturer
) -> None:
    desktop_without_wm.move_pointer(1270, 790)

    with pytest.raises(CaptureError, match="the active window is unknown"):
        capturer.grab_window("active")


# -- access and platforms ------------------------------------------------------


def test_an_x_server_that_refuses_noru_s_connection_is_permission_denied(
    desktop_with_auth: XServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XAUTHORITY", str(tmp_path / "no-cookie"))

    with (
        Capturer(display=desktop_with_auth.display) as capturer,
        pytest.raises(PermissionDenied) as refused,
    ):
        capturer.grab_display(1)

    assert refused.value.tag == "Noru permission denied"
    assert str(refused.value) == "the X server refused Noru's connection (authorization)"
    assert "XAUTHORITY" in refused.value.next_action

    # The same server admits a client that holds its cookie: the refusal was authorization.
    monkeypatch.setenv("XAUTHORITY", str(desktop_with_auth.xauthority))
    with Capturer(display=desktop_with_auth.display) as capturer:
        assert only(capturer.grab_display(1)).image.size == (1024, 768)


def test_a_display_with_no_x_server_is_a_capture_error(tmp_path: Path) -> None:
    unused = next(n for n in range(4000, 5000) if not Path(f"/tmp/.X{n}-lock").exists())

    with (
        Capturer(display=f":{unused}") as capturer,
        pytest.raises(CaptureError, match=f"no X server is reachable at display :{unused}"),
    ):
        capturer.displays()


def test_no_display_at_all_is_a_capture_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)

    with Capturer() as capturer, pytest.raises(CaptureError, match=r"\$DISPLAY is not set"):
        capturer.grab_display()


def test_a_wayland_session_is_not_captured_through_xwayland(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("SWAYSOCK", raising=False)  # not sway: no backend for it yet
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/nonexistent")

    with Capturer() as capturer, pytest.raises(CaptureError, match=r"Wayland .* not supported yet"):
        capturer.grab_window()


def test_macos_capture_is_not_supported_yet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")

    with Capturer() as capturer, pytest.raises(CaptureError, match="macOS is not supported yet"):
        capturer.grab_display()


def test_importing_or_creating_a_capturer_opens_no_display_connection() -> None:
    code = (
        "import sys\n"
        "from noru.capture import Capturer\n"
        "Capturer(display=':4999')\n"
        "loaded = [m for m in ('Xlib', 'mss', 'PIL.Image') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ})


def test_a_closed_capturer_takes_no_more_captures(desktop: XServer) -> None:
    capturer = Capturer(display=desktop.display)
    assert only(capturer.grab_region(0, 0, 10, 10)).image.size == (10, 10)
    capturer.close()

    with pytest.raises(CaptureError, match="closed"):
        capturer.grab_region(0, 0, 10, 10)
