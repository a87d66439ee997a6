"""The app protocol (noru.appwire): typed requests and replies, versions, refusals whole."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from noru import __version__, appwire
from noru.access import set_control
from noru.capture import Degraded, DegradedMode
from noru.errors import (
    AppNotRunning,
    AppVersionMismatch,
    InternalError,
    NotAuthorized,
    PermissionDenied,
)
from noru.imaging import Served
from noru.paths import socket_path
from noru.store import Reader
from tests.app_process import running_app
from tests.socket_peer import OneShotApp
from tests.wire import MemoryClient

if TYPE_CHECKING:
    from tests.xserver import XServer

REQUESTS: list[appwire.Request] = [
    appwire.Ping(),
    appwire.GetStatus(),
    appwire.Capture(),
    appwire.Capture(mode="region", region=(10, 20, 300, 400), note="the error"),
    appwire.Capture(mode="display", display=2, which="active"),
    appwire.Latest(text_only=True),
    appwire.Observe(target="display", display=1),
]

REPLIES: list[appwire.Reply] = [
    appwire.Pong("1.2.3"),
    appwire.AppStatus(
        "1.2.3",
        screen=appwire.ScreenAccess(
            appwire.ScreenState.GRANTED,
            "display :0 reachable",
            degraded=(DegradedMode(Degraded.NO_WINDOW_MANAGER, "no WM"),),
        ),
        ocr=appwire.OcrState(True, "tesseract", "5.3.0"),
        hotkey=appwire.HotkeyState("ctrl+alt+n", False, "taken by another program"),
        menu=appwire.MenuState(
            False,
            "no StatusNotifierItem host on the session bus",
            notifications="the notification server did not answer within 5 s",
        ),
    ),
    appwire.Captured("capture_2026-08-12_141502"),
    appwire.Delivered(
        "capture_2026-08-12_141502",
        served=(Served(b"\x89PNG-ish", 1568, 980, (2560, 1600)), Served(b"x", 10, 10, None)),
    ),
    appwire.Refused("Noru paused", "paused", ("line one",), "Resume."),
    appwire.Failed("the window closed"),
    appwire.Mismatch(protocol=appwire.PROTOCOL, app_version="9.9"),
]


@pytest.mark.parametrize("request_", REQUESTS, ids=repr)
def test_every_request_reads_back_as_it_was_sent(request_: appwire.Request) -> None:
    line = appwire.encode(request_)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert appwire.decode_request(line) == request_


@pytest.mark.parametrize("reply", REPLIES, ids=lambda r: type(r).__name__)
def test_every_reply_reads_back_as_it_was_sent(reply: appwire.Reply) -> None:
    assert appwire.decode_reply(appwire.encode(reply)) == reply


def test_served_images_travel_as_raw_bytes_after_the_reply_line() -> None:
    reply = appwire.Delivered("capture_2026-08-12_141502", (Served(b"\x89PNG\n\x00", 4, 3, None),))
    data = appwire.encode(reply)
    line, _, rest = data.partition(b"\n")
    assert rest == b"\x89PNG\n\x00" and appwire.blob_length(line + b"\n") == 6
    assert b"PNG" not in line  # no copy of the image in the line itself


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"", "does not match the bytes sent"),  # fewer bytes than the image says
        (b"extra", "nothing in it claims"),  # bytes no image claims
    ],
    ids=["short", "trailing"],
)
def test_bytes_that_do_not_match_the_served_images_are_malformed(data: bytes, why: str) -> None:
    good = appwire.encode(
        appwire.Delivered("capture_2026-08-12_141502", (Served(b"abc", 1, 1, None),))
    )
    line = good.split(b"\n", 1)[0] + b"\n"
    body = b"abc" + data if data else b"ab"
    with pytest.raises(appwire.Malformed, match=why):
        appwire.decode_reply(line + body)


@pytest.mark.parametrize("size", ["-1", "true", '"3"'], ids=["negative", "a boolean", "a string"])
def test_a_served_image_of_no_honest_size_is_malformed(size: str) -> None:
    line = (
        f'{{"noru": {appwire.PROTOCOL}, "reply": "delivered", "id": "capture_2026-08-12_141502", '
        '"served": '
        f'[{{"png_bytes": {size}, "width": 1, "height": 1, "downscaled_from": null}}]}}\n'
    ).encode()
    assert appwire.blob_length(line) == 0
    with pytest.raises(appwire.Malformed):
        appwire.decode_reply(line + b"abc")


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (b"not json\n", "not JSON"),
        (b"[1]\n", "not a JSON object"),
        (b'{"noru": %d}\n' % appwire.PROTOCOL, "no `request` name"),
        (
            b'{"noru": %d, "request": "format_disk"}\n' % appwire.PROTOCOL,
            "unknown format_disk request",
        ),
        (
            b'{"noru": %d, "request": "capture", "mode": "everything"}\n' % appwire.PROTOCOL,
            "`mode` must be one of",
        ),
        (
            b'{"noru": %d, "request": "capture", "display": true}\n' % appwire.PROTOCOL,
            "`display` must be a number",
        ),
        (
            b'{"noru": %d, "request": "capture", "region": [1, 2]}\n' % appwire.PROTOCOL,
            "`region` must be",
        ),
        (
            b'{"noru": %d, "request": "latest", "text_only": "yes"}\n' % appwire.PROTOCOL,
            "`text_only` has the wrong",
        ),
        (
            b'{"noru": %d, "reply": "pong", "app_version": "1"}\n' % appwire.PROTOCOL,
            "no `request` name",
        ),
    ],
)
def test_a_malformed_request_is_refused_with_what_is_wrong(line: bytes, why: str) -> None:
    with pytest.raises(appwire.Malformed, match=why):
        appwire.decode_request(line)


@pytest.mark.parametrize(
    "line",
    [
        b'{"op": "ping", "args": {}}\n',
        b'{"noru": 1, "request": "ping"}\n',
        b'{"noru": 2, "request": "ping"}\n',
        b'{"noru": 3, "request": "ping"}\n',
        b'{"noru": 4, "request": "ping"}\n',
    ],
    ids=[
        "the first protocol",
        "version 1",
        "version 2 (images in base64)",
        "version 3 (no menu in the status)",
        "version 4 (the OCR child's hello without its version)",
    ],
)
def test_a_request_of_another_version_is_a_mismatch_not_a_guess(line: bytes) -> None:
    assert isinstance(appwire.decode_request(line), appwire.Mismatch)


def test_a_refusal_comes_back_as_the_same_steering_with_its_own_next_action() -> None:
    sent = PermissionDenied(
        "the X server refused Noru's connection (authorization)",
        details=("Display :9: Invalid MIT-MAGIC-COOKIE-1 key",),
        next_action="Give Noru the X authority of the display, then retry.",
    )
    back = appwire.decode_reply(appwire.encode(appwire.Refused.of(sent)))
    assert isinstance(back, appwire.Refused)
    refusal = back.refusal()
    assert type(refusal) is PermissionDenied
    assert (refusal.summary, refusal.details, refusal.next_action) == (
        sent.summary,
        sent.details,
        sent.next_action,
    )


def test_a_refusal_without_its_own_next_action_keeps_the_default() -> None:
    refusal = appwire.Refused.of(NotAuthorized("never allowed")).refusal()
    assert refusal.next_action == NotAuthorized.next_action


def test_an_unknown_refusal_tag_is_malformed() -> None:
    with pytest.raises(appwire.Malformed, match="unknown refusal"):
        appwire.Refused("Noru exploded").refusal()


# --- against a listener that speaks another version ------------------------------


@pytest.fixture
def old_app(home: Path) -> Iterator[OneShotApp]:
    """An app of the first protocol: it answers anything it cannot read like this."""
    app = OneShotApp(home, b'{"ok": false, "message": "malformed request"}\n')
    try:
        yield app
    finally:
        app.close()


def test_a_client_meeting_an_older_app_says_to_restart_it(home: Path, old_app: OneShotApp) -> None:
    with pytest.raises(AppVersionMismatch, match="an older version") as caught:
        appwire.AppClient(home).call(appwire.Ping())
    assert isinstance(caught.value, AppNotRunning)  # to an agent: restart the app
    assert "restart the Noru app" in caught.value.next_action
    assert json.loads(old_app.received[0])["noru"] == appwire.PROTOCOL
    # The same version number on both sides (a checkout between releases)
    # is told apart by the protocols.
    assert f"(unknown, app protocol 1; this is {__version__}, app protocol " in str(caught.value)


def test_a_client_meeting_a_newer_app_says_so_with_its_version(home: Path) -> None:
    # What a newer app sends: its own protocol number, and its version.
    newer = {"noru": appwire.PROTOCOL + 1, "reply": "mismatch", "app_version": "9.9"}
    app = OneShotApp(home, json.dumps(newer).encode() + b"\n")
    try:
        with pytest.raises(
            AppVersionMismatch, match=r"a newer version \(9\.9, app protocol "
        ) as caught:
            appwire.AppClient(home).call(appwire.GetStatus())
        assert f"this is {__version__}, app protocol {appwire.PROTOCOL})" in str(caught.value)
    finally:
        app.close()


def test_an_agent_meeting_an_app_of_another_version_is_steered_to_restart_it(
    home: Path, old_app: OneShotApp, session: MemoryClient
) -> None:
    set_control(home, "allow")
    text = session.call("observe_screen")["result"]["content"][0]["text"]
    lines = text.splitlines()
    assert lines[0].startswith("Noru app not running: the running Noru app is an older version")
    assert lines[-1] == f"Next: {AppVersionMismatch.next_action}"


def test_a_reply_of_the_wrong_kind_is_an_internal_error(home: Path) -> None:
    app = OneShotApp(home, appwire.encode(appwire.Pong(__version__)))
    try:
        with pytest.raises(InternalError, match="malformed answer"):
            appwire.AppClient(home).expect(appwire.Capture(), appwire.Captured)
    finally:
        app.close()


def _raw(home: Path, line: bytes) -> appwire.Reply:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(30)
        sock.connect(str(socket_path(home)))
        sock.sendall(line)
        with sock.makefile("rb") as reader:
            line = reader.readline()
            return appwire.decode_reply(line + reader.read(appwire.blob_length(line)))


def test_the_real_app_answers_another_version_and_nonsense_in_words(
    home: Path, desktop: XServer, tmp_path: Path
) -> None:
    with running_app(home, desktop.env, tmp_path / "app.log"):
        assert _raw(home, b'{"op": "observe", "args": {}}\n') == appwire.Mismatch(
            protocol=appwire.PROTOCOL, app_version=__version__
        )
        failed = _raw(home, b'{"noru": %d, "request": "format_disk"}\n' % appwire.PROTOCOL)
        assert failed == appwire.Failed("malformed request: unknown format_disk request")
        assert appwire.AppClient(home).expect(appwire.Ping(), appwire.Pong) == appwire.Pong(
            __version__
        )
    with Reader.open(home) as reader:
        assert reader.count() == 0  # nothing was captured on a request it could not read
