"""What filling unsure lines and joining wrapped rows cost on ordinary screens.

Redaction fills an OCR line whole where its text is too uncertain to check
and it lies beside a secret, a label or a key-like word
(``noru.redact.unsure``), and reads a terminal's rows as the lines they
were wrapped from (``noru.redact.wrap``). On screens with no secret both
can only cost: pixels an agent does not get. This reads the terminal
corpus bench/ocr_terminals.py drew (real terminals: eight of them, sixteen
font families, thirty-one kinds of ordinary text; its PNGs and
screens.jsonl, read only) with Noru's engine as the app calls it, and
redacts each screen as it is served (``for_agent``, secrets and cards).

Printed per split (the held-out part is the headline): screens, lines
read, the share of lines below ``UNSURE``, lines filled as unsure and
their share, the filled area (union of the boxes) as a share of the
screen's area, all of it and the unsure fills' part; rows joined as
wrapped; then each line filled, to judge by eye.

    .venv/bin/python bench/redact_unsure.py [--corpus bench/out/terminals] \
        [--split held-out] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from PIL import Image, ImageDraw  # noqa: E402

from noru.ocr import get_engine  # noqa: E402
from noru.redact import policy  # noqa: E402
from noru.redact.apply import for_agent  # noqa: E402
from noru.redact.unsure import UNSURE, UNSURE_KIND  # noqa: E402
from noru.redact.wrap import written  # noqa: E402
from noru.sources import Source  # noqa: E402
from noru.store import CaptureRecord, ImageRecord, OcrLine  # noqa: E402

POLICY = policy.Policy.of(["secrets", "cards"])


def _record(lines: tuple[OcrLine, ...], size: tuple[int, int]) -> CaptureRecord:
    image = ImageRecord(
        position=0, path="x.png", width=size[0], height=size[1], source=Source(),
        display_mode=None, ax_text=None, ocr_lines=lines,
    )  # fmt: skip
    return CaptureRecord(
        seq=1, id="c", captured_at=datetime.now(UTC), origin="user", note=None,
        ocr_state="done", ocr_engine="tesseract", ocr_version=None, ocr_confidence=None,
        ocr_error=None, imported=False, delivered=False, images=(image,),
    )  # fmt: skip


def _area(boxes: list[tuple[int, int, int, int]], size: tuple[int, int]) -> int:
    """Pixels the union of ``boxes`` covers."""
    if not boxes:
        return 0
    mask = Image.new("1", size, 0)
    draw = ImageDraw.Draw(mask)
    for x, y, w, h in boxes:
        draw.rectangle((x, y, x + w - 1, y + h - 1), fill=1)
    return sum(mask.getdata())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=ROOT / "bench" / "out" / "terminals")
    parser.add_argument("--split", choices=["held-out", "train", "all"], default="held-out")
    parser.add_argument("--limit", type=int, default=0, help="screens per split (0: all)")
    args = parser.parse_args()
    screens = [json.loads(line) for line in (args.corpus / "screens.jsonl").open()]
    splits = ["held-out", "train"] if args.split == "all" else [args.split]
    engine = get_engine("tesseract")
    filled: list[tuple[str, str]] = []
    try:
        for split in splits:
            chosen = [s for s in screens if s["split"] == split]
            chosen = chosen[: args.limit] if args.limit else chosen
            totals = dict.fromkeys(
                ("screens", "lines", "doubtful", "unsure", "area", "all", "fill", "joined"), 0
            )
            for n, screen in enumerate(chosen):
                with Image.open(args.corpus / screen["png"]) as opened:
                    image = opened.convert("RGB")
                regions = [tuple(r) for r in screen["regions"]] or None
                lines = engine.recognise(image, regions=regions).lines
                seen = for_agent(_record(lines, image.size), POLICY)
                boxes = list(seen.boxes[0])
                after = seen.record.images[0].ocr_lines or ()
                unsure = [
                    (before, line)
                    for before, line in zip(lines, after, strict=True)
                    if line.text.strip() == f"[redacted: {UNSURE_KIND}]"
                ]
                totals["screens"] += 1
                totals["lines"] += len(lines)
                totals["doubtful"] += sum(line.confidence < UNSURE for line in lines)
                totals["unsure"] += len(unsure)
                totals["area"] += image.width * image.height
                totals["all"] += _area(boxes, image.size)
                totals["fill"] += _area([b.box for b, _ in unsure], image.size)
                totals["joined"] += sum(len(g) for g in written(lines) if len(g) > 1)
                filled += [(screen["id"], b.text) for b, _ in unsure]
                filled += [
                    (screen["id"], f"{line.text}  <- {before.text}")
                    for before, line in zip(lines, after, strict=True)
                    if line.text != before.text and (before, line) not in unsure
                ]
                print(f"  ... {split} {n + 1}/{len(chosen)}", file=sys.stderr, flush=True)
            t = totals
            share = t["doubtful"] / max(1, t["lines"])
            print(f"{split}: {t['screens']} screens, {t['lines']} lines read")
            print(f"  lines below {UNSURE}: {t['doubtful']} ({share:.2%})")
            print(
                f"  lines filled as unsure: {t['unsure']} ({t['unsure'] / max(1, t['lines']):.2%})"
            )
            print(
                f"  filled area, all redaction: {t['all'] / max(1, t['area']):.3%} of the screens"
            )
            print(
                f"  filled area, unsure lines:  {t['fill'] / max(1, t['area']):.3%} of the screens"
            )
            print(f"  rows joined as wrapped: {t['joined']}")
    finally:
        engine.close()
    print(f"\nevery line changed ({len(filled)}), as read:")
    for where, text in filled:
        print(f"  {where}: {text}")


if __name__ == "__main__":
    main()
