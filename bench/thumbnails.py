"""The web console's thumbnails of real screens: their bytes and the time to make one.

The console (``noru.console.app.Thumbnails``) shows each capture as a small
JPEG (its content cropped to fill 240x150, quality 70), made from the
stored PNG the first time it is asked for and kept in memory. This measures them on what real
programs draw: bench/ocr_real.py's client classes (xterm, Tk, GTK, Firefox
showing generated text, from tests/real_clients.py) on its private
2560x1600 Xvfb with openbox, captured by its ``capture`` helper with Noru's
``Capturer`` as the app captures (a WINDOW capture of the one window, a
DISPLAY capture of three or five side by side), plus a blank desktop (a
display capture with no window open: Xvfb's root, all black; openbox
draws no wallpaper).

Each grab is stored as the app stores it (``noru.app``: ``imaging.encode_png``
of the full grab, a ``NewImage`` with its source and window rectangles,
``Store.add_capture``) in a fresh store of a temporary ``NORU_HOME``. Once
every capture is taken and every client stopped (so no program shares the
CPU), one ``Thumbnails`` (as ``create_app`` holds one) makes each capture's
thumbnail with ``get(home, capture_id)``, each the first make of that
capture, not a cached copy: the figures are the stored PNG's bytes, the
JPEG's bytes and size, and wall ms per make (opening the store read-only,
reading the record, decoding the PNG, scaling, encoding; the PNG was just
written, so it is read from the page cache). One small capture's thumbnail
is made first, untimed, so that loading Pillow's codecs is not timed.

    .venv/bin/python bench/thumbnails.py                  # every class, 5 captures each
    .venv/bin/python bench/thumbnails.py --classes firefox,blank-desktop --frames 2
    .venv/bin/python bench/thumbnails.py --markdown       # the table for docs/performance.md
    .venv/bin/python bench/thumbnails.py --list           # the classes
"""

from __future__ import annotations

import argparse
import io
import os
import random
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src"), str(ROOT / "bench")]

from PIL import Image  # noqa: E402
from tests import real_terminals  # noqa: E402
from tests.real_clients import Client, Kind  # noqa: E402
from tests.xserver import XServer, running_xserver  # noqa: E402

import ocr_real  # noqa: E402
from capture_pipeline import host_speed  # noqa: E402
from noru.capture import Capturer, Grab  # noqa: E402
from noru.console.app import Thumbnails  # noqa: E402
from noru.imaging import encode_png  # noqa: E402
from noru.store import NewImage, Store  # noqa: E402
from ocr_real import BY_NAME, CLASSES, HEIGHT, WIDTH, ClientClass  # noqa: E402


def _nothing(server: XServer, rng: random.Random) -> list[Client]:
    return []


BLANK = ClientClass(
    "blank-desktop", "display", "no window open: Xvfb's bare root, all black", _nothing
)
ALL = [*CLASSES, BLANK]
NAMED = {**BY_NAME, BLANK.name: BLANK}


def take(server: XServer, capturer: Capturer, spec: ClientClass, frame: int, seed: int) -> Grab:
    """The capture the app would take of ``spec``'s clients (opened, then stopped)."""
    if spec is BLANK:
        return capturer.grab_display(1)[0]
    rng = random.Random(f"{seed}-{spec.name}-{frame}")
    return ocr_real.capture(server, capturer, spec, rng, frame)[0]


def store_as_app(store: Store, grab: Grab) -> str:
    """Store ``grab`` as ``noru.app`` stores a capture; its id."""
    image = NewImage(
        png=encode_png(grab.image),
        width=grab.image.width,
        height=grab.image.height,
        source=grab.source,
        display_mode=grab.display_mode,
        windows=grab.windows,
        ax_lines=grab.ax.lines if grab.ax else (),
        excluded=grab.excluded,
    )
    return store.add_capture([image], origin="user").id


@dataclass
class Row:
    sizes: list[tuple[int, int]] = field(default_factory=list)
    png: list[int] = field(default_factory=list)
    jpeg: list[int] = field(default_factory=list)
    thumb: list[tuple[int, int]] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)


def _dims(sizes: Sequence[tuple[int, int]]) -> str:
    # A window capture's size can differ by a pixel or two between runs.
    distinct = sorted(set(sizes))
    return " / ".join(f"{w}x{h}" for w, h in distinct)


def _warm(home: Path, store: Store, thumbnails: Thumbnails) -> None:
    image = Image.new("RGB", (320, 200), "white")
    new = NewImage(png=encode_png(image), width=320, height=200)
    thumbnails.get(home, store.add_capture([new], origin="user").id)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--classes", default=None, help="comma-separated (default: all; see --list)"
    )
    parser.add_argument("--frames", type=int, default=5, help="captures per class, each new text")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--markdown", action="store_true", help="print the table in Markdown")
    parser.add_argument("--list", action="store_true", help="list the client classes")
    args = parser.parse_args(argv)
    if args.list:
        for c in ALL:
            print(f"{c.name:<20} {c.capture:<8} {c.what}")
        return
    names = args.classes.split(",") if args.classes else [c.name for c in ALL]
    unknown = [n for n in names if n not in NAMED]
    if unknown:
        raise SystemExit(f"unknown classes: {', '.join(unknown)} (see --list)")
    kinds: tuple[Kind, ...] = ("xterm", "tk", "gtk", "firefox")
    problems = [p for k in kinds if (p := real_terminals.missing_any(k))]
    if problems:
        raise SystemExit("; ".join(problems))

    command = shlex.join(
        [".venv/bin/python", "bench/thumbnails.py", *(argv if argv is not None else sys.argv[1:])]
    )
    print(
        f"Console thumbnails of real clients: {WIDTH}x{HEIGHT} Xvfb + openbox, "
        f"{args.frames} captures per class"
    )
    print(f"command: {command}")
    print(
        f"date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    rows = {name: Row() for name in names}
    with tempfile.TemporaryDirectory(prefix="noru-thumbnails-") as tmp:
        home = Path(tmp) / "home"
        os.environ["NORU_HOME"] = str(home)
        taken: list[tuple[str, str]] = []  # (class, capture id)
        with (
            Store.open(home) as store,
            running_xserver(Path(tmp), width=WIDTH, height=HEIGHT) as server,
            Capturer(display=server.display) as capturer,
        ):
            for name in names:
                for frame in range(args.frames):
                    grab = take(server, capturer, NAMED[name], frame, args.seed)
                    rows[name].sizes.append(grab.image.size)
                    taken.append((name, store_as_app(store, grab)))
                print(f"  ... {name} captured", file=sys.stderr, flush=True)

            # Every client is stopped now; only the thumbnails run.
            thumbnails = Thumbnails()
            _warm(home, store, thumbnails)
            speed_before = host_speed()
            for name, capture_id in taken:
                start = time.perf_counter()
                data = thumbnails.get(home, capture_id)
                elapsed = (time.perf_counter() - start) * 1000
                if data is None:
                    raise SystemExit(f"no thumbnail for {capture_id}")
                record = store.get(capture_id)
                assert record is not None
                row = rows[name]
                row.ms.append(elapsed)
                row.png.append(store.image_file(record.images[0]).stat().st_size)
                row.jpeg.append(len(data))
                with Image.open(io.BytesIO(data)) as jpeg:
                    row.thumb.append(jpeg.size)
            speed_after = host_speed()
            load = os.getloadavg()[0]
    print(
        f"host speed (bench/capture_pipeline.host_speed): {speed_before:.0f} ms before, "
        f"{speed_after:.0f} ms after the thumbnails; load average {load:.2f} after them"
    )
    print()
    head = (
        "class",
        "capture",
        "px",
        "PNG bytes (median)",
        "JPEG bytes median",
        "JPEG bytes max",
        "thumbnail",
        "ms median",
        "ms max",
    )
    lines = []
    for name in names:
        r = rows[name]
        lines.append(
            (
                name,
                NAMED[name].capture,
                _dims(r.sizes),
                f"{statistics.median(r.png):,.0f}",
                f"{statistics.median(r.jpeg):,.0f}",
                f"{max(r.jpeg):,}",
                _dims(r.thumb),
                f"{statistics.median(r.ms):.1f}",
                f"{max(r.ms):.1f}",
            )
        )
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for line in lines:
            print("| " + " | ".join(line) + " |")
    else:
        widths = [max(len(x[i]) for x in (head, *lines)) for i in range(len(head))]
        for line in (head, *lines):
            print(
                "  ".join(
                    cell.ljust(w) if i < 3 else cell.rjust(w)
                    for i, (cell, w) in enumerate(zip(line, widths, strict=True))
                )
            )
    print(
        f"(per class {args.frames} captures; ms: wall ms of Thumbnails.get, "
        "each the first make of its capture)"
    )
    print()
    for name in names:
        print(f"  {name:<20} {NAMED[name].what}")


if __name__ == "__main__":
    main()
