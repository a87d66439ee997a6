"""Secrets real programs draw never reach an agent: a real `noru app` (its
real OCR engine) and a real `noru mcp` over its stdio, looking at real X
clients showing planted (generated) secrets beside ordinary code and logs.

For each screen: no secret value, nor 8 consecutive characters of one, is
in any served text; the served image is filled solid where each secret was
read (compared with the stored original, where it is drawn); the agent's
search by the value finds nothing while the person's finds the capture;
the ordinary lines around are served as read.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import random
import subprocess
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from noru.access import set_control
from noru.present.pixels import FILL
from noru.redact import find_lines, policy
from noru.redact.apply import for_agent
from noru.store import Filters, Reader
from tests import real_clients, real_terminals
from tests.app_process import SETTLE_FOR_TESTS, running_app
from tests.parts import require
from tests.redaction_cases import ALNUM, ORDINARY, leaked, luhn_card, pick, planted
from tests.wire import StdioSession, noru_command
from tests.xserver import XServer


def _env_file(rng: random.Random) -> tuple[list[str], list[str]]:
    """An xterm `cat .env`: its lines, and the secret values among them."""
    cases = planted(seed=rng.randrange(1000))
    chosen = [c for c in cases if c[2] in ("aws-key", "aws-secret", "github-token", "url-password")]
    password = pick(rng, ALNUM, 10) + "-" + pick(rng, ALNUM, 6)
    lines = [
        "$ cat .env",
        "APP_ENV=production",
        *[line for line, _, _ in chosen],
        f"DB_PASSWORD={password}",
        "LOG_LEVEL=info",
        *ORDINARY[:3],
    ]
    return lines, [value for _, value, _ in chosen] + [password]


def _kubectl(rng: random.Random) -> tuple[list[str], list[str]]:
    """An Xft terminal: a kubectl secret and a curl with a bearer token."""
    encoded = base64.b64encode(pick(rng, ALNUM, 18).encode()).decode()
    token = (
        "eyJ"
        + pick(rng, ALNUM, 20)
        + "."
        + "eyJ"
        + pick(rng, ALNUM, 24)
        + "."
        + pick(rng, ALNUM, 30)
    )
    lines = [
        "$ kubectl get secret ledger-db -o yaml",
        "apiVersion: v1",
        "data:",
        f"  password: {encoded}",
        "  username: bGVkZ2Vy",
        "kind: Secret",
        f'$ curl -s -H "Authorization: Bearer {token}" https://api.internal/v1/jobs',
        *ORDINARY[9:12],
    ]
    return lines, [encoded, token]


def _checkout(rng: random.Random) -> tuple[list[str], list[str]]:
    """A browser page: a card number, and a password beside its field's label."""
    card = luhn_card(rng)
    password = pick(rng, ALNUM, 8) + "_" + pick(rng, ALNUM, 6)
    lines = [
        "Order 4471: two tickets, 84.00 EUR",
        f"Card number: {card}",
        "Name on card: Ada Lovelace",
        f"Password: {password}",
        "Delivery by e-mail within the hour.",
    ]
    return lines, [card, password]


@pytest.fixture
def mcp(home: Path, desktop: XServer, tmp_path: Path) -> Iterator[StdioSession]:
    (home / "config.toml").write_text(SETTLE_FOR_TESTS)
    set_control(home, "allow")
    env = {**desktop.env, "NORU_HOME": str(home)}
    with running_app(home, desktop.env, tmp_path / "app.log"):
        proc = subprocess.Popen(
            [*noru_command(), "mcp"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        try:
            yield StdioSession(proc, client="redaction-test")
        finally:
            assert proc.stdin and proc.stdout
            proc.stdin.close()
            proc.wait(timeout=30)
            proc.stdout.close()


def _texts(answer: dict[str, Any]) -> str:
    result = answer["result"]
    blocks = [b["text"] for b in result["content"] if b["type"] == "text"]
    return "\n".join(blocks) + json.dumps(result.get("structuredContent"))


def _check(
    session: StdioSession,
    home: Path,
    opened: AbstractContextManager[real_clients.Client],
    secrets: Sequence[str],
    ordinary: Sequence[str],
) -> None:
    with opened as client:
        client.activate()
        client.bring_under_pointer()
        answer = session.call("observe_screen", {"target": "window"})
    text = _texts(answer)
    assert '"ocr_pending": false' in text, text[-600:]
    for secret in secrets:
        assert leaked(text, secret) is None, (secret, leaked(text, secret))
    assert "!redact(" in text
    # The ordinary lines are served as read: most of their words are there.
    words = [w for line in ordinary for w in line.split() if len(w) > 3]
    assert sum(w in text for w in words) >= 0.9 * len(words)
    capture_id = answer["result"]["structuredContent"]["id"]
    (served,) = [
        Image.open(io.BytesIO(base64.b64decode(b["data"]))).convert("RGB")
        for b in answer["result"]["content"]
        if b["type"] == "image"
    ]
    with Reader.open(home) as reader:
        record = reader.get(capture_id)
        assert record is not None and record.ocr_state == "done"
        (image,) = record.images
        original = Image.open(reader.image_file(image)).convert("RGB")
        lines = image.ocr_lines or ()
        found = find_lines([line.text for line in lines])
        spans = [(line, span) for line, spans in zip(lines, found, strict=True) for span in spans]
        assert spans, "nothing was found to redact"
        # The person's own history holds what was read: search it by a value as read.
        read_value = spans[0][0].text[spans[0][1].start : spans[0][1].end]
        hits, _ = reader.search(read_value, Filters(), now=record.captured_at)
        assert capture_id in [hit.row.id for hit in hits]
    seen = for_agent(record, policy.Policy.of(["secrets", "cards"]))
    ((*boxes,),) = seen.boxes
    assert len(boxes) == len(spans)
    scale = served.width / original.width
    for (line, span), (x, y, w, h) in zip(spans, boxes, strict=True):
        # The box holds the span's ink in the original, and is solid in what was served.
        drawn = original.crop((x, y, x + w, y + h))
        assert len(set(drawn.tobytes())) > 1, (line.text, span)
        box = tuple(round(v * scale) for v in (x, y, x + w, y + h))
        filled = served.crop(box)
        assert filled.getextrema() == tuple((c, c) for c in FILL), (line.text, span)
    # The agent's search by each value finds nothing.
    for secret in secrets:
        answer = session.call("search_captures", {"query": secret})
        first = answer["result"]["content"][0]["text"]
        assert first.startswith("Noru no match") or capture_id not in first, secret
    answer = session.call("search_captures", {"query": read_value})
    assert capture_id not in answer["result"]["content"][0]["text"]


def test_an_xterm_showing_a_dot_env_file(mcp: StdioSession, home: Path, desktop: XServer) -> None:
    problem = real_terminals.missing("xterm")
    require(problem is None, problem or "")
    lines, secrets = _env_file(random.Random(21))
    opened = real_terminals.open_xterm(desktop, lines, columns=120, rows=len(lines) + 2, x=80, y=80)
    _check(mcp, home, opened, secrets, [lines[1], *lines[-3:]])


def test_an_xft_terminal_with_a_kubectl_secret_and_a_bearer_token(
    mcp: StdioSession, home: Path, desktop: XServer
) -> None:
    problem = real_terminals.missing("xterm")
    require(problem is None, problem or "")
    lines, secrets = _kubectl(random.Random(22))
    opened = real_terminals.open_xterm(
        desktop, lines, columns=140, rows=len(lines) + 2, font="DejaVu Sans Mono", size=10,
        theme="dark", x=80, y=80,
    )  # fmt: skip
    _check(mcp, home, opened, secrets, lines[-3:])


def test_a_browser_checkout_page(mcp: StdioSession, home: Path, desktop: XServer) -> None:
    problem = real_clients.missing("firefox")
    require(problem is None, problem or "")
    lines, secrets = _checkout(random.Random(23))
    opened = real_clients.open_firefox(desktop, "Checkout", lines, x=80, y=80)
    _check(mcp, home, opened, secrets, [lines[0], lines[2], lines[4]])


class _Watcher(threading.Thread):
    """Every version of every file that appears in a folder, read as soon as
    it is seen (a file is renamed into place whole: any read is all of it)."""

    def __init__(self, folder: Path) -> None:
        super().__init__(daemon=True)
        self.folder = folder
        self.seen: dict[Path, set[bytes]] = {}
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.001):
            for path in self.folder.rglob("*.png"):
                with contextlib.suppress(OSError):
                    self.seen.setdefault(path, set()).add(path.read_bytes())


def test_kept_redacted_at_rest_the_agent_gets_the_filled_original(
    home: Path, desktop: XServer, tmp_path: Path, held: Path
) -> None:
    """With redact_at_rest the app's own served image (made at the grab,
    before the text was read) must not be what the agent gets, and the
    image as taken never reaches the images folder: it is held in memory
    until its text is read, and only its filled form is written."""
    from noru.capture import Capturer

    problem = real_terminals.missing("xterm")
    require(problem is None, problem or "")
    (home / "config.toml").write_text(SETTLE_FOR_TESTS + "redact_at_rest = true\n")
    set_control(home, "allow")
    lines, secrets = _env_file(random.Random(24))
    app_env = {**desktop.env, "XDG_RUNTIME_DIR": str(held.parent)}
    env = {**app_env, "NORU_HOME": str(home)}
    watcher = _Watcher(home / "images")
    watcher.start()
    with (
        running_app(home, app_env, tmp_path / "app.log"),
        real_terminals.open_xterm(
            desktop, lines, columns=120, rows=len(lines) + 2, x=80, y=80
        ) as client,
        Capturer(display=desktop.display) as capturer,
    ):
        client.activate()
        client.bring_under_pointer()
        proc = subprocess.Popen(
            [*noru_command(), "mcp"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        try:
            answer = StdioSession(proc, client="redaction-test").call(
                "observe_screen", {"target": "window"}
            )
        finally:
            assert proc.stdin and proc.stdout
            proc.stdin.close()
            proc.wait(timeout=30)
            proc.stdout.close()
        (grab,) = capturer.grab_window("pointer")
    text = _texts(answer)
    for secret in secrets:
        assert leaked(text, secret) is None, secret
    (served,) = [
        Image.open(io.BytesIO(base64.b64decode(b["data"]))).convert("RGB")
        for b in answer["result"]["content"]
        if b["type"] == "image"
    ]
    with Reader.open(home) as reader:
        record = reader.get(answer["result"]["structuredContent"]["id"])
        assert record is not None
        stored = Image.open(reader.image_file(record.images[0])).convert("RGB")
        assert "[redacted: aws-key]" in record.ocr_text
        for secret in secrets:
            assert leaked(record.ocr_text, secret) is None
    watcher.done.set()
    watcher.join()
    assert served.tobytes() == stored.tobytes()  # the filled original, not the grab's
    # The images folder only ever held the filled form; nothing is left held.
    assert {path.name for path in watcher.seen} == {Path(record.images[0].path).name}
    (versions,) = watcher.seen.values()
    assert len(versions) == 1, f"{len(versions)} versions were on disk"
    assert versions == {reader.image_file(record.images[0]).read_bytes()}
    assert not [path for path in held.rglob("*") if path.is_file()]
    raw = grab.image.convert("RGB")
    assert raw.size == stored.size
    before, after = raw.tobytes(), stored.tobytes()
    changed = [i for i in range(0, len(before), 3) if before[i : i + 3] != after[i : i + 3]]
    assert changed and all(after[i : i + 3] == bytes(FILL) for i in changed)
