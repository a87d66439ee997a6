"""The headless sway fixture gives real things: windows, outputs and pixels.

These test the test infrastructure (tests/sway.py) that the Wayland capture
tests stand on: what the tree says matches what the clients are, and grim's
pixels are what they drew.
"""

from __future__ import annotations

import statistics
import subprocess
import time

from PIL import Image

from tests.parts import FIGURES
from tests.sway import Sway


def _dark_pixels(image: Image.Image) -> int:
    return sum(image.convert("L").histogram()[:96])


def _uniform(image: Image.Image) -> bool:
    return image.getcolors(1) is not None  # None: more colours than one


def test_two_foot_windows_appear_in_the_tree_with_their_app_id_title_pid_and_rect(
    sway: Sway,
) -> None:
    with (
        sway.open_foot(
            ["Noru sees this window"],
            title="Noru fixture one",
            app_id="noru-fixture-one",
            x=100,
            y=120,
            width=800,
            height=400,
        ) as one,
        sway.open_foot(
            ["and this one"],
            title="Noru fixture two",
            app_id="noru-fixture-two",
            x=1000,
            y=600,
            width=640,
            height=360,
        ) as two,
    ):
        views = {v["app_id"]: v for v in sway.views()}
        for foot, (x, y, width, height) in (
            (one, (100, 120, 800, 400)),
            (two, (1000, 600, 640, 360)),
        ):
            node = views[foot.app_id]
            assert node["name"] == foot.title
            assert node["pid"] == foot.pid
            assert node["type"] == "floating_con"
            # The outer box (title bar + borders) is where it was put...
            deco, outer = node["deco_rect"], node["rect"]
            assert (deco["x"], deco["y"]) == (x, y)
            assert (outer["width"], deco["height"] + outer["height"]) == (width, height)
            # ... and the content lies inside it, where Foot.rect says.
            window = node["window_rect"]
            assert foot.rect == (
                outer["x"] + window["x"],
                outer["y"] + window["y"],
                window["width"],
                window["height"],
            )
            cx, cy, cw, ch = foot.rect
            assert x <= cx and cx + cw <= x + width and y < cy and cy + ch <= y + height
    left = {v["app_id"] for v in sway.views()}
    assert not left & {"noru-fixture-one", "noru-fixture-two"}
    assert not one.alive() and not two.alive()


def test_grim_of_the_output_is_2560x1600_and_shows_what_the_terminals_drew(sway: Sway) -> None:
    with sway.open_foot(["a terminal on the screen"], title="Noru screen", app_id="noru-screen"):
        image = sway.grab()
        assert image.size == (2560, 1600)
        assert image.mode == "RGB"
        assert not _uniform(image)
        assert sway.grab(output="HEADLESS-1").size == (2560, 1600)


def test_grim_of_a_foot_windows_rect_holds_dark_text_on_its_light_background(sway: Sway) -> None:
    with sway.open_foot(
        ["Dark text on a light background", "NORU 0123456789"],
        title="Noru text",
        app_id="noru-text",
        x=200,
        y=200,
        width=700,
        height=300,
    ) as foot:
        image = sway.grab(rect=foot.rect)
        assert image.size == foot.rect[2:]
        # Mostly the background, white as asked; the text is dark ink on it.
        assert image.getpixel((image.width - 1, image.height - 1)) == (255, 255, 255)
        assert image.convert("L").histogram()[255] > image.width * image.height // 2
        assert _dark_pixels(image) > 200
        # The text is in the top left, where a terminal puts its first rows.
        assert _dark_pixels(image.crop((0, 0, image.width // 2, 60))) > 200
        assert _dark_pixels(image.crop((0, image.height // 2, image.width, image.height))) == 0


def test_a_second_output_at_scale_2_is_960x540_logical_and_1920x1080_in_pixels(
    sway_two_outputs: Sway,
) -> None:
    outputs = {o["name"]: o for o in sway_two_outputs.outputs()}
    assert set(outputs) == {"HEADLESS-1", "HEADLESS-2"}
    second = outputs["HEADLESS-2"]
    assert second["scale"] == 2.0
    assert (second["current_mode"]["width"], second["current_mode"]["height"]) == (1920, 1080)
    assert second["rect"] == {"x": 2560, "y": 0, "width": 960, "height": 540}
    assert sway_two_outputs.grab(output="HEADLESS-2").size == (1920, 1080)
    assert sway_two_outputs.grab(output="HEADLESS-1").size == (2560, 1600)
    # A window placed on it lands in its workspace, drawn at its scale.
    with sway_two_outputs.open_foot(
        ["on the scaled output"],
        title="Noru scaled",
        app_id="noru-scaled",
        x=2600,
        y=40,
        width=400,
        height=300,
    ) as foot:
        workspaces = {
            w["name"]: output["name"]
            for output in sway_two_outputs.tree()["nodes"]
            for w in output["nodes"]
            if any(f["id"] == foot.con_id for f in w["floating_nodes"])
        }
        assert list(workspaces.values()) == ["HEADLESS-2"]
        width, height = foot.rect[2:]
        assert sway_two_outputs.grab(rect=foot.rect).size == (width * 2, height * 2)


def test_xwayland_when_asked_is_an_x_server_sway_manages_with_an_xwayland_output(
    sway_xwayland: Sway,
) -> None:
    assert "DISPLAY" not in sway_xwayland.env
    env = sway_xwayland.xwayland_env
    monitors = subprocess.run(
        ["xrandr", "--listmonitors"], env=env, capture_output=True, text=True, check=True
    ).stdout
    # What the capture backend looks for to know an X display is XWayland.
    assert "XWAYLAND" in monitors


def test_grim_wall_time_for_2560x1600_is_measured(sway: Sway) -> None:
    with sway.open_foot(["timed"], title="Noru timed", app_id="noru-timed"):
        times = []
        for _ in range(20):
            start = time.perf_counter()
            result = subprocess.run(
                ["grim", "-t", "ppm", "-"], env=sway.env, capture_output=True, check=True
            )
            times.append(time.perf_counter() - start)
            assert len(result.stdout) > 2560 * 1600 * 3
    median = statistics.median(times) * 1000
    figure = f"grim -t ppm - of 2560x1600 on headless sway: median {median:.1f} ms over 20 runs"
    print(figure)
    FIGURES.append(figure)
