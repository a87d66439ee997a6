"""On-screen text in the app: settlement, resume after a crash, failures, reocr."""

from __future__ import annotations

import re
import signal
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from click.testing import CliRunner
from PIL import Image, ImageDraw, ImageFont

from noru.access import set_control
from noru.cli import main
from noru.store import Filters, Reader
from tests import processes
from tests.app_process import AppProcess, running_app, wait_until
from tests.history_data import redaction_off
from tests.wire import MemoryClient, answer_text

if TYPE_CHECKING:
    from tests.xserver import TkWindow, XServer

    OpenWindow = Callable[..., TkWindow]

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def screenshot(path: Path, words: str) -> Path:
    image = Image.new("RGB", (900, 300), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.text((40, 110), words, font=ImageFont.truetype(FONT, 40), fill=(20, 20, 20))
    image.save(path)
    return path


def import_pending(home: Path, *args: str) -> None:
    """``noru import --no-ocr``: the captures wait for the app."""
    result = CliRunner().invoke(main, ["import", "--no-ocr", *args])
    assert result.exit_code == 0, result.output
    assert "Text not recognised now (--no-ocr): `noru app` reads it." in result.output


def records(home: Path) -> list[Any]:
    with Reader.open(home) as reader:
        return [reader.get(row.id) for row in reader.list_rows(Filters(), limit=200)[0]]


def body(answer: dict[str, Any]) -> str:
    return "\n".join(b["text"] for b in answer["result"]["content"] if b["type"] == "text")


def test_a_live_request_waits_for_the_text_of_a_fresh_capture(
    home: Path,
    desktop: XServer,
    open_window: OpenWindow,
    tmp_path: Path,
    session: MemoryClient,
) -> None:
    window = open_window(
        desktop,
        "Invoice - Ledger",
        x=100,
        y=100,
        width=900,
        height=300,
        background="#ffffff",
        foreground="#000000",
        text="Quarterly invoice",
    )
    window.bring_under_pointer()
    set_control(home, "allow")
    # A settle time no loaded machine runs out of: the request waits for the
    # text however long the engine takes, and answers as soon as it is there
    # (with the default 1.5 s a busy CI host's first OCR could miss it).
    (home / "config.toml").write_text("ocr_settle = 30\n")
    with running_app(home, desktop.env, tmp_path / "app.log"):
        answer = session.call("observe_screen", {"text_only": True})
    result = answer["result"]
    assert result["structuredContent"]["ocr_pending"] is False, body(answer)
    assert "Quarterly" in body(answer) and "invoice" in body(answer)
    # The reader's name (the engine, telling terminals' cells by their glyphs)
    # and its mean confidence.
    assert re.search(r"\?rec\(tesseract\+glyphs [01]\.\d\d\)", result["content"][-1]["text"])
    intro = next(b["text"] for b in result["content"] if b["text"].startswith("On-screen text"))
    assert intro.startswith("On-screen text recognised by OCR (tesseract+glyphs 5.")
    assert re.search(r"mean confidence [01]\.\d\d", intro.splitlines()[0])


def test_with_no_settle_time_the_answer_is_pending_and_get_capture_brings_the_text(
    home: Path,
    desktop: XServer,
    open_window: OpenWindow,
    tmp_path: Path,
    session: MemoryClient,
) -> None:
    (home / "config.toml").write_text("ocr_settle = 0\n")
    window = open_window(
        desktop,
        "Report",
        x=100,
        y=100,
        width=900,
        height=300,
        background="#ffffff",
        foreground="#000000",
        text="Revenue forecast",
    )
    window.bring_under_pointer()
    set_control(home, "allow")
    with running_app(home, desktop.env, tmp_path / "app.log"):
        answer = session.call("observe_screen", {})
        result = answer["result"]
        assert result["structuredContent"]["ocr_pending"] is True
        # Not checked for secrets yet (redaction needs the text): no pixels yet.
        assert [b["type"] for b in result["content"]].count("image") == 0
        capture_id = result["structuredContent"]["id"]
        closing = result["content"][-1]["text"]
        assert f"Next: call get_capture with id {capture_id} a moment later" in closing
        assert "-px(held back until checked for secrets)" in closing and "-rec(pending)" in closing

        def settled() -> bool:
            later = session.call("get_capture", {"id": capture_id, "text_only": True})
            return later["result"]["structuredContent"]["ocr_pending"] is False

        wait_until(settled, "the text of the capture")
        later = session.call("get_capture", {"id": capture_id, "layers": ["ocr", "regions"]})
        whole = session.call("get_capture", {"id": capture_id})
    text = body(later)
    assert "Revenue" in text and "forecast" in text
    assert "Regions: OCR line boxes" in text
    assert [b["type"] for b in whole["result"]["content"]].count("image") == 1  # now the image


def test_work_left_by_a_killed_app_is_finished_at_the_next_start(
    home: Path, desktop: XServer, tmp_path: Path
) -> None:
    words = ["alpha invoice", "bravo ledger", "charlie budget", "delta summary", "echo review"]
    shots = [screenshot(tmp_path / f"s{i}.png", w) for i, w in enumerate(words)]
    import_pending(home, *map(str, shots))
    assert all(r.ocr_state == "pending" for r in records(home))
    first = AppProcess(home, desktop.env, tmp_path / "first.log")
    first.wait_ready()
    assert first.stop(signal.SIGKILL) == -signal.SIGKILL  # mid-queue
    with running_app(home, desktop.env, tmp_path / "second.log"):
        wait_until(lambda: all(r.ocr_state == "done" for r in records(home)), "all OCR")
    found = {r.ocr_text.lower() for r in records(home)}
    for w in words:
        assert any(w.split()[0] in text for text in found), (w, found)


def test_a_failing_image_records_the_failure_and_the_queue_goes_on(
    home: Path, desktop: XServer, tmp_path: Path, session: MemoryClient
) -> None:
    bad, good = (
        screenshot(tmp_path / "bad.png", "broken"),
        screenshot(tmp_path / "good.png", "healthy ledger"),
    )
    import_pending(home, str(bad), "--at", "2h")
    import_pending(home, str(good), "--at", "1h")
    damaged = next(r for r in records(home) if r.captured_at < records(home)[0].captured_at)
    with Reader.open(home) as reader:
        path = reader.image_file(damaged.images[0])
    path.write_bytes(path.read_bytes()[:100])  # the disk damaged this file
    with running_app(home, desktop.env, tmp_path / "app.log"):
        wait_until(lambda: all(r.ocr_state != "pending" for r in records(home)), "OCR")
    states = {r.id: r.ocr_state for r in records(home)}
    assert states[damaged.id] == "failed"
    assert [s for i, s in states.items() if i != damaged.id] == ["done"]
    answer = session.call("get_capture", {"id": damaged.id, "text_only": True})
    assert "-rec(failed: " in answer["result"]["content"][-1]["text"]
    asked = session.call("get_capture", {"id": damaged.id, "layers": ["ocr"]})
    lines = asked["result"]["content"][0]["text"].splitlines()
    assert lines[0].startswith("Noru layer absent")
    assert lines[1].startswith("Its text could not be recognised: ")


def test_reocr_runs_again_and_keeps_the_text_searchable(home: Path, tmp_path: Path) -> None:
    shot = screenshot(tmp_path / "a.png", "kettlebell schedule")
    runner = CliRunner()
    assert runner.invoke(main, ["import", str(shot)]).exit_code == 0
    result = runner.invoke(main, ["reocr", "--all"])
    assert result.exit_code == 0, result.output
    assert "Re-recognised 1 of 1" in result.output
    (record,) = records(home)
    assert record.ocr_state == "done" and "kettlebell" in record.ocr_text.lower()
    assert record.id in runner.invoke(main, ["search", "kettlebell"]).output
    assert runner.invoke(main, ["reocr"]).exit_code == 2
    bad = runner.invoke(main, ["reocr", "--all", "--engine", "nonsense"])
    assert bad.exit_code == 1 and "nonsense" in bad.output


def test_reocr_reads_a_display_capture_window_by_window_as_the_app_did(
    home: Path,
    desktop: XServer,
    open_window: OpenWindow,
    tmp_path: Path,
    session: MemoryClient,
) -> None:
    # Side by side, overlapping, light and dark: read as one image, their
    # lines would come in another order, cut at other places.
    shown = [
        ("Ledger", 40, 60, 1150, 360, "#ffffff", "#000000", "Quarterly invoice"),
        ("Notes", 1080, 200, 1100, 380, "#1e1e1e", "#e6e6e6", "Meeting agenda"),
        ("Release", 300, 820, 1700, 340, "#f2f2f2", "#202020", "Download release notes"),
    ]
    for title, x, y, width, height, background, foreground, text in shown:
        open_window(
            desktop,
            title,
            x=x,
            y=y,
            width=width,
            height=height,
            background=background,
            foreground=foreground,
            text=text,
        )
    set_control(home, "allow")
    with running_app(home, desktop.env, tmp_path / "app.log"):
        answer = session.call("observe_screen", {"target": "display"})
        capture_id = answer["result"]["structuredContent"]["id"]
        wait_until(lambda: records(home)[0].ocr_state == "done", "the app's OCR")
    (by_app,) = records(home)
    (image,) = by_app.images
    assert len(image.windows) >= len(shown)  # the rectangles the app read by
    for *_, text in shown:
        assert text in by_app.ocr_text, by_app.ocr_text
    result = CliRunner().invoke(main, ["reocr", capture_id])
    assert result.exit_code == 0, result.output
    (by_reocr,) = records(home)
    assert by_reocr.images[0].ocr_lines == image.ocr_lines


def test_reocr_keeps_the_old_text_of_an_unreadable_capture_and_says_why(
    home: Path, tmp_path: Path
) -> None:
    shot = screenshot(tmp_path / "a.png", "kettlebell schedule")
    runner = CliRunner()
    assert runner.invoke(main, ["import", str(shot)]).exit_code == 0
    (before,) = records(home)
    assert "kettlebell" in before.ocr_text.lower()
    with Reader.open(home) as reader:
        path = reader.image_file(before.images[0])
    path.write_bytes(path.read_bytes()[:100])  # the disk damaged this file
    result = runner.invoke(main, ["reocr", before.id])
    assert result.exit_code == 1
    assert f"{before.id}: not re-read: image 1 could not be read: " in result.output
    assert "Error" not in result.output  # words, not exception class names
    assert "Re-recognised 0 of 1" in result.output
    (after,) = records(home)
    assert (after.ocr_state, after.ocr_text) == ("done", before.ocr_text)


@pytest.mark.parametrize("setting", ['ocr_engine = "nonsense"'])
def test_an_unknown_engine_leaves_captures_pending_and_says_why(
    home: Path, desktop: XServer, tmp_path: Path, session: MemoryClient, setting: str
) -> None:
    (home / "config.toml").write_text(setting + "\n")
    with running_app(home, desktop.env, tmp_path / "app.log"):
        text = session.call("get_status")["result"]["content"][0]["text"]
    assert "OCR engine: unavailable" in text and "nonsense" in text


# --- the text's state is true: "pending" only while something is reading it -----------


def _maps(pid: int) -> str:
    """What ``pid`` has mapped (its libraries among them); "" once it ended."""
    try:
        return Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return ""


def test_the_app_names_its_engine_as_the_ocr_process_said_and_never_loads_it(
    home: Path, desktop: XServer, tmp_path: Path, session: MemoryClient
) -> None:
    """Tesseract's library is loaded in the OCR process only (in the app it
    would stay for the app's whole life); the status names its version, as
    the OCR process said it in its hello."""
    from tests.ocr_pipe import ocr_children

    def status() -> str:
        text: str = session.call("get_status")["result"]["content"][0]["text"]
        return text

    with running_app(home, desktop.env, tmp_path / "app.log") as app:
        wait_until(  # the app starts one at its own start, for an agent's first look
            lambda: any("libtesseract" in _maps(c) for c in ocr_children(app.proc.pid)),
            "the OCR process's engine loaded",
        )
        named = re.compile(r"OCR engine: tesseract \d+\.\d+")
        wait_until(lambda: named.search(status()) is not None, "the engine's version")
        assert "libtesseract" not in _maps(app.proc.pid)


def test_without_an_app_an_unread_import_is_not_called_pending_and_asks_no_retry(
    home: Path, tmp_path: Path, session: MemoryClient
) -> None:
    import_pending(home, str(screenshot(tmp_path / "a.png", "quarterly figures")))
    redaction_off(home)  # with it on, the capture is held back (test_redact_served.py)
    (record,) = records(home)
    answer = session.call("get_capture", {"id": record.id})
    assert answer["result"]["structuredContent"]["ocr_pending"] is False
    text = answer_text(answer)
    assert "a moment later" not in text and "still running" not in text
    assert "has not been recognised yet: the Noru app is not running" in text
    assert "asking again before then gives this same answer" in text
    assert text.splitlines()[-1].endswith("-rec(not recognised yet: the Noru app is not running)")
    shown = CliRunner().invoke(main, ["show", record.id]).output
    assert "Text not recognised yet (the Noru app is not running)" in shown


def test_an_app_without_an_engine_does_not_leave_imports_called_pending(
    home: Path, desktop: XServer, tmp_path: Path, session: MemoryClient
) -> None:
    import_pending(home, str(screenshot(tmp_path / "a.png", "quarterly figures")))
    (home / "config.toml").write_text('ocr_engine = "nonsense"\n')
    with running_app(home, desktop.env, tmp_path / "app.log"):
        (record,) = records(home)
        answer = session.call("get_capture", {"id": record.id, "text_only": True})
    assert answer["result"]["structuredContent"]["ocr_pending"] is False
    assert "the Noru app cannot recognise text (unknown OCR engine 'nonsense'" in answer_text(
        answer
    )


def test_an_import_made_while_the_app_runs_is_read_by_the_app(
    home: Path, desktop: XServer, tmp_path: Path
) -> None:
    with running_app(home, desktop.env, tmp_path / "app.log"):
        import_pending(home, str(screenshot(tmp_path / "a.png", "kettlebell schedule")))
        wait_until(lambda: records(home)[0].ocr_state == "done", "the app reading the import")
    assert "kettlebell" in records(home)[0].ocr_text.lower()


def test_a_repeat_look_at_an_unchanged_screen_stores_what_a_fresh_reading_gives(
    home: Path,
    desktop: XServer,
    open_window: OpenWindow,
    tmp_path: Path,
    session: MemoryClient,
) -> None:
    """The app's OCR process remembers what it read; the text it stores for the
    second look is exactly what `noru reocr` (a fresh engine) reads."""
    for title, x, text in (("Ledger", 40, "Quarterly invoice"), ("Notes", 1300, "Meeting agenda")):
        open_window(desktop, title, x=x, y=80, width=1100, height=400, text=text)
    set_control(home, "allow")
    with running_app(home, desktop.env, tmp_path / "app.log"):
        looks = []
        for _ in range(2):
            answer = session.call("observe_screen", {"target": "display", "text_only": True})
            looks.append(answer["result"]["structuredContent"]["id"])
            wait_until(lambda: all(r.ocr_state == "done" for r in records(home)), "the text")
    first, second = (next(r for r in records(home) if r.id == i) for i in looks)
    assert second.images[0].ocr_lines == first.images[0].ocr_lines
    assert "Quarterly invoice" in second.ocr_text and "Meeting agenda" in second.ocr_text
    result = CliRunner().invoke(main, ["reocr", second.id])
    assert result.exit_code == 0, result.output
    fresh = next(r for r in records(home) if r.id == second.id)
    assert fresh.images[0].ocr_lines == second.images[0].ocr_lines


def _children(pid: int) -> list[tuple[int, str]]:
    """``pid``'s children (any thread's) and each one's state letter (Z: a zombie)."""
    states = []
    for child in processes.children(pid):
        try:
            stat = Path(f"/proc/{child}/stat").read_text()
        except OSError:
            continue
        states.append((child, stat.rsplit(")", 1)[1].split()[0]))
    return states


def test_an_idle_ocr_process_is_stopped_and_reaped_and_the_next_capture_read(
    home: Path, desktop: XServer, tmp_path: Path
) -> None:
    """The app stops an OCR process that had no job for a while
    (``ocr_worker.LINGER`` after a job no agent waits for) and waits for it:
    none is left, not even ``<defunct>``, while the app sits idle; the next
    job starts a fresh one, which reads it."""
    with running_app(home, desktop.env, tmp_path / "app.log") as app:
        import_pending(home, str(screenshot(tmp_path / "a.png", "kettlebell schedule")))
        wait_until(lambda: records(home)[0].ocr_state == "done", "the app reading the import")
        wait_until(lambda: not _children(app.proc.pid), "the idle OCR process stopped and reaped")
        import_pending(home, str(screenshot(tmp_path / "b.png", "marmalade inventory")))
        wait_until(lambda: records(home)[0].ocr_state == "done", "the app reading the import")
        assert all(state != "Z" for _, state in _children(app.proc.pid))
    assert "marmalade" in records(home)[0].ocr_text.lower()


def test_an_edited_engine_setting_is_read_by_the_next_job_in_a_fresh_ocr_process(
    home: Path, desktop: XServer, tmp_path: Path, session: MemoryClient
) -> None:
    """The person edits config.toml while the app runs: the next capture is
    read by the engine it names now, in an OCR process started for it (the
    old one is stopped and reaped), and the app's status says so."""
    from tests.ocr_pipe import ocr_children

    with running_app(home, desktop.env, tmp_path / "app.log") as app:
        import_pending(home, str(screenshot(tmp_path / "a.png", "kettlebell schedule")))
        wait_until(lambda: records(home)[0].ocr_state == "done", "the app reading the import")
        assert records(home)[0].ocr_engine.startswith("tesseract")
        (before,) = ocr_children(app.proc.pid)
        (home / "config.toml").write_text('ocr_engine = "rapidocr"\nocr_second_opinion = false\n')
        import_pending(home, str(screenshot(tmp_path / "b.png", "marmalade inventory")))
        wait_until(lambda: records(home)[0].ocr_state == "done", "the app reading the import")
        (after,) = ocr_children(app.proc.pid)
        command = Path(f"/proc/{after}/cmdline").read_bytes().split(b"\0")[:-1]
        status = session.call("get_status")["result"]["content"][0]["text"]
    latest = records(home)[0]
    assert latest.ocr_engine.startswith("rapidocr"), latest.ocr_engine
    assert "marmalade" in latest.ocr_text.lower()
    assert after != before
    assert command[-3:] == [b"rapidocr", str(home).encode(), b"single"]
    assert "OCR engine: rapidocr" in status
