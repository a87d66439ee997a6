"""Capture in a Hyprland session: its IPC's facts, grim's pixels.

Hyprland cannot run here (not packaged for Debian): its request socket is
tests/hyprland.py's, answering in Hyprland's format for a real headless
sway, whose real windows ``grim`` grabs. What these tests show is Noru's
side: it picks Hyprland from the session, reads Hyprland's units (a
monitor's size in pixels, windows by workspace), crops the right pixels,
and says clearly what is wrong when the socket misbehaves."""

from __future__ import annotations

import json
import re
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from noru import access
from noru.capture import Capturer
from noru.capture.base import WindowFacts
from noru.capture.hyprland import HyprlandBackend, hyprland_socket
from noru.errors import CaptureError
from noru.store import Filters, Reader
from tests.app_process import SETTLE_FOR_TESTS, capture_then_ask, running_app
from tests.hyprland import HyprlandSocket, hyprland_socket_for
from tests.noru_cli import noru_command
from tests.sway import Sway, enter_session, running_sway, same


def _session(sway: Sway, monkeypatch: pytest.MonkeyPatch) -> Iterator[HyprlandSocket]:
    with hyprland_socket_for(sway) as ipc:
        enter_session(monkeypatch, ipc.env, drop=("DISPLAY", "SWAYSOCK"))
        yield ipc


@pytest.fixture
def hyprland(sway: Sway, monkeypatch: pytest.MonkeyPatch) -> Iterator[HyprlandSocket]:
    """This process in a Hyprland session on ``sway``'s screen."""
    yield from _session(sway, monkeypatch)


@pytest.fixture
def hyprland_two_outputs(
    sway_two_outputs: Sway, monkeypatch: pytest.MonkeyPatch
) -> Iterator[HyprlandSocket]:
    yield from _session(sway_two_outputs, monkeypatch)


def test_a_window_capture_is_the_active_window_with_hyprlands_facts(
    hyprland: HyprlandSocket,
) -> None:
    sway = hyprland.sway
    with (
        sway.open_foot(["left window"], title="Left pane", app_id="noru.hl-left",
                       x=100, y=100, width=700, height=400) as left,
        sway.open_foot(["Quartermaster ledger reconciled"], title="Ledger - foot",
                       app_id="noru.hl-ledger", x=900, y=200, width=800, height=500) as ledger,
        Capturer() as capturer,
    ):  # fmt: skip
        assert capturer.backend_name() == "hyprland"
        ledger.focus()
        (grab,) = capturer.grab_window("active")
        assert grab.source.app_id == "noru.hl-ledger" == grab.source.app_name
        assert grab.source.window_title == "Ledger - foot"
        assert grab.source.display_name == "HEADLESS-1"
        assert grab.geometry == ledger.rect  # Hyprland's at + size
        assert same(grab.image, sway.grab(rect=ledger.rect))  # what foot drew
        assert len(grab.image.getcolors(1 << 16) or ()) > 1
        left.focus()
        (pointed,) = capturer.grab_window("pointer")  # the focused one: no pointer
        assert pointed.source.window_title == "Left pane"
    # Every fact came from Hyprland's socket (sway's was not in the session).
    assert {"j/monitors", "j/activewindow"} <= set(hyprland.asked)
    assert all(hyprland.half_closed)  # each request ended by its EOF, not left to a timeout


def test_only_windows_on_a_shown_workspace_are_on_screen(hyprland: HyprlandSocket) -> None:
    sway = hyprland.sway
    with (
        sway.open_foot(["here"], title="Here", app_id="noru.hl-here",
                       x=60, y=60, width=500, height=300) as here,
        sway.open_foot(["elsewhere"], title="Elsewhere", app_id="noru.hl-away",
                       x=700, y=60, width=500, height=300),
        Capturer() as capturer,
    ):  # fmt: skip
        sway.command('[app_id="^noru[.]hl-away$"] move container to workspace 7')
        here.focus()
        listed = {c["title"]: c["workspace"]["id"] for c in hyprland._clients()}
        assert listed["Elsewhere"] == 7 and listed["Here"] != 7  # Hyprland lists both
        (grab,) = capturer.grab_display(1)
        assert grab.source.app_id == "noru.hl-here"
        assert here.rect in grab.windows
        assert len(grab.windows) == 1  # the one on workspace 7 is not on screen


def test_hyprlands_monitor_sizes_are_pixels_and_each_is_captured_at_its_scale(
    hyprland_two_outputs: HyprlandSocket,
) -> None:
    sway = hyprland_two_outputs.sway
    (second,) = [m for m in hyprland_two_outputs._monitors() if m["name"] == "HEADLESS-2"]
    assert (second["width"], second["height"], second["scale"]) == (1920, 1080, 2.0)
    with Capturer() as capturer:
        assert [(d.name, d.rect) for d in capturer.displays()] == [
            ("HEADLESS-1", (0, 0, 2560, 1600)),
            ("HEADLESS-2", (2560, 0, 960, 540)),  # the layout's size: pixels / scale
        ]
        grabs = capturer.grab_all_displays()
        assert [g.image.size for g in grabs] == [(2560, 1600), (1920, 1080)]
        assert same(grabs[1].image, sway.grab(output="HEADLESS-2"))
        with sway.open_foot(["vault code 7781"], title="Vault", app_id="noru.hl-vault",
                            x=2600, y=300, width=600, height=200) as vault:  # fmt: skip
            vault.focus()
            (window,) = capturer.grab_window("active")
            x, y, w, h = vault.rect
            assert window.image.size == (2 * w, 2 * h)  # its own pixels
            assert window.source.display_name == "HEADLESS-2"

            def excluded(facts: WindowFacts) -> bool:
                return facts.app_id == "noru.hl-vault"

            capturer.excluded = excluded
            (display,) = capturer.grab_display(2)
            assert display.excluded == 1
            box = (2 * (x - 2560), 2 * y, 2 * (x - 2560 + w), 2 * (y + h))
            assert display.image.crop(box).getcolors() == [(4 * w * h, (0, 0, 0))]


def test_no_active_window_leaves_a_display_capture_without_window_facts(
    hyprland: HyprlandSocket,
) -> None:
    sway = hyprland.sway
    with (
        sway.open_foot(["unfocused"], title="Unfocused", app_id="noru.hl-none",
                       x=60, y=60, width=500, height=300),
        Capturer() as capturer,
    ):  # fmt: skip
        hyprland.answer("j/activewindow", b"{}")  # Hyprland's word for none
        (grab,) = capturer.grab_display(1)
        assert grab.source.app_id is None and grab.source.window_title is None
        with pytest.raises(CaptureError, match="no window to capture"):
            capturer.grab_window("active")


def _client(title: str, workspace: int, at: tuple[int, int], **more: object) -> dict[str, object]:
    """One entry of ``hyprctl -j clients`` (the fields Noru reads, and a few it does not)."""
    entry: dict[str, object] = {
        "address": f"0x{abs(hash(title)) % (1 << 40):x}", "mapped": True, "hidden": False,
        "at": list(at), "size": [300, 200], "workspace": {"id": workspace, "name": str(workspace)},
        "floating": False, "pseudo": False, "monitor": 0, "class": f"noru.{title.lower()}",
        "title": title, "pid": 4242, "xwayland": False, "pinned": False, "fullscreen": 0,
        "grouped": [], "tags": [], "swallowing": "0x0", "focusHistoryID": 3,
    }  # fmt: skip
    entry.update(more)
    return entry


def _stack(ipc: HyprlandSocket, clients: list[dict[str, object]], **monitor: object) -> list[str]:
    """The titles Noru stacks, bottom to top, for these ``clients`` on the
    real monitor as Hyprland describes it (with ``monitor``'s fields changed)."""
    described = ipc._monitors()
    described[0].update(monitor)
    ipc.answer("j/monitors", json.dumps(described).encode())
    ipc.answer("j/clients", json.dumps(clients).encode())
    focused = next((c for c in clients if c.get("focusHistoryID") == 0), {})
    ipc.answer("j/activewindow", json.dumps(focused).encode())
    stacked = HyprlandBackend(str(ipc.path)).stacked_windows()
    return [facts.title for _, facts in stacked if facts is not None]


def test_windows_are_stacked_as_hyprland_draws_them(hyprland: HyprlandSocket) -> None:
    shown = hyprland._monitors()[0]["activeWorkspace"]["id"]
    # Tiled windows with the focused one last, then floating ones.
    assert _stack(hyprland, [
        _client("Tiled", shown, (0, 0)),
        _client("Focused", shown, (300, 0), focusHistoryID=0),
        _client("Floating", shown, (100, 100), floating=True),
        _client("Later", shown, (600, 0)),
        _client("Elsewhere", shown + 4, (0, 0)),  # on a workspace no monitor shows
        _client("Tab", shown, (0, 0), hidden=True),  # a group's tab behind the one shown
    ]) == ["Tiled", "Later", "Focused", "Floating"]  # fmt: skip
    # A full-screen window hides its workspace but floating windows raised
    # after it (listed after it); the numeric mode of 0.42 on and the older bool alike.
    for full in (2, True):
        assert _stack(hyprland, [
            _client("Under", shown, (0, 0), floating=True),
            _client("Full", shown, (0, 0), fullscreen=full, size=[2560, 1600]),
            _client("Tiled after", shown, (0, 0)),
            _client("Over", shown, (50, 50), floating=True),
        ]) == ["Full", "Over"]  # fmt: skip
    # The focused window is Hyprland's to say, even one its stacking hides.
    _stack(hyprland, [
        _client("Focused under", shown, (40, 30), floating=True, focusHistoryID=0),
        _client("Full", shown, (0, 0), fullscreen=2, size=[2560, 1600]),
    ])  # fmt: skip
    active = HyprlandBackend(str(hyprland.path)).active_window()
    assert active is not None and active.title == "Focused under"
    assert active.rect == (40, 30, 300, 200)
    # An open special workspace lies over the monitor's workspace, pinned
    # windows over both.
    assert _stack(hyprland, [
        _client("Pinned", shown, (0, 0), floating=True, pinned=True),
        _client("Special", -98, (0, 0)),
        _client("Normal", shown, (0, 0), floating=True),
    ], specialWorkspace={"id": -98, "name": "special:magic"}) == [
        "Normal", "Special", "Pinned",
    ]  # fmt: skip


def test_an_older_hyprlands_answers_are_read_too(hyprland: HyprlandSocket) -> None:
    """Before 0.42 ``fullscreen`` was a bool beside ``fullscreenMode``; older
    monitors have no ``disabled`` nor ``specialWorkspace``."""
    shown = hyprland._monitors()[0]["activeWorkspace"]["id"]
    described = hyprland._monitors()
    for field in ("disabled", "specialWorkspace", "mirrorOf", "solitary"):
        del described[0][field]
    clients = [
        _client("Old", shown, (10, 20), fullscreen=False, fullscreenMode=0, focusHistoryID=0),
    ]
    hyprland.answer("j/monitors", json.dumps(described).encode())
    hyprland.answer("j/clients", json.dumps(clients).encode())
    hyprland.answer("j/activewindow", json.dumps(clients[0]).encode())
    with Capturer() as capturer:
        assert [d.rect for d in capturer.displays()] == [(0, 0, 2560, 1600)]
        (grab,) = capturer.grab_window("active")
    assert grab.source.window_title == "Old" and grab.geometry == (10, 20, 300, 200)


def test_a_fractional_scale_printed_with_two_decimals_is_read_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 1920x1080 monitor at scale 4/3 is 1440x810 in the layout; Hyprland
    prints its scale as 1.33, and 1920 / 1.33 would be 1444."""
    with running_sway(tmp_path) as sway:
        name = sway.create_output(1920, 1080, scale=4 / 3, x=2560, y=0)
        for ipc in _session(sway, monkeypatch):
            (printed,) = [m["scale"] for m in ipc._monitors() if m["name"] == name]
            assert printed == 1.33
            with Capturer() as capturer:
                assert capturer.displays()[1].rect == (2560, 0, 1440, 810)
                (grab,) = capturer.grab_display(2)
                assert grab.image.size == (1920, 1080)  # its own pixels, not 1915 nor 1925
                assert same(grab.image, sway.grab(output=name))


@pytest.mark.parametrize(
    ("request_", "reply", "words"),
    [
        ("j/monitors", b"unknown request", "did not answer monitors in JSON (it said: unknown"),
        ("j/clients", b'{"not": "a list"}', "answer to clients is not a list of objects"),
        ("j/clients", b"[" + b'{"at": "nowhere", "workspace": {"id": 1}}' + b"]",
         "a window it cannot mean"),
        ("j/monitors", b'[{"name": "M", "x": 0, "y": 0, "width": "wide", "height": 9}]',
         "a monitor it cannot mean"),
        ("j/monitors", b"[]", "Hyprland has no active output to capture"),
    ],
)  # fmt: skip
def test_an_answer_hyprland_would_not_give_is_a_clear_capture_error(
    hyprland: HyprlandSocket, request_: str, reply: bytes, words: str
) -> None:
    with Capturer() as capturer:
        capturer.displays()  # opened on good answers
        hyprland.answer(request_, reply)
        with pytest.raises(CaptureError) as failed:
            capturer.grab_display(1)
    assert words in str(failed.value)


def test_a_hyprland_that_quit_is_a_capture_error_and_a_new_one_is_found(
    hyprland: HyprlandSocket, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Capturer() as capturer:
        assert capturer.grab_display(1)
        hyprland.answer("j/monitors", None)  # the connection closes unanswered
        with pytest.raises(CaptureError, match="did not answer monitors in JSON"):
            capturer.grab_display(1)
        hyprland.stop()
        with pytest.raises(CaptureError, match="Hyprland does not answer on its IPC socket"):
            capturer.grab_display(1)
        # Hyprland again, under a new signature: the next capture finds it.
        with hyprland_socket_for(hyprland.sway) as again:
            monkeypatch.setenv("HYPRLAND_INSTANCE_SIGNATURE", again.signature)
            (grab,) = capturer.grab_display(1)
            assert grab.image.size == (2560, 1600)
            assert "j/monitors" in again.asked


def test_a_signature_with_a_path_in_it_or_a_stale_one_names_no_hyprland(
    hyprland: HyprlandSocket, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A signature is a name, never a path: one that would lead to a socket
    elsewhere is refused; a stale one falls through to the next backend
    (here none: the refusal says what Noru looked for)."""
    runtime = hyprland.sway.runtime_dir
    assert hyprland_socket() == str(hyprland.path)
    # Sockets where the tricks would lead: ../hypr/SIG is the real one, and
    # ".." names $XDG_RUNTIME_DIR/hypr/../.socket.sock.
    decoy = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    decoy.bind(str(runtime / ".socket.sock"))
    try:
        for signature in (f"../hypr/{hyprland.signature}", ".."):
            monkeypatch.setenv("HYPRLAND_INSTANCE_SIGNATURE", signature)
            assert hyprland_socket() is None
    finally:
        decoy.close()
        (runtime / ".socket.sock").unlink()
    for signature in ("gone_123", ""):
        monkeypatch.setenv("HYPRLAND_INSTANCE_SIGNATURE", signature)
        assert hyprland_socket() is None
        # No Hyprland, no $SWAYSOCK, no session bus for a portal: refused, saying why.
        with Capturer() as capturer, pytest.raises(CaptureError, match="sway, Hyprland and X11"):
            capturer.backend_name()


def test_doctor_names_hyprland_and_its_binding(hyprland: HyprlandSocket, tmp_path: Path) -> None:
    home = tmp_path / "noru-home"
    home.mkdir(mode=0o700)
    env = {**hyprland.env, "NORU_HOME": str(home)}
    doctor = subprocess.run(
        [*noru_command(), "doctor"], env=env, capture_output=True, text=True, timeout=120
    ).stdout
    assert "Wayland (Hyprland)" in doctor and "`noru config hyprland`" in doctor
    assert re.search(r"capture backend: hyprland\b", doctor)  # the backend chosen
    done = subprocess.run(
        [*noru_command(), "config", "hyprland"], env=env, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    line = done.stdout.strip()
    assert line.startswith("bind = CTRL ALT, N, exec, ") and line.endswith(" capture")


def test_a_capture_and_an_agents_look_end_to_end_on_hyprland(
    hyprland: HyprlandSocket, tmp_path: Path
) -> None:
    """`noru app` in the Hyprland session; `noru capture` (Hyprland's binding
    runs it) and an agent's handoff and observation over `noru mcp`."""
    home = tmp_path / "noru-home"
    home.mkdir(mode=0o700)
    (home / "config.toml").write_text(SETTLE_FOR_TESTS)
    env = {**hyprland.env, "NORU_HOME": str(home)}
    access.set_control(home, "allow")
    with (
        hyprland.sway.open_foot(["Hippopotamus census counted"], title="Census - foot",
                                app_id="noru.hl-census", x=200, y=200, width=900,
                                height=300) as foot,
        running_app(home, env, tmp_path / "app.log"),
    ):  # fmt: skip
        foot.focus()
        handed, looked = capture_then_ask(env, "hyprland-test")
    for answer in (handed, looked):
        blocks = answer["result"]["content"]
        text = "\n".join(b["text"] for b in blocks if b["type"] == "text")
        assert "Census - foot" in text and "noru.hl-census" in text
        assert "Hippopotamus" in text  # the app's OCR read what foot drew
    with Reader.open(home) as reader:
        rows, _ = reader.list_rows(Filters(), limit=10)
    assert sorted(r.origin for r in rows) == ["agent", "user"]
    assert all(r.source.app_id == "noru.hl-census" for r in rows)
    assert "j/clients" in hyprland.asked
