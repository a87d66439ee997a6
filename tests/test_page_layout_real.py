"""A page's layout is the one its grab shows, when the page moves after it
was first laid out.

Chromium run as root (``--no-sandbox``) shows a bar about that flag over
the page, which may come after the page's first layout (under load) and
push the page two rows down; closed, it lets the page up again. The page
posts its layout again after each resize of its viewport, and
``as_laid_out`` grabs again while a newer one comes: each shown line's
ink lies in its characters' boxes (tests/page_layout.py), the measure
the pixel tests and bench/redact_pixels.py check what agents get against.
"""

from __future__ import annotations

import numpy as np

from noru.capture import Capturer
from tests import real_clients
from tests.drawn_ink import commonest, ink
from tests.page_layout import as_laid_out, drawn, layouts
from tests.parts import require
from tests.xserver import XServer

# Lines of lengths all unlike: a page off by rows puts one line's boxes on
# another's ink, longer or shorter.
LINES = [f"{n:02d} " + "Wx7q" * (3 + 5 * n) for n in range(8)]
# Where the bar's close button is, from the window's top right corner.
CLOSE = (34, 114)


def test_a_page_moved_after_its_layout_is_grabbed_with_the_newer(desktop: XServer) -> None:
    problem = real_clients.missing("chromium")
    require(problem is None, problem or "")
    with layouts() as pages:
        opened = real_clients.open_chromium(
            desktop, {}, "Settings", LINES, renderer=False, accessibility=False,
            x=60, y=60, width=1800, height=1200, layout=pages.url,
        )  # fmt: skip
        with opened as client, Capturer(display=desktop.display) as capturer:
            client.bring_under_pointer()
            x, y, w, _ = client.rect
            grabs = []

            def grab() -> list:
                if not grabs:  # the bar goes after the page's first layout
                    desktop.run(
                        "xdotool", "mousemove", str(x + w - CLOSE[0]), str(y + CLOSE[1]),
                        "click", "1",
                    )  # fmt: skip
                grabs.append(capturer.grab_window("pointer"))
                return grabs[-1]

            (taken,), layout = as_laid_out(pages, grab)
            boxes = drawn(client, layout)
    assert len(grabs) == 2  # the bar went after the first grab: grabbed again
    image = np.asarray(taken.image)
    dx = (w - layout["inner"][0]) // 2
    for line in LINES:
        chars = boxes[line]
        top = min(b for _, b, _, _ in chars) - 4
        bottom = max(b + h for _, b, _, h in chars) + 4
        band = image[top:bottom, dx + 2 : w - dx - 2]  # the viewport's, its rows
        inked = ink(band, commonest(band))
        inside = np.zeros(inked.shape, dtype=bool)
        for a, b, cw, ch in chars:
            inside[b - top : b + ch - top, a - dx - 2 : a + cw - dx - 2] = True
        assert inked.any(), line
        assert (inked & inside).sum() >= 0.99 * inked.sum(), line
