"""The app's OCR child (`python -m noru.app.ocr_process`), driven over its own
pipes as the app drives it, with the pipe's codec (``noru.appwire``): a
capture read from its file, or from the pixels the app sends after the
request line; and what it does with a request that is no such thing, or of
another version. The real engine, a real history."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image, ImageDraw, ImageFont

from noru import __version__, imaging
from noru.appwire import PROTOCOL, Mismatch, codec
from noru.appwire.ocr_pipe import Fatal, Ready, Recognise, Recognised
from noru.cli import main
from noru.store import Filters, Reader
from tests.ocr_pipe import answer, child_process, send
from tests.processes import stop

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


@pytest.fixture
def stored(home: Path, tmp_path: Path) -> tuple[str, Image.Image]:
    """A capture in the history whose text is not read yet, and its image."""
    image = Image.new("RGB", (900, 240), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.text((40, 90), "quarterly ledger 4096", font=ImageFont.truetype(FONT, 40), fill=(0, 0, 0))
    image.save(tmp_path / "shot.png")
    result = CliRunner().invoke(main, ["import", "--no-ocr", str(tmp_path / "shot.png")])
    assert result.exit_code == 0, result.output
    with Reader.open(home) as reader:
        (row,) = reader.list_rows(Filters(), limit=1)[0]
    return row.id, image


@pytest.fixture
def child(home: Path, stored: tuple[str, Image.Image]) -> Iterator[subprocess.Popen[bytes]]:
    """The OCR process on the history (made first: it opens it as it starts)."""
    with child_process(home) as proc:
        hello = answer(proc)
        assert isinstance(hello, Ready) and hello.app_version == __version__
        yield proc


def rows(image: Image.Image) -> imaging.Scanlines:
    found = imaging.scanlines(image)
    assert found is not None
    return found


def text(reply: object) -> str:
    assert isinstance(reply, Recognised), reply
    return " ".join(line.text for lines in reply.lines for line in lines)


def test_pixels_sent_with_a_request_read_as_the_stored_file_reads(
    child: subprocess.Popen[bytes], stored: tuple[str, Image.Image]
) -> None:
    """The app sends a grab as a PNG's rows (``imaging.Scanlines``: each row
    and then a zero byte) after the request's line."""
    capture_id, image = stored
    send(child, Recognise(capture_id))
    from_file = answer(child)
    send(child, Recognise(capture_id, (rows(image),)))
    from_pixels = answer(child)
    assert "quarterly ledger" in text(from_file)
    assert from_pixels == from_file


def test_pixels_of_another_size_than_the_image_are_not_read_its_file_is(
    child: subprocess.Popen[bytes], stored: tuple[str, Image.Image]
) -> None:
    capture_id, _ = stored
    blank = Image.new("RGB", (300, 100), (255, 255, 255))
    send(child, Recognise(capture_id, (rows(blank),)))
    assert "quarterly ledger" in text(answer(child))


def anonymous_mb(pid: int) -> float:
    """The process's own memory (not its mapped files), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no RssAnon in /proc/PID/status")


def test_pixels_sent_with_a_job_are_let_go_once_it_is_answered(
    child: subprocess.Popen[bytes], stored: tuple[str, Image.Image]
) -> None:
    """A 2560x1600 screen's bytes (12 MB) must not stay with the process while
    it waits for its next job (a name that outlived the loop held them)."""
    capture_id, _ = stored
    send(child, Recognise(capture_id))
    answer(child)
    before = anonymous_mb(child.pid)
    screen = rows(Image.new("RGB", (2560, 1600), (255, 255, 255)))
    send(child, Recognise(capture_id, (screen,)))
    assert "quarterly ledger" in text(answer(child))
    assert anonymous_mb(child.pid) - before < len(screen.data) / 2**20 / 2


def line(body: str) -> bytes:
    return ('{"noru": ' + str(PROTOCOL) + ', "request": "recognise", ' + body + "}\n").encode()


@pytest.mark.parametrize(
    ("request_line", "why"),
    [
        (line('"pixels": []'), "`capture` is missing"),
        (
            line('"capture": "x", "pixels": [{"size": [0, 10], "mode": "RGB", "rows_bytes": 0}]'),
            "an image that is not one",
        ),
        (
            line(
                '"capture": "x", "pixels": [{"size": [10, "10"], "mode": "RGB", "rows_bytes": 310}]'
            ),
            "an image that is not one",
        ),
        (
            line(
                '"capture": "x", "pixels": [{"size": [10, 10], "mode": "RGB", "rows_bytes": 300}]'
            ),
            "`rows_bytes` is not the image's rows",
        ),  # rows shorter than their pixels
        (
            line(
                '"capture": "x", "pixels": [{"size": [10, 10], "mode": "RGB", "rows_bytes": "310"}]'
            ),
            "`rows_bytes` has the wrong type",
        ),
        (
            line('"capture": "x", "pixels": [{"size": [10, 10], "mode": "L", "rows_bytes": 110}]'),
            "an image that is not one",
        ),
        (
            line(
                '"capture": "x", "pixels": [{"size": [1, 40000], "mode": "RGB", "rows_bytes": 1}]'
            ),
            "an image that is not one",
        ),
        (line('"capture": "x", "pixels": "10x10"'), "`pixels` has the wrong type"),
        (b"[1, 2]\n", "not a JSON object"),
        (b"not json\n", "not JSON"),
        (b'{"noru": %d, "request": "ping"}\n' % PROTOCOL, "not a request here: ping"),
        (b'{"noru": %d, "reply": "ready"}\n' % PROTOCOL, "no `request` name"),
    ],
)
def test_a_request_that_is_no_request_ends_the_process_with_a_reason(
    child: subprocess.Popen[bytes], request_line: bytes, why: str
) -> None:
    """What follows such a line can no longer be told apart from the next
    request: the process says why and ends; the app starts a fresh one."""
    send(child, request_line)
    said = answer(child)
    assert isinstance(said, Fatal) and said.reason.startswith("the OCR process was sent ")
    assert why in said.reason
    assert child.wait(timeout=30) == 1


@pytest.mark.parametrize("version", [PROTOCOL - 1, PROTOCOL + 1, None])
def test_a_request_of_another_version_is_told_so_and_the_process_ends(
    child: subprocess.Popen[bytes], stored: tuple[str, Image.Image], version: int | None
) -> None:
    """An app of another release (it started this process from what is
    installed now) is told which protocol this one speaks, not misread."""
    envelope = "" if version is None else f'"noru": {version}, '
    send(
        child,
        ("{" + envelope + f'"request": "recognise", "capture": "{stored[0]}"' + "}\n").encode(),
    )
    assert answer(child) == Mismatch(PROTOCOL, __version__)
    assert child.wait(timeout=30) == 1


def test_the_process_loads_nothing_of_the_app_it_does_not_use() -> None:
    """`python -m noru.app.ocr_process` imports the package ``noru.app``
    first: that must not bring the app's own parts (its ``App``, the access
    state, the person's edits) into the OCR process, which reads text. Nor
    does the wire it speaks bring what only the app's socket needs: the
    socket's client, and the capture package whose degraded modes the app's
    status carries."""
    code = "import sys, noru.app.ocr_process; print(*sorted(sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(done.stdout.split())
    ours = {name for name in loaded if name == "noru.app" or name.startswith("noru.app.")}
    assert ours == {"noru.app", "noru.app.ocr_process"}
    assert not loaded & {"noru.access", "noru.edits", "noru.exclusions", "noru.settings"}
    assert not {name for name in loaded if name.startswith("noru.capture")}
    assert not loaded & {"noru.appwire.client", "socket"}


def test_the_app_s_worker_meets_the_process_only_through_the_pipe() -> None:
    """What both sides share (the messages, the variable that carries the
    app's pid) is the pipe's: the app does not load the process's module."""
    code = "import sys, noru.app.ocr_worker; print(*sorted(sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(done.stdout.split())
    assert "noru.appwire.ocr_pipe" in loaded
    assert "noru.app.ocr_process" not in loaded


# The OCR process on argv[2]'s history, writing what it loaded to argv[1] as it ends.
_LOADED = (
    "import sys; from pathlib import Path; from noru.app import ocr_process as p; "
    "out = Path(sys.argv[1]); sys.argv[1:] = ['tesseract', sys.argv[2]]; code = p.main(); "
    "out.write_text(' '.join(sorted(sys.modules))); sys.exit(code)"
)


def test_a_process_that_has_read_a_capture_has_loaded_nothing_it_does_not_use(
    home: Path, stored: tuple[str, Image.Image], tmp_path: Path
) -> None:
    """Its jobs need the engine, the history's reader and the pipe: not the
    person's settings and access state (what only the app's saving of a
    capture's text reads), not the socket's client nor the capture package,
    and of the store not the writer's part (it opens the history read-only)."""
    out = tmp_path / "loaded"
    with child_process(home, ("-c", _LOADED, str(out))) as proc:
        assert isinstance(answer(proc), Ready)
        send(proc, Recognise(stored[0]))
        assert "quarterly ledger" in text(answer(proc))
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
    loaded = set(out.read_text().split())
    assert "noru.recognition" in loaded and "noru.ocr.tesseract" in loaded
    assert "noru.store.reader" in loaded
    assert not loaded & {"noru.access", "noru.edits", "noru.exclusions", "noru.settings"}
    assert not {name for name in loaded if name.startswith("noru.capture")}
    assert not loaded & {"noru.appwire.client", "socket"}
    assert not loaded & {"noru.store.writer", "noru.store.indexing", "noru.store.removal"}


# The OCR process on argv[2]'s history, its engine told as it reads whether
# the rows it was sent are still held; what it was told goes to argv[1].
_WATCHED = """
import sys, weakref
from pathlib import Path
from noru import ocr
from noru.app import ocr_process as p
from noru.imaging import png
out, sent, held = Path(sys.argv[1]), [], []
copy = png.Scanlines.image
def image(rows):
    sent.append(weakref.ref(rows))
    return copy(rows)
png.Scanlines.image = image
make = ocr.get_engine
def get_engine(*args, **kwargs):
    engine = make(*args, **kwargs)
    read = engine.recognise
    def recognise(picture, **options):
        held.extend(ref() is not None for ref in sent)
        return read(picture, **options)
    engine.recognise = recognise
    return engine
ocr.get_engine = get_engine
sys.argv[1:] = ["tesseract", sys.argv[2]]
code = p.main()
out.write_text(repr(held))
sys.exit(code)
"""


def test_the_rows_a_job_was_sent_are_let_go_before_its_screen_is_read(
    home: Path, stored: tuple[str, Image.Image], tmp_path: Path
) -> None:
    """Pillow copies them into the picture it reads: a 2560x1600 screen's
    12 MB of rows are not held beside it while it is read."""
    capture_id, image = stored
    out = tmp_path / "held"
    with child_process(home, ("-c", _WATCHED, str(out))) as proc:
        assert isinstance(answer(proc), Ready)
        send(proc, Recognise(capture_id, (rows(image),)))
        assert "quarterly ledger" in text(answer(proc))
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
    assert out.read_text() == "[False]"


def test_pixels_cut_short_by_the_app_stopping_end_the_process_quietly(
    child: subprocess.Popen[bytes], stored: tuple[str, Image.Image]
) -> None:
    capture_id, image = stored
    whole = codec.encode(Recognise(capture_id, (rows(image),)))
    send(child, whole[: len(whole) // 2])
    assert child.stdin is not None
    child.stdin.close()
    assert child.wait(timeout=30) == 0


# The OCR process with its idle time shortened (a quiet spell is QUIET, 10 s).
_SHORT_IDLE = (
    "import sys; from noru.app import ocr_process as p; "
    "p.IDLE_EXIT = 11.0; sys.argv[1:] = ['tesseract', sys.argv[1]]; "
    "sys.exit(p.main())"
)


@pytest.mark.parametrize("reads", [True, False])
def test_an_idle_process_ends_by_itself_read_or_not(
    home: Path, stored: tuple[str, Image.Image], reads: bool
) -> None:
    """Left without a job for IDLE_EXIT (the app ends it sooner: this is for
    an app that never does), the process ends cleanly, after reading (its
    quiet-spell trim first) or not; the app starts one at its next job."""
    with child_process(home, ("-c", _SHORT_IDLE)) as proc:
        assert isinstance(answer(proc), Ready)
        if reads:
            send(proc, Recognise(stored[0]))
            assert "quarterly ledger" in text(answer(proc))
        assert proc.wait(timeout=120) == 0


# The app, started as the OCR process's parent: it starts its child as the app
# does (``spawn_child``), hands the child's pipes up to the subreaper (so that
# no end of input can tell the child, only its parent's death), waits until
# the child has stopped itself before loading Noru ("before") or has said it
# is ready ("after"), says the child's pid, and waits to be killed.
_APP = """
import os, socket, sys
from pathlib import Path
from noru.app.ocr_worker import EngineSetting, spawn_child
from noru.appwire import codec

home, when, stops, fd = sys.argv[1:5]
up = socket.socket(fileno=int(fd))
if when == "before":
    os.environ["PYTHONPATH"] = os.pathsep.join([stops, os.environ.get("PYTHONPATH", "")])
child = spawn_child(EngineSetting("tesseract", False), Path(home))
if when == "before":
    os.waitpid(child.pid, os.WUNTRACED)
else:
    codec.read_answer(child.stdout)
socket.send_fds(up, [b"p"], [child.stdin.fileno(), child.stdout.fileno()])
print(child.pid, flush=True)
up.recv(1)
"""

# A process that adopts its orphaned descendants (PR_SET_CHILD_SUBREAPER, as
# systemd --user or a container's init does): it starts the app above, kills
# it by its pid, lets a stopped child go on, and prints how the child ended
# and what it said. A child still running after its first line or GUARD
# seconds (it went on without its app) is killed by its pid.
_SUBREAPER = """
import ctypes, json, os, select, signal, socket, subprocess, sys, time

GUARD = 60.0
home, when, stops, app_script = sys.argv[1:5]
signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(36, 1, 0, 0, 0) != 0:
    sys.exit("PR_SET_CHILD_SUBREAPER refused")
ours, theirs = socket.socketpair()
app = subprocess.Popen(
    [sys.executable, "-c", app_script, home, when, stops, str(theirs.fileno())],
    pass_fds=[theirs.fileno()],
    stdout=subprocess.PIPE,
)
theirs.close()
child = None
try:
    _, (to_child, from_child), _, _ = socket.recv_fds(ours, 16, 2)
    child = int(app.stdout.readline())
    app.kill()
    app.wait()
    if when == "before":
        os.kill(child, signal.SIGCONT)
    said = b""
    deadline = time.monotonic() + GUARD
    while b"\\n" not in said and time.monotonic() < deadline:
        if select.select([from_child], [], [], 0.5)[0]:
            piece = os.read(from_child, 65536)
            if not piece:
                break
            said += piece
    if b"\\n" in said or time.monotonic() >= deadline:
        os.kill(child, signal.SIGKILL)
    status = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
    child = None
    print(json.dumps({"status": status, "said": said.decode(errors="replace")}))
finally:
    if app.poll() is None:
        app.kill()
        app.wait()
    if child is not None:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
"""

# Loaded first by the child's Python when on its path: the child stops itself
# before it loads anything of Noru, so its app can die before it asks to die
# with it, every time.
_STOP_AT_START = "import os, signal\nos.kill(os.getpid(), signal.SIGSTOP)\n"


@pytest.mark.parametrize(
    ("when", "status"), [("before", 0), ("after", -signal.SIGKILL)], ids=["before", "after"]
)
def test_the_process_ends_with_an_app_that_dies_under_a_subreaper(
    stored: tuple[str, Image.Image], home: Path, tmp_path: Path, when: str, status: int
) -> None:
    """Under a subreaper an orphan's new parent is not pid 1: an app that died
    before its OCR process asked to die with it leaves it nothing to do, and it
    ends at once, having said nothing (it must not start its engine for no
    one); an app that dies after takes it down with it."""
    stops = tmp_path / "stops"
    stops.mkdir()
    (stops / "sitecustomize.py").write_text(_STOP_AT_START)
    subreaper = subprocess.Popen(
        [sys.executable, "-c", _SUBREAPER, str(home), when, str(stops), _APP],
        stdout=subprocess.PIPE,
    )
    try:
        out, _ = subreaper.communicate(timeout=180)
    finally:
        stop(subreaper)
    assert subreaper.returncode == 0
    ended = json.loads(out)
    assert ended == {"status": status, "said": ""}
