"""Draw the Noru menu's status icons (src/noru/panel/icons/noru-*.png).

The icons are the project's own drawing, shipped in the package, so no
icon theme is assumed. Each is a screen (a rounded square) with a mark:
nothing yet (unset, grey), a green dot (allowed), amber bars (paused), a red
bar across (revoked), and a white eye on blue (an agent is looking). Drawn
at 4x and scaled down for smooth edges. Run again after changing this file:

    .venv/bin/python scripts/draw-icons.py
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path(__file__).resolve().parent.parent / "src" / "noru" / "panel" / "icons"
SIZE = 64
S = 4  # drawn at 4x

INK = (40, 44, 52, 255)
GREY = (128, 132, 140, 255)
GREEN = (30, 160, 80, 255)
AMBER = (230, 150, 20, 255)
RED = (205, 40, 40, 255)
BLUE = (20, 100, 220, 255)
WHITE = (255, 255, 255, 255)


def screen(draw: ImageDraw.ImageDraw, outline: tuple[int, ...], fill: tuple[int, ...]) -> None:
    draw.rounded_rectangle((4 * S, 8 * S, 60 * S, 52 * S), radius=8 * S, fill=fill,
                           outline=outline, width=5 * S)  # fmt: skip
    draw.rectangle((26 * S, 52 * S, 38 * S, 58 * S), fill=outline)  # the stand


def draw(state: str) -> Image.Image:
    image = Image.new("RGBA", (SIZE * S, SIZE * S), (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)
    if state == "looking":
        screen(pen, BLUE, BLUE)
        pen.ellipse((14 * S, 20 * S, 50 * S, 40 * S), fill=WHITE)
        pen.ellipse((26 * S, 24 * S, 38 * S, 36 * S), fill=INK)
    else:
        screen(pen, GREY if state == "unset" else INK, WHITE)
    if state == "allowed":
        pen.ellipse((22 * S, 20 * S, 42 * S, 40 * S), fill=GREEN)
    elif state == "paused":
        pen.rectangle((22 * S, 19 * S, 29 * S, 41 * S), fill=AMBER)
        pen.rectangle((35 * S, 19 * S, 42 * S, 41 * S), fill=AMBER)
    elif state == "revoked":
        pen.line((14 * S, 44 * S, 50 * S, 16 * S), fill=RED, width=7 * S)
    return image.resize((SIZE, SIZE), Image.Resampling.LANCZOS)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for state in ("unset", "allowed", "paused", "revoked", "looking"):
        draw(state).save(OUT / f"noru-{state}.png", optimize=True)
        print(OUT / f"noru-{state}.png")


if __name__ == "__main__":
    main()
