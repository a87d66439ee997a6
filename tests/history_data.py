"""Real captures for history tests: PNGs made with Pillow, stored by the real store.

OCR text is recorded through the store's own writer API (``set_ocr``), the
same call the OCR worker makes; the engine itself is tested in test_ocr.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from PIL import Image, ImageDraw

from noru.sources import Source, infer_workspace
from noru.store import AxLine, CaptureRecord, NewImage, OcrLine, Store

NOW = datetime.now(UTC).replace(microsecond=0)


def png(width: int, height: int, colour: tuple[int, int, int] = (240, 240, 240)) -> bytes:
    """A PNG with a known pattern: a red 40x20 block at (10, 10), a blue one at the
    bottom-right corner, the rest ``colour``."""
    image = Image.new("RGB", (width, height), colour)
    draw = ImageDraw.Draw(image)
    draw.rectangle((10, 10, 49, 29), fill=(255, 0, 0))
    draw.rectangle((width - 40, height - 20, width - 1, height - 1), fill=(0, 0, 255))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def decode(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def source(
    app: str | None,
    title: str | None,
    display: int | None = 1,
    display_name: str | None = "DP-1",
    app_id: str | None = None,
) -> Source:
    return Source(
        display_index=display,
        display_name=display_name,
        app_id=app_id or (app.lower() if app else None),
        app_name=app,
        window_title=title,
        workspace_hint=infer_workspace(title),
    )


@dataclass
class Seeded:
    editor: CaptureRecord  # 2560x1600, OCR done, note, repoB, display 1
    terminal: CaptureRecord  # 800x600, OCR pending, display 2 (HDMI-1), ax text
    browser: CaptureRecord  # agent capture, two displays, OCR failed


def seed(home: Path) -> Seeded:
    """The three captures, 3 hours, 30 and 5 minutes before now: now as the
    test runs (a suite runs for many minutes; "--since 1h --before 10m"
    must find the capture of 30 minutes ago alone)."""
    now = datetime.now(UTC).replace(microsecond=0)
    with Store.open(home) as store:
        editor = store.add_capture(
            [
                NewImage(
                    png(2560, 1600),
                    2560,
                    1600,
                    source("Code", "main.py - repoB - Visual Studio Code"),
                    "2560x1600",
                )
            ],
            origin="user",
            captured_at=now - timedelta(hours=3),
            note="the failing build",
        )
        store.set_ocr(
            editor.id,
            engine="tesseract",
            lines_per_image=[
                [
                    OcrLine(
                        "ModuleNotFoundError: No module named 'frobnicate'",
                        (100, 200, 900, 30),
                        0.93,
                    ),
                    OcrLine("def main():", (100, 240, 200, 30), 0.89),
                ]
            ],
        )
        terminal = store.add_capture(
            [
                NewImage(
                    png(800, 600, (20, 20, 20)),
                    800,
                    600,
                    source("XTerm", "user@host: ~/src/noru", 2, "HDMI-1"),
                    "1920x1080",
                    ax_lines=(
                        AxLine("pytest -q", (4, 4, 54, 13), "terminal"),
                        AxLine("3 passed", (4, 17, 48, 13), "terminal"),
                    ),
                )
            ],
            origin="user",
            captured_at=now - timedelta(minutes=30),
        )
        browser = store.add_capture(
            [
                NewImage(png(1920, 1080), 1920, 1080, source(None, None, 1, "DP-1"), "1920x1080"),
                NewImage(png(1280, 1024), 1280, 1024, source(None, None, 2, "HDMI-1"), "1280x1024"),
            ],
            origin="agent",
            captured_at=now - timedelta(minutes=5),
        )
        store.set_ocr(browser.id, engine="tesseract", error="engine crashed")
        records = [store.get(c.id) for c in (editor, terminal, browser)]
    assert all(records)
    return Seeded(*records)  # type: ignore[arg-type]


def bulk(home: Path, texts: list[str]) -> None:
    """Captures with these OCR texts, one a minute up to NOW, written in one
    transaction (thousands of durable adds would only time the disk)."""
    with Store.open(home) as store:
        store.db.execute("BEGIN")
        for n, text in enumerate(texts):
            moment = NOW - timedelta(minutes=len(texts) - n)
            seq = store.db.execute(
                "INSERT INTO captures (id, captured_at, captured_ts, origin, image_count,"
                " ocr_state, bytes) VALUES (?, ?, ?, 'user', 1, 'done', 0)",
                (f"capture_2026-01-01_{n:06d}", moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
                 moment.timestamp()),
            ).lastrowid  # fmt: skip
            store.db.execute(
                "INSERT INTO images (capture_seq, position, path, width, height)"
                " VALUES (?, 1, ?, 8, 8)",
                (seq, f"2026/01/01/capture_2026-01-01_{n:06d}-1.png"),
            )
            store.db.execute(
                "INSERT INTO capture_text (rowid, ocr, ax, note) VALUES (?, ?, '', '')",
                (seq, text),
            )
        store.db.execute("COMMIT")


def redaction_off(home: Path) -> None:
    """``redact = []`` in ``home``'s config.toml: captures whose text is not
    recognised are then served as they are (with it on they are held back)."""
    home.mkdir(parents=True, exist_ok=True)
    with (home / "config.toml").open("a", encoding="utf-8") as config:
        config.write("redact = []\n")
