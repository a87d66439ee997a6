"""The OCR child process: `python -m noru.app.ocr_process ENGINE`.

Runs the engine away from the app: at the lowest CPU priority, on one thread,
outside the app's interpreter (no GIL shared with captures), and gone when
idle, so the app's memory stays small. One JSON line in per job,
``{"images": [{"path": ..., "regions": [[x, y, w, h], ...]}]}``, and one JSON
line out: ``{"lines": [[[text, x, y, w, h, conf], ...] per image], "engine":
NAME}`` or ``{"error": REASON}``.
It exits on end of input (the app stopped) or after ``IDLE_EXIT`` seconds
without work.
"""

from __future__ import annotations

import json
import os
import select
import sys
from pathlib import Path

__all__ = ["IDLE_EXIT", "main"]

IDLE_EXIT = 60.0


def _job(engine: object, request: dict[str, object]) -> dict[str, object]:
    from PIL import Image

    per_image = []
    for item in request["images"]:  # type: ignore[attr-defined]
        # Window rectangles, bottom to top: each window is read on its own.
        regions = [tuple(r) for r in item.get("regions") or ()] or None
        with Image.open(Path(item["path"])) as picture:
            result = engine.recognise(picture.convert("RGB"), regions=regions)  # type: ignore[attr-defined]
        per_image.append(
            [[line.text, *line.box, round(line.confidence, 4)] for line in result.lines]
        )
    return {
        "lines": per_image,
        "engine": engine.name,  # type: ignore[attr-defined]
        "version": engine.version,  # type: ignore[attr-defined]
    }


def _die_with_parent() -> None:
    # Linux: if the app is killed, take the engine down with it at once.
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # elsewhere: end of input still stops us after the current job


def main() -> int:
    _die_with_parent()
    if os.getppid() == 1:
        return 0  # the app died before we could ask to die with it
    os.nice(19)  # captures and agents come first
    from noru.ocr import get_engine

    name = sys.argv[1] if len(sys.argv) > 1 else "tesseract"
    try:
        engine = get_engine(name)
    except Exception as exc:
        print(json.dumps({"fatal": str(exc)}), flush=True)
        return 1
    print(json.dumps({"ready": f"{engine.name} {engine.version}"}), flush=True)
    stdin = sys.stdin.buffer
    while True:
        readable, _, _ = select.select([stdin], [], [], IDLE_EXIT)
        if not readable:
            return 0  # idle: free the engine's memory; the app starts us again
        line = stdin.readline()
        if not line:
            return 0
        try:
            reply = _job(engine, json.loads(line))
        except Exception as exc:  # one bad image fails its job, not the process
            reply = {"error": f"{exc.__class__.__name__}: {exc}"[:200]}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    sys.exit(main())
