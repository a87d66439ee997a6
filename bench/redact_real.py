"""Redaction's recall and false positives on what real programs draw, as read.

Recall: real X clients (xterm in its bitmap font, xterm Xft 9 light and
dark, rxvt-unicode, st, kitty, Firefox, xfce4-terminal, Chromium) each show every planted
(generated) secret kind of tests/redaction_cases.py in a line as a screen
shows it, beside ordinary lines; Noru's capturer grabs the window as the
app does and its Tesseract engine reads it. A secret is caught when, its
spans replaced as agents get them, no 8 consecutive characters of it are
left in the text (the engine may misread one of its characters: the
misread form is caught by its format all the same).

False positives: the classes of bench/ocr_real.py (terminals of every kind
with logs, listings, tracebacks, JSON and code; Tk, GTK, Firefox with
prose and figures; light and dark), showing ordinary generated text with
no secret in it, read the same way: the share of the tokens read that a
finding covers.

    .venv/bin/python bench/redact_real.py [--frames 2]
"""

from __future__ import annotations

import argparse
import functools
import random
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src"), str(ROOT / "bench")]

from tests import real_clients, real_terminals  # noqa: E402
from tests.redaction_cases import ORDINARY, leaked, planted  # noqa: E402
from tests.terminal_shown import xterm_screen  # noqa: E402
from tests.xserver import XServer, running_xserver  # noqa: E402

from noru.capture import Capturer  # noqa: E402
from noru.ocr.tesseract import TesseractEngine  # noqa: E402
from noru.redact import find_lines  # noqa: E402
from noru.redact.apply import replaced  # noqa: E402
from ocr_real import CLASSES, capture  # noqa: E402


class Opener(Protocol):
    """A client showing ``lines``; a page posts its layout to ``layout``
    (tests/real_clients.py), a terminal ignores it."""

    def __call__(
        self, server: XServer, lines: list[str], layout: str | None = None
    ) -> AbstractContextManager[real_clients.Client]: ...


# The terminals the rules are shown to: name, kind, what else each is asked.
# No rule was written or tuned looking at xfce4-terminal's reading (nor
# Chromium's, below): clients held out (bench/redact_formats.py --real).
_AT = {"x": 60, "y": 60}
_XFT = {"font": "DejaVu Sans Mono"}
TERMINALS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("xterm bitmap", "xterm", _AT),
    ("xterm Xft 9", "xterm", {**_XFT, "size": 9, **_AT}),
    ("xterm Xft 10 dark", "xterm", {**_XFT, "size": 10, "theme": "dark"}),
    ("rxvt-unicode 10 dark", "urxvt", _AT),
    ("st 9 light", "st", {"size": 9, "theme": "light", **_AT}),
    ("kitty 10 dark", "kitty", _AT),
    ("xfce4-terminal 10 dark", "xfce4-terminal", _AT),
)
# A terminal's width for lines it wraps (bench/redact_formats.py --real
# --wrapped): most terminals open 80 columns wide.
WRAP_COLUMNS = 80


def _rows(lines: list[str], columns: int) -> int:
    """The rows ``lines`` take wrapped at ``columns``, and two more."""
    return sum(len(xterm_screen([line], columns=columns, rows=10**6)) or 1 for line in lines) + 2


def _terminal(
    kind: str,
    extra: dict[str, Any],
    columns: int,
    wraps: bool,
    server: XServer,
    lines: list[str],
    layout: str | None = None,
) -> AbstractContextManager[real_clients.Client]:
    """The terminal ``kind`` showing ``lines`` ``columns`` wide: a row each
    and two more, or with ``wraps`` lines longer than a row wrapped, as
    tall as they take."""
    rows = _rows(lines, columns) if wraps else len(lines) + 2
    if kind == "xterm":
        return real_terminals.open_xterm(server, lines, columns=columns, rows=rows, **extra)
    asked = {**extra, "wraps": True} if wraps else extra
    return real_terminals.open_terminal(
        server,
        kind,
        lines,
        columns=columns,
        rows=rows,
        **asked,  # type: ignore[arg-type]
    )


def _terminals(columns: int, *, wraps: bool) -> dict[str, Opener]:
    return {
        name: functools.partial(_terminal, kind, extra, columns, wraps)
        for name, kind, extra in TERMINALS
    }


_SHOWN_TERMINALS = _terminals(150, wraps=False)
SHOWN: dict[str, Opener] = {
    **{name: o for name, o in _SHOWN_TERMINALS.items() if name != "xfce4-terminal 10 dark"},
    "Firefox 16 px": lambda s, lines, layout=None: real_clients.open_firefox(
        s, "Settings", lines, x=60, y=60, width=1800, height=1200, layout=layout
    ),
    "xfce4-terminal 10 dark": _SHOWN_TERMINALS["xfce4-terminal 10 dark"],
    # No session bus and no accessibility: the page as pixels only.
    "Chromium 16 px": lambda s, lines, layout=None: real_clients.open_chromium(
        s,
        {},
        "Settings",
        lines,
        renderer=False,
        accessibility=False,
        x=60,
        y=60,
        width=1800,
        height=1200,
        layout=layout,
    ),
}


def wrapping(columns: int = WRAP_COLUMNS) -> dict[str, Opener]:
    """``SHOWN``'s terminals, ``columns`` wide, lines longer than that
    wrapped, as tall as the lines take."""
    return _terminals(columns, wraps=True)


def shown_and_served(
    server: XServer,
    capturer: Capturer,
    engine: TesseractEngine,
    opener: Opener,
    lines: list[str],
) -> tuple[list[str], str]:
    """``lines`` shown by a real client (``opener``), its window grabbed and
    read by ``engine``: the lines read, and the text as agents get it (each
    finding replaced), one line a row."""
    with opener(server, lines) as client:
        client.bring_under_pointer()
        (grab,) = capturer.grab_window("pointer")
    read = [line.text for line in engine.recognise(grab.image).lines]
    # Chromium's own bar over the page (run as root, it has no sandbox): not
    # the page, and its ``--no-sandbox`` holds 8 characters of a Plaid token.
    read = [t for t in read if "unsupported command-line flag" not in t]
    found = find_lines(read)
    served = "\n".join(replaced(t, f) if f else t for t, f in zip(read, found, strict=True))
    return read, served


def _tokens(lines: list[str]) -> Iterator[tuple[int, int, int]]:
    """Each token of each line: (line, start, end)."""
    for i, line in enumerate(lines):
        start = None
        for j, char in enumerate(f"{line} "):
            if char.isspace() and start is not None:
                yield i, start, j
                start = None
            elif not char.isspace() and start is None:
                start = j


def _table(
    heads: tuple[str, str, str, str], counts: dict[str, list[int]], share: str, goal: str
) -> None:
    """One row per name of (part, total) and their share, then all of them, against ``goal``."""
    print(f"{heads[0]:34} {heads[1]:>8} {heads[2]:>7} {heads[3]:>8}")
    everything = [sum(part for part, _ in counts.values()), sum(t for _, t in counts.values())]
    for name, (part, total) in [*counts.items(), ("all", everything)]:
        line = f"{name:34} {part:8} {total:7} {part / max(1, total):8{share}}"
        print(line + (f"   ({goal})" if name == "all" else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=2, help="screens per class")
    args = parser.parse_args()
    engine = TesseractEngine()
    recall: dict[str, list[int]] = {}
    missed: list[tuple[str, str, str]] = []
    flagged: Counter[str] = Counter()
    tokens: dict[str, list[int]] = {}
    with (
        tempfile.TemporaryDirectory(prefix="noru-redact-real-") as tmp,
        running_xserver(Path(tmp), width=2560, height=1600) as server,
        Capturer(display=server.display) as capturer,
    ):
        for name, opener in SHOWN.items():
            for frame in range(args.frames):
                cases = planted(seed=100 + frame)
                lines = [line for line, _, _ in cases] + list(ORDINARY)
                read, served = shown_and_served(server, capturer, engine, opener, lines)
                got = recall.setdefault(name, [0, 0])
                for _, secret, kind in cases:
                    got[1] += 1
                    if leaked(served, secret) is None:
                        got[0] += 1
                    else:
                        missed.append((name, kind, secret))
            print(f"  ... recall: {name} done", file=sys.stderr, flush=True)
        for spec in CLASSES:
            if spec.capture == "sway":
                continue
            for frame in range(args.frames):
                rng = random.Random(f"redact-{spec.name}-{frame}")
                grab, _ = capture(server, capturer, spec, rng, frame)
                read = [
                    line.text
                    for line in engine.recognise(grab.image, regions=grab.windows or None).lines
                ]
                found = find_lines(read)
                counted = tokens.setdefault(spec.name, [0, 0])
                for i, start, end in _tokens(read):
                    counted[1] += 1
                    if any(f.start < end and start < f.end for f in found[i]):
                        counted[0] += 1
                        flagged[f"{spec.name}: {read[i][start:end]}"] += 1
            print(f"  ... false positives: {spec.name} done", file=sys.stderr, flush=True)
    engine.close()
    print(f"redaction on real clients, Tesseract {engine.version}, {args.frames} screens each")
    _table(("recall: client", "caught", "of", "recall"), recall, ".1%", "goal >= 99 %")
    for name, kind, secret in missed:
        print(f"  missed: {name}: {kind} {secret}")
    print()
    _table(("false positives: class", "flagged", "tokens", "share"), tokens, ".2%", "goal <= 0.5 %")
    for what, count in flagged.most_common(12):
        print(f"  flagged: {what} ({count}x)")


if __name__ == "__main__":
    main()
