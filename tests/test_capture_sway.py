"""Capture on a real Wayland compositor: headless sway, foot windows, grim.

The facade picks the sway backend from the session (``WAYLAND_DISPLAY`` and
sway's IPC socket), never XWayland; pixels are what the client drew, the
facts are the tree's, and a scaled output gives its own pixels."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from noru import access
from noru.capture import Capturer, Degraded
from noru.capture.base import WindowFacts
from noru.store import Filters, Reader
from tests.app_process import SETTLE_FOR_TESTS, capture_then_ask, running_app
from tests.noru_cli import noru_command
from tests.parts import require
from tests.sway import Sway, enter_session, running_sway, same


@pytest.fixture
def session(sway: Sway, monkeypatch: pytest.MonkeyPatch) -> Iterator[Sway]:
    """This process in ``sway``'s session, as the app would be."""
    yield from _in_session(sway, monkeypatch)


def _in_session(sway: Sway, monkeypatch: pytest.MonkeyPatch, **extra: str) -> Iterator[Sway]:
    enter_session(monkeypatch, {**sway.env, **extra})
    yield sway


def test_a_window_capture_is_the_focused_window_with_the_trees_facts(session: Sway) -> None:
    with (
        session.open_foot(["left window"], title="Left pane", app_id="noru.left",
                          x=100, y=100, width=700, height=400) as left,
        session.open_foot(["Quartermaster ledger reconciled"], title="Ledger - foot",
                          app_id="noru.ledger", x=900, y=200, width=800, height=500) as ledger,
        Capturer() as capturer,
    ):  # fmt: skip
        assert capturer.backend_name() == "sway"
        ledger.focus()
        (grab,) = capturer.grab_window("active")
        assert grab.source.app_id == "noru.ledger" == grab.source.app_name
        assert grab.source.window_title == "Ledger - foot"
        assert grab.source.display_name == "HEADLESS-1" and grab.source.display_index == 1
        assert grab.geometry == ledger.rect  # the content, without sway's title bar
        assert grab.image.size == ledger.rect[2:]
        assert same(grab.image, session.grab(rect=ledger.rect))  # what foot drew
        assert len(grab.image.getcolors(1 << 16) or ()) > 1  # not black, not blank
        # "Under the pointer" is the focused window: Wayland does not say more.
        left.focus()
        (pointed,) = capturer.grab_window("pointer")
        assert pointed.source.window_title == "Left pane"
        assert Degraded.NO_POINTER in {m.kind for m in capturer.degraded_modes()}


def test_a_display_capture_carries_the_windows_for_ocr_and_the_focused_apps_facts(
    session: Sway,
) -> None:
    with (
        session.open_foot(["first"], title="First", app_id="noru.first",
                          x=50, y=60, width=600, height=300) as first,
        Capturer() as capturer,
    ):  # fmt: skip
        first.focus()
        (grab,) = capturer.grab_display(1)
        assert grab.image.size == (2560, 1600) and grab.display_mode == "2560x1600"
        assert grab.source.app_id == "noru.first"  # the app the person was in
        assert same(grab.image, session.grab(output="HEADLESS-1"))
        frame = next(v for v in session.views() if v.get("app_id") == "noru.first")["rect"]
        assert (frame["x"], frame["y"], frame["width"], frame["height"]) in grab.windows


def test_each_output_is_captured_at_its_own_scale(
    sway_two_outputs: Sway, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = next(_in_session(sway_two_outputs, monkeypatch))
    with Capturer() as capturer:
        displays = capturer.displays()
        assert [(d.name, d.rect) for d in displays] == [
            ("HEADLESS-1", (0, 0, 2560, 1600)),
            ("HEADLESS-2", (2560, 0, 960, 540)),  # 1920x1080 pixels at scale 2
        ]
        grabs = capturer.grab_all_displays()
        assert [g.image.size for g in grabs] == [(2560, 1600), (1920, 1080)]
        assert same(grabs[1].image, session.grab(output="HEADLESS-2"))  # not up- or downscaled
        with session.open_foot(["on the scaled output"], title="HiDPI", app_id="noru.hidpi",
                               x=2600, y=40, width=800, height=400) as hidpi:  # fmt: skip
            hidpi.focus()
            (window,) = capturer.grab_window("active")
            _, _, w, h = hidpi.rect
            assert window.image.size == (2 * w, 2 * h)  # its own pixels
            assert window.source.display_name == "HEADLESS-2"
            (display,) = capturer.grab_display(2)
            # Its windows, for OCR, are in the image's pixels: twice the layout's.
            frame = next(v for v in session.views() if v.get("app_id") == "noru.hidpi")["rect"]
            x, y = frame["x"] - 2560, frame["y"]
            expected = (2 * x, 2 * y, 2 * frame["width"], 2 * frame["height"])
            assert expected in display.windows


def test_a_fractional_scale_gives_the_outputs_every_pixel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1920x1080 at scale 4/3 is 1440x810 in the layout: grabbed at a scale
    written with six digits (1.33333) grim would give 1919x1079."""
    with running_sway(tmp_path) as sway:
        name = sway.create_output(1920, 1080, scale=4 / 3, x=2560, y=0)
        next(_in_session(sway, monkeypatch))
        with Capturer() as capturer:
            assert capturer.displays()[1].rect == (2560, 0, 1440, 810)
            (grab,) = capturer.grab_display(2)
        assert grab.image.size == (1920, 1080)
        assert same(grab.image, sway.grab(output=name))


def test_an_excluded_window_is_black_in_the_scaled_image_too(
    sway_two_outputs: Sway, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = next(_in_session(sway_two_outputs, monkeypatch))
    with (
        session.open_foot(["vault code 7781"], title="Vault", app_id="noru.vault",
                          x=2600, y=300, width=600, height=200) as vault,
        Capturer() as capturer,
    ):  # fmt: skip

        def excluded(facts: WindowFacts) -> bool:
            return facts.app_id == "noru.vault"

        capturer.excluded = excluded
        (grab,) = capturer.grab_display(2)
        assert grab.excluded == 1
        x, y, w, h = vault.rect
        box = (2 * (x - 2560), 2 * y, 2 * (x - 2560 + w), 2 * (y + h))
        assert grab.image.crop(box).getcolors() == [(4 * w * h, (0, 0, 0))]


def test_a_wayland_session_with_xwayland_is_never_captured_through_it(
    sway_xwayland: Sway, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert sway_xwayland.x_display
    next(_in_session(sway_xwayland, monkeypatch, DISPLAY=sway_xwayland.x_display))
    with Capturer() as capturer:
        assert capturer.backend_name() == "sway"
        (grab,) = capturer.grab_display(1)
        assert grab.image.size == (1280, 800)


def test_a_wayland_session_that_is_not_sway_is_refused_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    from noru.errors import CaptureError

    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-9")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.delenv("SWAYSOCK", raising=False)
    monkeypatch.setenv("DISPLAY", ":0")  # an XWayland one would be; never used
    with Capturer() as capturer, pytest.raises(CaptureError, match="sway, Hyprland and X11"):
        capturer.grab_window()


def test_observe_screen_and_the_handoff_end_to_end_through_noru_mcp(
    sway: Sway, tmp_path: Path
) -> None:
    """`noru app` in the sway session; `noru capture` (the compositor's
    binding runs it) and an agent's handoff and observation over `noru mcp`."""
    home = tmp_path / "noru-home"
    home.mkdir(mode=0o700)
    (home / "config.toml").write_text(SETTLE_FOR_TESTS)
    env = {**sway.env, "NORU_HOME": str(home)}
    access.set_control(home, "allow")
    with (
        sway.open_foot(["Hippopotamus migration finished"], title="Migration - foot",
                       app_id="noru.migration", x=200, y=200, width=900, height=300) as foot,
        running_app(home, env, tmp_path / "app.log"),
    ):  # fmt: skip
        foot.focus()
        handed, looked = capture_then_ask(env, "sway-test")
        doctor = subprocess.run(
            [*noru_command(), "doctor"], env=env, capture_output=True, text=True, timeout=120
        ).stdout
    for answer in (handed, looked):
        blocks = answer["result"]["content"]
        text = "\n".join(b["text"] for b in blocks if b["type"] == "text")
        assert "Migration - foot" in text and "noru.migration" in text
        assert any(b["type"] == "image" for b in blocks)
        assert "Hippopotamus" in text  # the app's OCR read what foot drew
    with Reader.open(home) as reader:
        rows, _ = reader.list_rows(Filters(), limit=10)
    assert sorted(r.origin for r in rows) == ["agent", "user"]
    assert all(r.source.app_id == "noru.migration" for r in rows)
    assert "Wayland (sway)" in doctor and "`noru config sway`" in doctor


def test_noru_config_sway_prints_a_binding_sway_accepts(sway: Sway, tmp_path: Path) -> None:
    done = subprocess.run(
        [*noru_command(), "config", "sway"], env={**os.environ, "NORU_HOME": str(tmp_path)},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    line = done.stdout.strip()
    assert line.startswith("bindsym Ctrl+Mod1+n exec ") and line.endswith(" capture")
    sway.command(line)  # the running compositor takes it (raises if not)
    with pytest.raises(RuntimeError, match="refused"):  # the check can fail
        sway.command("bindsym Ctrl+Nokey+n exec true")


def test_an_xwayland_display_alone_is_recognised_and_refused(
    sway_xwayland: Sway, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Started without the session's WAYLAND_DISPLAY (a unit with DISPLAY only,
    say), Noru would see XWayland as an X server: its outputs give it away."""
    from noru.errors import CaptureError

    assert sway_xwayland.x_display
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("DISPLAY", sway_xwayland.x_display)
    with Capturer() as capturer, pytest.raises(CaptureError, match="is XWayland"):
        capturer.grab_display(1)


def test_an_xwayland_window_is_named_by_its_class_with_no_app_id_guessed(
    sway_xwayland: Sway, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An X11 program on sway (through XWayland) has no Wayland app_id; the
    tree gives its X class, and that is what the capture names."""
    import shutil
    import time

    assert sway_xwayland.x_display
    require(shutil.which("xterm") is not None, "xterm is not installed (make test installs it)")
    next(_in_session(sway_xwayland, monkeypatch, DISPLAY=sway_xwayland.x_display))
    xterm = subprocess.Popen(
        ["xterm", "-T", "An X11 program", "-e", "sleep", "600"],
        env=sway_xwayland.xwayland_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not [v for v in sway_xwayland.views() if v.get("name") == "An X11 program"]:
            assert xterm.poll() is None and time.monotonic() < deadline, "xterm did not map"
            time.sleep(0.05)
        (node,) = [v for v in sway_xwayland.views() if v.get("name") == "An X11 program"]
        assert node.get("app_id") is None and node["window_properties"]["class"] == "XTerm"
        sway_xwayland.command('[title="An X11 program"] focus')
        # Mapped is not yet drawn: on a loaded host xterm's first frame
        # comes a moment after its window shows, one colour until then.
        deadline = time.monotonic() + 30
        with Capturer() as capturer:
            while True:
                (grab,) = capturer.grab_window("active")
                drawn = len(grab.image.getcolors(1 << 16) or ()) > 1
                if drawn or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
        assert grab.source.app_id == "XTerm" == grab.source.app_name
        assert grab.source.window_title == "An X11 program"
        assert len(grab.image.getcolors(1 << 16) or ()) > 1  # XWayland's pixels, composited by sway
    finally:
        xterm.terminate()
        xterm.wait(timeout=30)
