"""Redaction's false positives on ordinary screens across the edge of
stacked displays, as read.

A terminal showing each ordinary screen of bench/redact_ordinary.py (its
first ``--rows`` rows; the terminals in turn) is put at places on two
RandR monitors of a private Xvfb, "TOP" (1920x1080) above "BOTTOM"
(1920x1080): the edge between them across its rows (between two rows, or
through a row's glyphs near the top, the middle or the bottom of the
window), the window right under the edge, and right above it. At each
place both displays are grabbed by Noru's capturer, kept by the store's
writer and read by its Tesseract engine as the app's OCR child reads them
(``noru.recognition``). Each capture is served three ways: as grabbed;
with the upper display as it was before the terminal was drawn (an empty
desktop, read too); and with the lower display so. Each display is grabbed
at its own moment, so a window can be on one grab and not on the other:
then only one display has lines near the edge, which
``noru.redact.seam_rows`` searches (its "one side" case).

Each capture is served (``for_agent``, secrets and cards) with the
seam_rows of this tree; with each ``--against REV``, with
src/noru/redact/seam_rows.py as it was at that revision (read with
``git show``); and with no search across the edge (each image alone), on
the same readings. Printed per way and per seam_rows: the tokens read,
those redacted (replaced in the text served, or in a line served as
``[redacted: unsure]``) and their share, those a rule's finding covers
(not filled as unsure), then the same for the tokens within
``seam_rows.REACH`` rows of the edge only, and the pixels filled (of the
terminal's window); then every line this tree's seam_rows redacts, and
every line redacted by it and not by a revision's, or the other way
round, to judge by eye. ``--from-row``: each screen's rows from that one
(24: the rows after those ``--rows 24`` shows, text no one looked at).

    .venv/bin/python bench/redact_stacked.py [--screens N] [--rows 24] [--from-row 0]
        [--against REV ...]
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import subprocess
import sys
import tempfile
import types
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src"), str(ROOT / "bench")]

from tests.real_clients import move_window, wait_drawn, window_facts  # noqa: E402
from tests.served_terminal import settled, stored_and_seen  # noqa: E402
from tests.xserver import Monitor, running_xserver  # noqa: E402

from noru.capture import Capturer  # noqa: E402
from noru.ocr.tesseract import TesseractEngine  # noqa: E402
from noru.redact import apply, seam_rows  # noqa: E402
from noru.redact.apply import for_agent  # noqa: E402
from noru.redact.unsure import UNSURE_KIND  # noqa: E402
from noru.store import CaptureRecord, ImageRecord  # noqa: E402
from redact_ordinary import SCREENS, WIDTH, _is_page, _shown_lines, screen_lines  # noqa: E402
from redact_real import SHOWN, _tokens  # noqa: E402
from redact_unsure import POLICY, _area  # noqa: E402

EDGE = 1080  # TOP's bottom edge, BOTTOM's top edge
STACKED = [
    Monitor("TOP", 0, 0, 1920, 1080, primary=True),
    Monitor("BOTTOM", 0, EDGE, 1920, 1080),
]
X = 40  # the window's frame's left
TERMINALS = [name for name in SHOWN if not name.startswith(("Firefox", "Chromium"))]
PLACEHOLDER = re.compile(r"\[redacted: [a-z0-9-]+\]")
KIND = re.compile(r"\[redacted: ([a-z0-9-]+)\]")
WAYS = ("as grabbed", "upper unread", "lower unread")


def _places(rows: int, cell: int, top: int, height: int) -> dict[str, int]:
    """Where the window's frame is put (its top), by name: ``rows`` of text
    rows, ``cell`` high, the first ``top`` under the frame's top, the frame
    ``height`` high."""

    def cut(row: int, fraction: float) -> int:
        return round(EDGE - top - (row + fraction) * cell)

    middle = rows // 2
    return {
        "under the edge": EDGE,
        "over the edge": EDGE - height,
        "row 1 cut at 0.5": cut(1, 0.5),
        f"between rows {middle - 1} and {middle}": cut(middle, 0.0),
        f"row {middle} cut at 0.35": cut(middle, 0.35),
        f"row {middle} cut at 0.65": cut(middle, 0.65),
        f"row {rows - 1} cut at 0.5": cut(rows - 1, 0.5),
    }


def _old_seam_rows(rev: str) -> types.ModuleType:
    """src/noru/redact/seam_rows.py as it was at ``rev``, as a module."""
    source = subprocess.run(
        ["git", "show", f"{rev}:src/noru/redact/seam_rows.py"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    spec = importlib.util.spec_from_loader(f"seam_rows_{rev}", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    exec(compile(source, f"seam_rows.py@{rev}", "exec"), module.__dict__)
    return module


@contextmanager
def _seam_rows(module: types.ModuleType) -> Iterator[None]:
    """``for_agent`` with ``module`` as its seam_rows."""
    was = apply.seam_rows
    apply.seam_rows = module  # type: ignore[assignment]
    try:
        yield
    finally:
        apply.seam_rows = was


def _redacted(read: str, served: str) -> list[tuple[int, int, str]]:
    """The spans of ``read`` that ``served`` (``read`` with spans replaced
    by placeholders) does not hold as read, each with the kind its
    placeholder names."""
    if served == read:
        return []
    parts = PLACEHOLDER.split(served)
    kinds = KIND.findall(served)
    pattern = "(.*?)".join(re.escape(part) for part in parts)
    match = re.fullmatch(pattern, read, re.DOTALL)
    if match is None:  # not as expected: all of it
        return [(0, len(read), "?")]
    return [(*match.span(g), kinds[g - 1]) for g in range(1, len(parts))]


def _near(image: ImageRecord, box: tuple[int, int, int, int], upper: bool) -> bool:
    """Whether a line's ``box`` lies within ``seam_rows.REACH`` of its
    heights of the edge, on the ``upper`` display or the lower."""
    _, y, _, h = box
    return (image.height - (y + h) if upper else y) <= seam_rows.REACH * h


def _way(record: CaptureRecord, blank: CaptureRecord, way: str) -> CaptureRecord:
    """``record`` as served ``way``: one display as the empty desktop was."""
    if way == "as grabbed":
        return record
    at = 0 if way == "upper unread" else 1
    images = list(record.images)
    images[at] = replace(
        images[at], ocr_lines=blank.images[at].ocr_lines, windows=blank.images[at].windows
    )
    return replace(record, images=tuple(images))


def _count(
    record: CaptureRecord, served: apply.Redacted, window: tuple[int, int, int, int]
) -> tuple[list[int], list[tuple[str, str]]]:
    """[tokens, redacted, near the edge, redacted near it, pixels filled,
    pixels of the window, redacted by a rule (not as unsure)] of
    ``record`` as ``served``, and each line redacted (its text as read and
    as served)."""
    counts = [0] * 7
    lines = []
    pairs = zip(record.images, served.record.images, strict=True)
    for position, (image, shown) in enumerate(pairs):
        assert image.screen_rect is not None
        for line, out in zip(image.ocr_lines or (), shown.ocr_lines or (), strict=True):
            spans = _redacted(line.text, out.text)
            near = _near(image, line.box, position == 0)
            if spans:
                lines.append((line.text, out.text))
            for _, start, end in _tokens([line.text]):
                by = [kind for s, e, kind in spans if s < end and start < e]
                counts[0] += 1
                counts[1] += bool(by)
                counts[2] += near
                counts[3] += bool(by) and near
                counts[6] += any(kind != UNSURE_KIND for kind in by)
        size = (image.width, image.height)
        counts[4] += _area(list(served.boxes[position]), size)
        _, wy, ww, wh = window
        _, sy, _, sh = image.screen_rect
        top, bottom = max(wy, sy), min(wy + wh, sy + sh)
        counts[5] += max(0, bottom - top) * ww
    return counts, lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--screens", type=int, default=len(SCREENS), help="screen kinds shown")
    parser.add_argument("--rows", type=int, default=24, help="rows of each screen shown")
    parser.add_argument(
        "--against", action="append", default=[], help="a revision whose seam_rows.py is compared"
    )
    parser.add_argument("--from-row", type=int, default=0, help="each screen's rows from this one")
    args = parser.parse_args()
    # Each image searched on its own only: what the search across the edge adds.
    alone = types.ModuleType("no_stacked_search")
    alone.stacked = lambda *_: None  # type: ignore[attr-defined]
    versions: dict[str, types.ModuleType] = {"this tree": seam_rows}
    for rev in args.against:
        versions[f"at {rev}"] = _old_seam_rows(rev)
    versions["none (alone)"] = alone
    engine = TesseractEngine()
    # per (way, version): as ``_count`` gives them
    totals = {(way, name): [0] * 7 for way in WAYS for name in versions}
    differ: list[tuple[str, str, str, dict[str, str]]] = []  # where, way, read, served by each
    mine: list[tuple[str, str, str, str]] = []  # where, way, read, served by this tree's
    places = 0
    with (
        tempfile.TemporaryDirectory(prefix="noru-redact-stacked-") as tmp,
        running_xserver(Path(tmp), width=1920, height=2 * EDGE, monitors=STACKED) as server,
        Capturer(display=server.display) as capturer,
    ):
        home = Path(tmp) / "home"
        blank, _, _ = stored_and_seen(home, engine, settled(capturer))
        assert [i.screen_rect for i in blank.images] == [
            (m.x, m.y, m.width, m.height) for m in STACKED
        ], blank.images
        shown = 0
        for name, text, start in SCREENS[: args.screens]:
            if _is_page(name):
                continue
            lines = _shown_lines(name, text, start)
            if lines is None:
                continue
            lines = screen_lines("\n".join(lines), args.from_row, args.rows, WIDTH)
            if not lines:
                continue
            client_name = TERMINALS[shown % len(TERMINALS)]
            shown += 1
            try:
                opened = SHOWN[client_name](server, lines)
            except (RuntimeError, ValueError) as error:
                print(f"  ... {name}: not shown in {client_name} ({error})", file=sys.stderr)
                continue
            with opened as client:
                ch = client.rect[3]
                try:
                    _, cell, _, pad = client.cell
                except RuntimeError:  # no cell in its hints (kitty): its rows share its height
                    cell = ch // (len(lines) + 2)
                    pad = (ch - cell * (len(lines) + 2)) // 2
                extents = server.run("xprop", "-id", client.window_id, "_NET_FRAME_EXTENTS")
                _, _, top, bottom = (
                    (int(v) for v in re.findall(r"\d+", extents)) if "=" in extents else (0,) * 4
                )
                height = top + ch + bottom
                for place, y in _places(len(lines), cell, top + pad, height).items():
                    move_window(server, client.window_id, X, y)
                    rect = window_facts(server, client.window_id)[0]
                    wait_drawn(server, rect, None, f"{client_name} at {place}")
                    stored, _, _ = stored_and_seen(home, engine, settled(capturer))
                    places += 1
                    for way in WAYS:
                        record = _way(stored, blank, way)
                        seen: dict[str, list[tuple[str, str]]] = {}
                        for version, module in versions.items():
                            with _seam_rows(module):
                                served = for_agent(record, POLICY)
                            counts, redacted = _count(record, served, rect)
                            total = totals[(way, version)]
                            for k, v in enumerate(counts):
                                total[k] += v
                            seen[version] = redacted
                        where = f"{name} / {client_name} / {place}"
                        mine += [(where, way, read, out) for read, out in seen["this tree"]]
                        mine_seen = dict(seen["this tree"])
                        for rev in args.against:
                            theirs = dict(seen[f"at {rev}"])
                            for read in sorted(set(mine_seen) ^ set(theirs)):
                                by = {
                                    "this tree": mine_seen.get(read, read),
                                    f"at {rev}": theirs.get(read, read),
                                }
                                differ.append((where, way, read, by))
            print(f"  ... {name} done", file=sys.stderr, flush=True)
    engine.close()
    print(
        f"ordinary screens across stacked displays, Tesseract {engine.version}: "
        f"{shown} screens, {places} places, each served {len(WAYS)} ways"
    )
    print(
        f"{'way':14} {'seam_rows':18} {'tokens':>7} {'redacted':>8} {'share':>7} {'by rules':>8}"
        f" {'near edge':>9} {'redacted':>8} {'share':>7} {'filled of window':>16}"
    )
    for (way, version), (tokens, hit, near, hit_near, filled, pixels, ruled) in totals.items():
        print(
            f"{way:14} {version:18} {tokens:7} {hit:8} {hit / max(1, tokens):7.2%} {ruled:8}"
            f" {near:9} {hit_near:8} {hit_near / max(1, near):7.2%} {filled / max(1, pixels):16.3%}"
        )
    for version in versions:
        tokens, hit, ruled = (sum(totals[(w, version)][k] for w in WAYS) for k in (0, 1, 6))
        print(
            f"{'all ways':14} {version:18} {tokens:7} {hit:8} {hit / max(1, tokens):7.2%} {ruled:8}"
        )
    print("   (goal <= 0.5 %)")
    print(f"\nlines redacted by this tree's seam_rows ({len(mine)}):")
    for where, way, read, out in mine:
        print(f"  {where} / {way}:\n      read: {read}\n    served: {out}")
    if args.against:
        print(f"\nlines one seam_rows redacts and another does not ({len(differ)}):")
        for where, way, read, by in differ:
            print(f"  {where} / {way}:\n      read: {read}")
            for version, out in by.items():
                print(f"      {version}: {out}")


if __name__ == "__main__":
    main()
