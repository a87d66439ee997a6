"""A key in a form's field too narrow for it never reaches an agent.

A real Tk form and a real GTK 3 one (labels, and beside each an entry narrower than its value,
scrolled to the value's end as after a paste: the format's prefix out of
view; or showing its start, the rest of the format's length cut off) is
grabbed by Noru's capturer, kept by the store's writer, read by the real
engine as the app's OCR child reads it and served as agents get
it (``for_agent``). The engine reads the column of labels apart from the
column of fields, so each key's part is a line of its own, no format's:
its label beside it says it is a key's (docs/security.md, "Secrets on
screen"). Where each field is, and what it shows whole, is the toolkit's
own word, not the engine's.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Literal

import numpy as np
import pytest

from noru.capture import Capturer
from noru.ocr.tesseract import TesseractEngine
from noru.present.pixels import FILL, fill
from noru.redact.unsure import UNSURE_KIND
from tests import real_clients
from tests.drawn_ink import commonest, ink
from tests.parts import require
from tests.redaction_cases import ALNUM, leaked, pick
from tests.served_terminal import stored_and_seen
from tests.xserver import XServer

# A field's border and its padding (ttk's clam theme, as the form sets it):
# the text's ink lies inside.
INSIDE = 4


def _form(rng: random.Random) -> tuple[list[tuple[str, str]], int]:
    """The form's fields, (label, value), and how many first hold a key."""
    keys = [
        ("API key", "sk-proj-" + pick(rng, ALNUM, 48)),
        ("Personal access token", "ghp_" + pick(rng, ALNUM, 36)),
        ("Client secret", pick(rng, ALNUM, 40)),
        ("Secret key", pick(rng, ALNUM + "+/", 40)),
    ]
    ordinary = [
        ("Name", "Ada Lovelace of the Analytical Engine Society"),
        ("Commit", "9fceb02d0ae598e95dc970b74767f19372d61af8"),
        ("Webhook URL", "https://example.com/hooks/deploy/production/main"),
    ]
    return keys + ordinary, len(keys)


@pytest.mark.parametrize("end", [True, False], ids=["scrolled to its end", "its end cut off"])
@pytest.mark.parametrize("kind", ["tk", "gtk"])
def test_a_key_in_a_field_narrower_than_it_is_redacted_in_text_and_pixels(
    desktop: XServer, home: Path, engine: TesseractEngine, kind: Literal["tk", "gtk"], end: bool
) -> None:
    problem = real_clients.missing(kind)
    require(problem is None, problem or "")
    fields, keys = _form(random.Random(37))
    with (
        real_clients.open_fields(desktop, kind, fields, end=end) as client,
        Capturer(display=desktop.display) as capturer,
    ):
        client.bring_under_pointer()
        (grab,) = capturer.grab_window("pointer")
        shown = client.lines
        places = [client.places[f"field {n}"] for n in range(len(fields))]
        origin = client.rect
    stored, seen, (picture,) = stored_and_seen(home, engine, [grab])
    for (_, value), part in zip(fields, shown, strict=True):
        # its start out of view, or its end
        assert len(part) < len(value) and (value.endswith(part) if end else value.startswith(part))
    read = stored.ocr_text or ""
    agent = seen.record.ocr_text or ""
    served = np.asarray(fill(picture, seen.boxes[0]))
    taken = np.asarray(picture)
    for n, ((label, _), part) in enumerate(zip(fields, shown, strict=True)):
        x, y, w, h = places[n]
        x, y = x - origin[0], y - origin[1]
        area = (slice(y + INSIDE, y + h - INSIDE), slice(x + INSIDE, x + w - INSIDE))
        drawn = ink(taken[area], commonest(taken[area]))
        left = drawn & (served[area] != np.array(FILL)).any(axis=2)
        if n < keys:
            assert leaked(agent, part) is None, (label, part, agent)
            assert drawn.any() and not left.any(), (label, int(left.sum()), int(drawn.sum()))
        else:
            assert leaked(read, part) is not None, (label, read)  # read, and so checked
    # What no label says is a key's is taken by no rule: each key is one
    # finding (a line too unsure to check beside them may be filled whole,
    # ``noru.redact.unsure``: a rule of its own).
    assert len([k for k in seen.kinds if k != UNSURE_KIND]) == keys, seen.kinds
